// Kernel launchers: the only interface between the engine (C++) and the .cu file.
// No CUDA types here, so the engine compiles with the host compiler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "keccak_device.hpp"

namespace tempo::keccak::cuda {

// Fixed-length messages: message i at d_in + i*msg_len, digest i at d_out + i*out_bytes.
// d_in and d_out must be 16-byte aligned (cudaMalloc'd); d_in carries kLoadPadding bytes
// of slack. Picks the specialised 32 B -> 32 B kernel when it applies. Returns the
// launch's cudaError_t (0: success).
int launch_fixed(void* stream, const std::uint8_t* d_in, std::uint64_t msg_len, std::uint8_t* d_out,
                 std::uint64_t n, const SpongeSpec& s);

// Variable-length messages: message i is d_in[d_offsets[i], d_offsets[i+1]) (offsets
// relative to the chunk, n+1 of them). Messages longer than max_len are skipped (their
// digests are left for the CPU). Returns the launch's cudaError_t.
int launch_var(void* stream, const std::uint8_t* d_in, const std::uint64_t* d_offsets, std::uint8_t* d_out,
               std::uint64_t n, std::uint64_t max_len, const SpongeSpec& s);

// Benchmarks: 0 = launch_fixed's choice, 1 = the generic fixed-length kernel,
// 2 = the specialised kernel with a rolled (2 rounds per iteration) permutation.
int launch_fixed_variant(int variant, void* stream, const std::uint8_t* d_in, std::uint64_t msg_len,
                         std::uint8_t* d_out, std::uint64_t n, const SpongeSpec& s);

// Benchmarks (kernel_bench.cu): see tempo::keccak::kernel_only_ms. Throws KernelBenchError.
struct KernelBenchError {
  int code;
  const char* call;
  const char* text;
};
double kernel_only_ms(const SpongeSpec& s, std::size_t msg_len, std::size_t n, int variant, int reps,
                      std::size_t sample, std::vector<std::uint8_t>* inputs, std::vector<std::uint8_t>* digests);

// Whether launch_fixed uses the specialised kernel for this shape.
bool fixed32_applies(std::uint64_t msg_len, const SpongeSpec& s) noexcept;

}  // namespace tempo::keccak::cuda
