// Internal, no stable API: the launchers of the Keccak CUDA kernels (defined in
// src/cuda/kernels.cu, in CUDA builds only). The interface between the engine's HashOp
// (src/offload.cpp) and the kernels, and what tempo's own kernel-only benchmark
// (bench/apps/keccak_kernel_time.cu) launches. No CUDA types and nothing past C++17,
// so both the host compiler and nvcc take it.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tempo/keccak/algorithm.hpp>
#include <tempo/keccak/detail/device.hpp>

namespace tempo::keccak::cuda {

// What the kernels need to know about `a` producing out_bytes per message. `a` must
// have kernels (gpu_supports); out_bytes is not checked here.
inline SpongeSpec sponge_spec(Algorithm a, std::size_t out_bytes) {
  SpongeSpec s;
  s.rate = static_cast<std::uint32_t>(rate_bytes(a));
  s.rounds = static_cast<std::uint32_t>(permutation_rounds(a));
  s.domain = is_xof(a) ? 0x1F : 0x06;  // SHAKE/TurboSHAKE : SHA3
  s.out_bytes = static_cast<std::uint32_t>(out_bytes);
  return s;
}

// Fixed-length messages: message i at d_in + i*msg_len, digest i at d_out + i*out_bytes.
// d_in and d_out must be 16-byte aligned (cudaMalloc'd); d_in carries kLoadPadding bytes
// of slack. Picks the specialised 32 B -> 32 B kernel when it applies. `stream` is a
// cudaStream_t. Returns the launch's cudaError_t (0: success).
int launch_fixed(void* stream, const std::uint8_t* d_in, std::uint64_t msg_len, std::uint8_t* d_out,
                 std::uint64_t n, const SpongeSpec& s);

// Variable-length messages: message i is d_in[d_offsets[i], d_offsets[i+1]) (offsets
// relative to the chunk, n+1 of them). Messages longer than max_len are skipped (their
// digests are left for the CPU). Returns the launch's cudaError_t.
int launch_var(void* stream, const std::uint8_t* d_in, const std::uint64_t* d_offsets, std::uint8_t* d_out,
               std::uint64_t n, std::uint64_t max_len, const SpongeSpec& s);

// launch_fixed with the kernel named (the benchmark compares them): 0 = launch_fixed's
// choice, 1 = the generic fixed-length kernel, 2 = the specialised kernel with a rolled
// (2 rounds per iteration) permutation where it applies, else the generic one.
int launch_fixed_variant(int variant, void* stream, const std::uint8_t* d_in, std::uint64_t msg_len,
                         std::uint8_t* d_out, std::uint64_t n, const SpongeSpec& s);

// Whether launch_fixed uses the specialised kernel for this shape.
bool fixed32_applies(std::uint64_t msg_len, const SpongeSpec& s) noexcept;

}  // namespace tempo::keccak::cuda
