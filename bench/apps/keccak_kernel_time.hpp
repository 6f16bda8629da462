// tempo_gpu_bench's kernel-only rows (keccak_kernel_time.cu, CUDA builds): the Keccak
// kernels on device-resident data, through their launchers
// (tempo/keccak/detail/kernels.hpp). Plain C++17: included by the .cu file too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tempo/keccak/algorithm.hpp>

namespace keccak_bench {

// The median time in ms of `reps` launches (after one warm-up) on device 0 over n
// device-resident messages of msg_len bytes, out_bytes of digest each. variant: 0 the
// engine's choice, 1 the generic kernel, 2 the rolled 32-byte kernel
// (cuda::launch_fixed_variant). `inputs`/`digests` receive the first min(n, sample)
// messages and digests, for checking against the CPU. std::invalid_argument for KT128
// and KT256 (no kernels); gpu::CudaError for a CUDA failure.
double kernel_only_ms(tempo::keccak::Algorithm a, std::size_t msg_len, std::size_t out_bytes, std::size_t n,
                      int variant, int reps, std::size_t sample, std::vector<std::uint8_t>* inputs,
                      std::vector<std::uint8_t>* digests);

}  // namespace keccak_bench
