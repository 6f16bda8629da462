// NTT kernels and their launchers; the per-thread code and the geometry are in
// ntt_device.hpp.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <tempo/ntt/detail/kernels.hpp>

#include "ntt_device.hpp"

namespace tempo::ntt::cuda {
namespace {

using dev::Pass;
using dev::u32;
using dev::u64;

constexpr int kBlockThreads = 256;  // threads per block (fewer only when shared memory says so)

// The twiddle tables a pass keeps in shared memory: forward, inverse or both.
TEMPO_NTT_CHD int tables_of(Pass k) { return k == Pass::multiply ? 2 : 1; }
TEMPO_NTT_CHD bool inverse_table(Pass k) { return k == Pass::inverse || k == Pass::inverse_part; }

// Per-polynomial shared memory of a pass (bytes): the exchange buffer, and multiply's
// stash (dev::park).
template <typename W, int L, Pass K>
TEMPO_NTT_CHD std::size_t slot_bytes() {
  return (dev::buf_words(L) + (K == Pass::multiply ? (std::size_t{1} << L) : 0)) * sizeof(W);
}
template <typename W, int L, Pass K>
TEMPO_NTT_CHD std::size_t table_bytes() {
  return std::size_t{tables_of(K)} * sizeof(dev::Tw2<W>) << L;
}

// Blocks an SM must fit by registers (shared memory allows as many): the lazy 32-bit
// transforms 4 (64 registers a thread: the memory-bound kernels want the warps), the
// others 2 (128: 32 64-bit coefficients a thread, or multiply's two inputs); n <= 32,
// where a thread holds a whole polynomial and no barrier bounds its live ranges, what
// it takes. Each the most that ptxas fits without spilling.
template <typename W, bool Strict, int L, Pass K>
TEMPO_NTT_CHD int min_blocks() {
  if (L <= 5) return sizeof(W) == 4 ? 2 : 1;
  return sizeof(W) == 4 && !Strict && K != Pass::multiply ? 4 : 2;
}

// One block per group of ppb = blockDim.x / T polynomials (blockIdx.x) and chunk index c
// (blockIdx.y; item: chunk c of polynomial i, 2^L coefficients at (i * n/2^L + c) * 2^L):
// the block stages the chunk's twiddle table into shared memory while the coefficients'
// loads are in flight, then runs dev::run. count: polynomials. Pass::product: slots
// 2i and 2i+1 take a's and b's polynomial i. (Persistent blocks looping over groups
// measured slower.) S: the coefficients' word in memory (u64, or u32: the 32-bit layout).
template <typename W, bool Strict, int L, Pass K, typename S>
__global__ void __launch_bounds__(kBlockThreads, min_blocks<W, Strict, L, K>())
    poly_kernel(const S* a, const S* b, S* out, const void* tables, Params p, std::size_t count) {
  using Lane = dev::Lane<W, L, S>;
  constexpr u32 T = Lane::T;
  extern __shared__ uint4 smem[];
  auto* tw = reinterpret_cast<dev::Tw2<W>*>(smem);
  W* bufs = reinterpret_cast<W*>(reinterpret_cast<unsigned char*>(smem) + table_bytes<W, L, K>());
  constexpr u32 per_poly = K == Pass::product ? 2 : 1;  // slots a polynomial takes
  const u32 ppb = blockDim.x / T, slot = threadIdx.x / T, c = blockIdx.y, cpp = gridDim.y;
  const std::size_t poly = static_cast<std::size_t>(blockIdx.x) * (ppb / per_poly) + slot / per_poly;

  Lane l;
  l.t = threadIdx.x % T;
  l.active = poly < count;
  l.item = l.active ? static_cast<u32>(poly * cpp + c) : 0;
  l.a = a;
  l.b = b;
  l.out = out;
  l.buf = bufs + slot * dev::buf_words(L);
  l.stash = bufs + ppb * dev::buf_words(L) + threadIdx.x;
  l.stash_stride = blockDim.x;
  if (K == Pass::product && slot % 2 == 1) {
    l.a = b;
    l.partner = l.buf - dev::buf_words(L);
  }
  auto each = [&](auto&& f) { f(l); };
  auto sync = [] {
    if constexpr (T <= 32) __syncwarp();
    else __syncthreads();
  };
  auto sync_all = [] { __syncthreads(); };
  auto ready = [&] {
    const std::size_t first = dev::chunk_table(c, L) + (inverse_table(K) ? std::size_t{1} << L : 0);
    const auto* src = reinterpret_cast<const uint4*>(static_cast<const dev::Tw2<W>*>(tables) + first);
#pragma unroll 1  // few registers: the coefficients' loads hold most of them
    for (u32 i = threadIdx.x; i < table_bytes<W, L, K>() / sizeof(uint4); i += blockDim.x) smem[i] = src[i];
    __syncthreads();
  };
  dev::run<K, W, Strict, L>(each, sync, sync_all, ready, tw, p);
}

// The column pass of n > 2^kMaxLogC: thread (polynomial, i) transforms the 2^LA
// coefficients c * C + i (C = n >> LA). tables: the device table; its column part holds
// this pass's twiddles (uniform across a warp: broadcast loads).
template <typename W, bool Strict, int LA, bool Forward, typename S>
__global__ void __launch_bounds__(kBlockThreads) column_kernel(const S* in, S* out, const void* tables, Params p,
                                                               std::size_t count) {
  const int log_c = static_cast<int>(p.log_n) - LA;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid >= count << log_c) return;
  const std::size_t at = ((tid >> log_c) << p.log_n) + (tid & ((std::size_t{1} << log_c) - 1));
  const dev::Mod<W, Strict> mod{static_cast<W>(p.q), static_cast<W>(2 * p.q)};
  const dev::Tw2<W> ninv{static_cast<W>(p.n_inv), static_cast<W>(p.n_inv_s)};
  W x[1 << LA];
#pragma unroll
  for (int c = 0; c < (1 << LA); ++c) x[c] = static_cast<W>(in[at + (static_cast<std::size_t>(c) << log_c)]);
  dev::column<Forward, LA>(x, static_cast<const dev::Tw2<W>*>(tables) + dev::column_table(static_cast<int>(p.log_n)),
                           mod, ninv);
#pragma unroll
  for (int c = 0; c < (1 << LA); ++c) out[at + (static_cast<std::size_t>(c) << log_c)] = static_cast<S>(x[c]);
}

template <typename W, typename S>
__global__ void pointwise_kernel(const S* a, const S* b, S* out, Params p, std::size_t total) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) out[i] = static_cast<S>(dev::mul_mod(static_cast<W>(a[i]), static_cast<W>(b[i]), p));
}

