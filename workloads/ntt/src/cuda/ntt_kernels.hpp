// Host-callable launchers of the NTT CUDA kernels (no CUDA types here: streams are void*,
// results are cudaError_t values as int, 0 = success). Kernels only enqueue work on the
// given stream; they never synchronise. Built only when TEMPO_HAVE_CUDA.
//
// Polynomials are laid end to end (count * n coefficients, uint64 in memory), inputs in
// [0, q), outputs fully reduced in [0, q): the same bytes as the CPU paths.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tempo::ntt::cuda {

// What the kernels need besides the twiddle tables (made by detail::device_params).
struct Params {
  std::uint32_t n = 0, log_n = 0;
  std::uint64_t q = 0;
  bool word32 = false;          // q < 2^30: 32-bit arithmetic and 32-bit tables
  std::uint64_t n_inv = 0, n_inv_s = 0;  // n^-1 and its Shoup companion (word-sized shift)
  std::uint64_t mu = 0;         // Barrett: floor(2^(2k) / q), k = bit width of q
  std::uint32_t k = 0;
};

// d_tables: the device copy of detail::device_table_bytes (fwd, fwd_s, inv, inv_s; n words
// each, 4 or 8 bytes per word). in may equal out.
int forward(const Params& p, const void* d_tables, const std::uint64_t* in, std::uint64_t* out,
            std::size_t count, void* stream);
int inverse(const Params& p, const void* d_tables, const std::uint64_t* in, std::uint64_t* out,
            std::size_t count, void* stream);
// out[i] = a[i] * b[i] mod q over count * n coefficients (out may alias a or b).
int pointwise(const Params& p, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out,
              std::size_t count, void* stream);
// out = a * b mod (X^n + 1, q) per polynomial; stream-ordered scratch (cudaMallocAsync)
// holds b's transform. out may alias a (not b).
int multiply(const Params& p, const void* d_tables, const std::uint64_t* a, const std::uint64_t* b,
             std::uint64_t* out, std::size_t count, void* stream);

}  // namespace tempo::ntt::cuda

namespace tempo::ntt::cuda {

// Benchmarks only: `count` polynomials (from `host_in`, count * n values < q) resident on
// device 0; `warmup` untimed then `reps` timed launches of `kind` (0 forward, 1 inverse,
// 2 the resident product chain forward(a), forward(b), pointwise, inverse; -1 an empty
// kernel, the launch floor), each timed by CUDA events around the launch (event_us[r])
// and by the host clock around launch + stream synchronize (host_us[r]). Outputs go to a
// separate buffer (inputs stay), so every rep computes the same; the first polynomial's
// output comes back in first_out (n values) when non-null. Returns a cudaError_t.
int time_kernels(const Params& p, const void* table_bytes, std::size_t table_len, int kind,
                 const std::uint64_t* host_in, std::size_t count, int warmup, int reps, double* event_us,
                 double* host_us, std::uint64_t* first_out);

}  // namespace tempo::ntt::cuda
