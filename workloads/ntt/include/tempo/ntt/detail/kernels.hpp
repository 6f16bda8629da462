// Internal, no stable API: what the NTT CUDA kernels take and their launchers. The
// interface between the engine's NttOp (src/batch.cpp) and the kernels
// (src/cuda/ntt_kernels.cu, whose per-thread code src/cuda/ntt_device.hpp also uses the
// Params), and what tempo's own kernel-only benchmark (bench/ntt/ntt_kernel_time.cu)
// launches. No CUDA types and nothing past C++17, so both the host compiler and nvcc
// take it: streams are void* (a cudaStream_t), results cudaError_t values as int
// (0 = success). Kernels only enqueue work on the given stream; they never synchronise.
//
// Polynomials are laid end to end (count * n coefficients, uint64 in memory, or uint32
// through the uint32 overloads: the 32-bit layout, q < 2^31 only, else
// cudaErrorInvalidValue), inputs in [0, q), outputs fully reduced in [0, q): the same
// values as the CPU paths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tempo::ntt::detail {

struct Tables;  // a Plan's tables: Plan::tables()

}  // namespace tempo::ntt::detail

namespace tempo::ntt::cuda {

// What the kernels need besides the twiddle tables (detail::device_params makes it).
struct Params {
  std::uint32_t n = 0, log_n = 0;
  std::uint64_t q = 0;
  bool word32 = false;                   // q < 2^31: 32-bit arithmetic and 32-bit tables
  std::uint64_t n_inv = 0, n_inv_s = 0;  // n^-1 and its Shoup companion (word-sized shift)
  std::uint64_t mu = 0;                  // Barrett: floor(2^(2k) / q), k = bit width of q
  std::uint32_t k = 0;
};

// The launchers, defined in CUDA builds only. d_tables: the device copy of
// detail::device_table_bytes. in may equal out. One launch per batch for n <= 4096
// (a block transforms whole polynomials); larger n take two (column and chunk passes).
int forward(const Params& p, const void* d_tables, const std::uint64_t* in, std::uint64_t* out,
            std::size_t count, void* stream);
int inverse(const Params& p, const void* d_tables, const std::uint64_t* in, std::uint64_t* out,
            std::size_t count, void* stream);
// out[i] = a[i] * b[i] mod q over count * n coefficients (out may alias a or b).
int pointwise(const Params& p, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out,
              std::size_t count, void* stream);
// out = a * b mod (X^n + 1, q) per polynomial, n <= 4096: 32-bit words one fused launch
// (both transforms, the product and the inverse in a block), 64-bit words two (both
// transforms and the product, then the inverse in place). Larger n (or a device whose
// blocks lack the shared memory): forward, forward, pointwise and inverse launches with
// stream-ordered scratch (cudaMallocAsync) for b's transform. out may alias a (not b).
int multiply(const Params& p, const void* d_tables, const std::uint64_t* a, const std::uint64_t* b,
             std::uint64_t* out, std::size_t count, void* stream);
// The same over 32-bit coefficients (p.word32 plans): half the bytes through memory.
int forward(const Params& p, const void* d_tables, const std::uint32_t* in, std::uint32_t* out,
            std::size_t count, void* stream);
int inverse(const Params& p, const void* d_tables, const std::uint32_t* in, std::uint32_t* out,
            std::size_t count, void* stream);
int pointwise(const Params& p, const std::uint32_t* a, const std::uint32_t* b, std::uint32_t* out,
              std::size_t count, void* stream);
int multiply(const Params& p, const void* d_tables, const std::uint32_t* a, const std::uint32_t* b,
             std::uint32_t* out, std::size_t count, void* stream);

}  // namespace tempo::ntt::cuda

namespace tempo::ntt::detail {

// A Plan's launch parameters and the table bytes to upload once per device (plain C++:
// every build has them; the emulation test uses them without a GPU).
cuda::Params device_params(const Tables& t);
// The twiddles and their Shoup companions as the kernels read them: (w, w') pairs of
// words (4 bytes when q < 2^31, else 8), reordered per stage so that a warp's threads read
// consecutive pairs (layout in src/cuda/ntt_device.hpp; inv[1] carries 1/n). 4n words.
std::vector<std::uint8_t> device_table_bytes(const Tables& t);

}  // namespace tempo::ntt::detail