int last_error() { return static_cast<int>(cudaGetLastError()); }

// Launches poly_kernel<W, Strict, L, K> over count polynomials (n >> L chunks each).
// Returns cudaErrorInvalidConfiguration, before launching anything, when not even one
// polynomial's share of shared memory fits a block.
template <typename W, bool Strict, int L, Pass K, typename S>
int launch_poly(const Params& p, const void* tables, const S* a, const S* b, S* out, std::size_t count,
                cudaStream_t s) {
  constexpr int T = static_cast<int>(dev::Lane<W, L>::T);
  const auto kernel = poly_kernel<W, Strict, L, K, S>;
  int device = 0, smem_max = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return static_cast<int>(e);
  const std::size_t fixed = table_bytes<W, L, K>(), slot = slot_bytes<W, L, K>();
  const std::size_t fit = (static_cast<std::size_t>(smem_max) - std::min<std::size_t>(fixed, smem_max)) / slot;
  constexpr int per_poly = K == Pass::product ? 2 : 1;
  const int ppb =
      static_cast<int>(std::min<std::size_t>(fit, std::max(per_poly, kBlockThreads / T))) / per_poly * per_poly;
  if (ppb < 1) return static_cast<int>(cudaErrorInvalidConfiguration);
  const std::size_t smem = fixed + slot * static_cast<std::size_t>(ppb);
  e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e != cudaSuccess) return static_cast<int>(e);
  const std::size_t polys_per_block = static_cast<std::size_t>(ppb / per_poly);
  const dim3 grid(static_cast<unsigned>((count + polys_per_block - 1) / polys_per_block), p.n >> L);
  kernel<<<grid, ppb * T, smem, s>>>(a, b, out, tables, p, count);
  return last_error();
}

template <typename W, bool Strict, int LA, bool Forward, typename S>
int launch_column(const Params& p, const void* tables, const S* in, S* out, std::size_t count, cudaStream_t s) {
  const std::size_t total = count << (p.log_n - LA);
  const auto blocks = static_cast<unsigned>((total + kBlockThreads - 1) / kBlockThreads);
  column_kernel<W, Strict, LA, Forward, S><<<blocks, kBlockThreads, 0, s>>>(in, out, tables, p, count);
  return last_error();
}

// Compile-time dispatch: the word (u32 lazy, u32 strict, u64) and log n. 32-bit storage
// (S = u32) takes the 32-bit words only (q < 2^31).
template <typename W, bool Strict>
struct Word {
  using type = W;
  static constexpr bool strict = Strict;
};
template <typename S, class F>
int with_word(const Params& p, F&& f) {
  if constexpr (sizeof(S) == 8) {
    if (!p.word32) return f(Word<u64, false>{});
  } else {
    if (!p.word32) return static_cast<int>(cudaErrorInvalidValue);
  }
  if (p.q < (u64{1} << 30)) return f(Word<u32, false>{});
  return f(Word<u32, true>{});
}
template <int Lo, int Hi, class F>
int with_log(int L, F&& f) {
  if constexpr (Lo > Hi) {
    return static_cast<int>(cudaErrorInvalidValue);
  } else {
    if (L == Lo) return f(std::integral_constant<int, Lo>{});
    return with_log<Lo + 1, Hi>(L, f);
  }
}
constexpr int kMinLog = 4, kMaxLogN = 16;

// One pass of poly_kernel on the whole polynomials (n <= 2^kMaxLogC) or their chunks.
template <Pass K, typename S>
int poly_pass(const Params& p, const void* tables, const S* a, const S* b, S* out, std::size_t count,
              cudaStream_t s) {
  const int L = dev::chunk_log(static_cast<int>(p.log_n));
  return with_word<S>(p, [&](auto w) {
    using Wd = decltype(w);
    constexpr bool wide = sizeof(typename Wd::type) == 8;
    if constexpr ((K == Pass::multiply && wide) || (K == Pass::product && !wide)) {
      return static_cast<int>(cudaErrorInvalidValue);  // not used (multiply())
    } else {
      return with_log<kMinLog, dev::kMaxLogC>(L, [&](auto lc) {
        return launch_poly<typename Wd::type, Wd::strict, decltype(lc)::value, K, S>(p, tables, a, b, out, count, s);
      });
    }
  });
}
template <bool Forward, typename S>
int column_pass(const Params& p, const void* tables, const S* in, S* out, std::size_t count, cudaStream_t s) {
  return with_word<S>(p, [&](auto w) {
    using Wd = decltype(w);
    return with_log<1, kMaxLogN - dev::kMaxLogC>(static_cast<int>(p.log_n) - dev::kMaxLogC, [&](auto la) {
      return launch_column<typename Wd::type, Wd::strict, decltype(la)::value, Forward, S>(p, tables, in, out, count,
                                                                                           s);
    });
  });
}

bool chunked(const Params& p) { return static_cast<int>(p.log_n) > dev::kMaxLogC; }

// The launchers, over either storage word (kernels.hpp).
template <typename S>
int forward_t(const Params& p, const void* d_tables, const S* in, S* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  if (!chunked(p)) return poly_pass<Pass::forward, S>(p, d_tables, in, nullptr, out, count, s);
  const int rc = column_pass<true, S>(p, d_tables, in, out, count, s);
  return rc != 0 ? rc : poly_pass<Pass::forward, S>(p, d_tables, out, nullptr, out, count, s);
}

template <typename S>
int inverse_t(const Params& p, const void* d_tables, const S* in, S* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  if (!chunked(p)) return poly_pass<Pass::inverse, S>(p, d_tables, in, nullptr, out, count, s);
  const int rc = poly_pass<Pass::inverse_part, S>(p, d_tables, in, nullptr, out, count, s);
  return rc != 0 ? rc : column_pass<false, S>(p, d_tables, out, out, count, s);
}

template <typename S>
int pointwise_t(const Params& p, const S* a, const S* b, S* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  const std::size_t total = count * p.n;
  const auto blocks = static_cast<unsigned>((total + kBlockThreads - 1) / kBlockThreads);
  auto s = static_cast<cudaStream_t>(stream);
  if constexpr (sizeof(S) == 4) {
    if (!p.word32) return static_cast<int>(cudaErrorInvalidValue);
  }
  if (p.word32)
    pointwise_kernel<u32, S><<<blocks, kBlockThreads, 0, s>>>(a, b, out, p, total);
  else
    pointwise_kernel<u64, S><<<blocks, kBlockThreads, 0, s>>>(a, b, out, p, total);
  return last_error();
}

template <typename S>
int multiply_t(const Params& p, const void* d_tables, const S* a, const S* b, S* out, std::size_t count,
               void* stream) {
  if (count == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  if (!chunked(p)) {
    // 32-bit words: one launch. 64-bit: the product, then the inverse in place.
    int rc = p.word32 ? poly_pass<Pass::multiply, S>(p, d_tables, a, b, out, count, s)
                      : poly_pass<Pass::product, S>(p, d_tables, a, b, out, count, s);
    if (rc == 0 && !p.word32) rc = poly_pass<Pass::inverse, S>(p, d_tables, out, nullptr, out, count, s);
    if (rc != static_cast<int>(cudaErrorInvalidConfiguration)) return rc;
  }
  // Too large for one block: the four passes, b's transform in stream-ordered scratch.
  void* scratch = nullptr;
  const cudaError_t e = cudaMallocAsync(&scratch, count * p.n * sizeof(S), s);
  if (e != cudaSuccess) return static_cast<int>(e);
  S* tb = static_cast<S*>(scratch);
  int rc = forward_t(p, d_tables, a, out, count, stream);
  if (rc == 0) rc = forward_t(p, d_tables, b, tb, count, stream);
  if (rc == 0) rc = pointwise_t(p, out, tb, out, count, stream);
  if (rc == 0) rc = inverse_t(p, d_tables, out, out, count, stream);
  const cudaError_t f = cudaFreeAsync(scratch, s);
  return rc != 0 ? rc : static_cast<int>(f);
}

}  // namespace

int forward(const Params& p, const void* t, const u64* in, u64* out, std::size_t count, void* stream) {
  return forward_t(p, t, in, out, count, stream);
}
int forward(const Params& p, const void* t, const u32* in, u32* out, std::size_t count, void* stream) {
  return forward_t(p, t, in, out, count, stream);
}
int inverse(const Params& p, const void* t, const u64* in, u64* out, std::size_t count, void* stream) {
  return inverse_t(p, t, in, out, count, stream);
}
int inverse(const Params& p, const void* t, const u32* in, u32* out, std::size_t count, void* stream) {
  return inverse_t(p, t, in, out, count, stream);
}
int pointwise(const Params& p, const u64* a, const u64* b, u64* out, std::size_t count, void* stream) {
  return pointwise_t(p, a, b, out, count, stream);
}
int pointwise(const Params& p, const u32* a, const u32* b, u32* out, std::size_t count, void* stream) {
  return pointwise_t(p, a, b, out, count, stream);
}
int multiply(const Params& p, const void* t, const u64* a, const u64* b, u64* out, std::size_t count, void* stream) {
  return multiply_t(p, t, a, b, out, count, stream);
}
int multiply(const Params& p, const void* t, const u32* a, const u32* b, u32* out, std::size_t count, void* stream) {
  return multiply_t(p, t, a, b, out, count, stream);
}

}  // namespace tempo::ntt::cuda
