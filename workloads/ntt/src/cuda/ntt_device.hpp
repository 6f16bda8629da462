// The NTT kernels' per-thread code, compilable both by nvcc (device) and by the host
// compiler (tests/workloads/ntt/test_cuda_emulated.cpp runs it thread by thread, phase by
// phase, to check the index logic on machines without a GPU). No CUDA runtime calls here.
//
// Scheme: Harvey butterflies with Shoup twiddles, as on the CPU, in 32-bit words when
// q < 2^30 and 64-bit words otherwise. One thread holds 8 coefficients and runs up to
// three stages in registers between shared-memory exchanges (radix-8 "phases"). A block
// handles chunks of C = 2^log_c coefficients (C <= 4096 in 64-bit words, 8192 in 32-bit:
// 32 KiB of shared memory); for larger n, the stages whose butterflies cross chunks run
// first (forward) or last (inverse) as one kernel per stage, a thread per butterfly.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tempo/ntt/detail/kernels.hpp>

#if defined(__CUDACC__)
#define TEMPO_NTT_HD __host__ __device__ __forceinline__
#define TEMPO_NTT_LDG(p) __ldg(p)
#else
#define TEMPO_NTT_HD inline
#define TEMPO_NTT_LDG(p) (*(p))
#endif
#if defined(__CUDA_ARCH__)
#define TEMPO_NTT_UNROLL _Pragma("unroll")
#else
#define TEMPO_NTT_UNROLL
#endif

namespace tempo::ntt::cuda::dev {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

TEMPO_NTT_HD u32 mulhi(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<u32>((static_cast<u64>(a) * b) >> 32);
#endif
}
TEMPO_NTT_HD u64 mulhi(u64 a, u64 b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<u64>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
// x < 2m -> x mod m without a branch: when x < m, x - m wraps above x (a select/min).
template <typename W>
TEMPO_NTT_HD W csub(W x, W m) {
  const W y = static_cast<W>(x - m);
  return y < x ? y : x;
}
// w*y mod q up to one q, in [0, 2q) (Harvey); y below 2^(word bits).
template <typename W>
TEMPO_NTT_HD W mul_lazy(W y, W w, W ws, W q) {
  return static_cast<W>(w * y - mulhi(ws, y) * q);
}
template <typename W>
TEMPO_NTT_HD void ct(W& x, W& y, W w, W ws, W q) {  // [0,4q) -> [0,4q)
  const W u = csub(x, static_cast<W>(2 * q));
  const W v = mul_lazy(y, w, ws, q);
  x = static_cast<W>(u + v);
  y = static_cast<W>(u - v + 2 * q);
}
template <typename W>
TEMPO_NTT_HD void gs(W& x, W& y, W w, W ws, W q) {  // [0,2q) -> [0,2q)
  const W u = csub(static_cast<W>(x + y), static_cast<W>(2 * q));
  const W v = mul_lazy(static_cast<W>(x - y + 2 * q), w, ws, q);
  x = u;
  y = v;
}

template <typename W>
struct Tw {
  const W* fwd;
  const W* fwd_s;
  const W* inv;
  const W* inv_s;
  TEMPO_NTT_HD Tw(const void* base, u32 n)
      : fwd(static_cast<const W*>(base)), fwd_s(fwd + n), inv(fwd + 2 * n), inv_s(fwd + 3 * n) {}
};

// K forward stages on x[0..2^K) (element m at poly index j0 + m * 2^log_lo), stage i with
// len = 2^(log_len - i). Twiddle of the block holding j: fwd[n/(2 len) + j/(2 len)].
template <typename W, int K>
TEMPO_NTT_HD void fwd_regs(W (&x)[8], const Tw<W>& tw, u32 log_n, int log_len, u32 j0, W q) {
TEMPO_NTT_UNROLL
  for (int i = 0; i < K; ++i) {
    const int ll = log_len - i;
    const int half = 1 << (K - 1 - i);
TEMPO_NTT_UNROLL
    for (int m = 0; m < (1 << K); ++m) {
      if (m & half) continue;
      // Block of element m: (j0 >> (ll+1)) + (m >> (K-i)), so the 2^i distinct twiddles
      // of this stage are loaded once each (same address -> one load after CSE).
      const u32 idx = (1u << (log_n - static_cast<u32>(ll) - 1)) + (j0 >> (ll + 1)) + static_cast<u32>(m >> (K - i));
      ct(x[m], x[m + half], TEMPO_NTT_LDG(tw.fwd + idx), TEMPO_NTT_LDG(tw.fwd_s + idx), q);
    }
  }
}

// K inverse stages, stage i with len = 2^(log_lo + i): inv[n/len - 1 - j/(2 len)]; the
// transform's last stage (len = n/2) also applies 1/n and reduces to [0, q).
template <typename W, int K>
TEMPO_NTT_HD void inv_regs(W (&x)[8], const Tw<W>& tw, u32 log_n, int log_lo, u32 j0, W q, W ninv, W ninv_s) {
TEMPO_NTT_UNROLL
  for (int i = 0; i < K; ++i) {
    const int ll = log_lo + i;
    const int half = 1 << i;
TEMPO_NTT_UNROLL
    for (int m = 0; m < (1 << K); ++m) {
      if (m & half) continue;
      // Block of element m: (j0 >> (ll+1)) + (m >> (i+1)) (see fwd_regs).
      const u32 idx = (1u << (log_n - static_cast<u32>(ll))) - 1 - ((j0 >> (ll + 1)) + static_cast<u32>(m >> (i + 1)));
      if (ll == static_cast<int>(log_n) - 1) {
        const W a = x[m], b = x[m + half];
        x[m] = csub(mul_lazy(static_cast<W>(a + b), ninv, ninv_s, q), q);
        x[m + half] = csub(mul_lazy(static_cast<W>(a - b + 2 * q), TEMPO_NTT_LDG(tw.inv + idx),
                                    TEMPO_NTT_LDG(tw.inv_s + idx), q),
                           q);
      } else {
        gs(x[m], x[m + half], TEMPO_NTT_LDG(tw.inv + idx), TEMPO_NTT_LDG(tw.inv_s + idx), q);
      }
    }
  }
}

// Shared-memory chunk size: 32 KiB of coefficients per chunk (plus 1/8 padding).
TEMPO_NTT_HD int chunk_log(const Params& p) {
  const u32 cap = p.word32 ? 13u : 12u;
  return static_cast<int>(p.log_n < cap ? p.log_n : cap);
}
// Shared-memory index of coefficient e: one pad word after every 8, so that a warp whose
// threads each hold 8 consecutive coefficients hits distinct banks (and consecutive ones
// still do). A chunk of C coefficients takes C + C/8 words.
TEMPO_NTT_HD u32 pad(u32 e) { return e + (e >> 3); }
TEMPO_NTT_HD std::size_t smem_words(int log_c) { return (std::size_t{9} << log_c) >> 3; }

// One phase of the chunk kernel: K stages from log_len (forward: downwards; inverse:
// log_len is the lowest and they go upwards). A phase whose threads touch runs of at least
// 32 consecutive coefficients (log_lo >= 5) reads (first phase) or writes (last phase)
// global memory directly; otherwise the kernel stages the chunk through shared memory with
// coalesced copies (copy_in before the first phase, copy_out after the last).
struct Phase {
  int k, log_len;
  bool first, last;
  bool in_global, out_global;
};
// The first phase, then next_phase until it returns false (no arrays: they would live in
// local memory on the device).
TEMPO_NTT_HD Phase phase_at(bool forward, int log_c, int ll, bool first) {
  const int k = forward ? (ll >= 2 ? 3 : ll + 1) : (log_c - ll >= 3 ? 3 : log_c - ll);
  const bool last = forward ? ll - k < 0 : ll + k >= log_c;
  const int log_lo = forward ? ll - k + 1 : ll;
  return Phase{k, ll, first, last, first && log_lo >= 5, last && log_lo >= 5};
}
TEMPO_NTT_HD Phase first_phase(bool forward, int log_c) { return phase_at(forward, log_c, forward ? log_c - 1 : 0, true); }
TEMPO_NTT_HD bool next_phase(bool forward, int log_c, Phase& ph) {
  if (ph.last) return false;
  ph = phase_at(forward, log_c, forward ? ph.log_len - ph.k : ph.log_len + ph.k, false);
  return true;
}

struct ChunkGeom {
  const u64* gin;  // the chunk in global memory (input)
  u64* gout;       // and its output place
  u32 gofs;        // index of the chunk's first coefficient within its polynomial
  u32 t;           // thread within the chunk (C/8 threads per chunk)
};

// Coalesced staging between the chunk in global memory and shared memory.
template <typename W>
TEMPO_NTT_HD void copy_in(const ChunkGeom& g, W* sm, int log_c) {
  const u32 C = 1u << log_c, tpc = C >> 3;
  for (u32 e = g.t; e < C; e += tpc) sm[pad(e)] = static_cast<W>(g.gin[e]);
}
template <typename W>
TEMPO_NTT_HD void copy_out(const ChunkGeom& g, const W* sm, int log_c) {
  const u32 C = 1u << log_c, tpc = C >> 3;
  for (u32 e = g.t; e < C; e += tpc) g.gout[e] = static_cast<u64>(sm[pad(e)]);
}

// One thread's share of one phase: 8 / 2^K sub-transforms of 2^K coefficients.
template <typename W, int K, bool Forward>
TEMPO_NTT_HD void phase_k(const ChunkGeom& g, W* sm, const Tw<W>& tw, const Params& p, const Phase& ph) {
  const int log_lo = Forward ? ph.log_len - K + 1 : ph.log_len;
  const int log_hi = Forward ? ph.log_len : ph.log_len + K - 1;
  const W q = static_cast<W>(p.q);
  constexpr int subs = 8 >> K;
TEMPO_NTT_UNROLL
  for (int r = 0; r < subs; ++r) {
    const u32 s = g.t * subs + static_cast<u32>(r);
    const u32 low = s & ((1u << log_lo) - 1), high = s >> log_lo;
    const u32 base = (high << (log_hi + 1)) + low;
    W x[8];
TEMPO_NTT_UNROLL
    for (int m = 0; m < (1 << K); ++m) {
      const u32 e = base + (static_cast<u32>(m) << log_lo);
      x[m] = ph.in_global ? static_cast<W>(g.gin[e]) : sm[pad(e)];
    }
    if (Forward)
      fwd_regs<W, K>(x, tw, p.log_n, ph.log_len, g.gofs + base, q);
    else
      inv_regs<W, K>(x, tw, p.log_n, log_lo, g.gofs + base, q, static_cast<W>(p.n_inv), static_cast<W>(p.n_inv_s));
TEMPO_NTT_UNROLL
    for (int m = 0; m < (1 << K); ++m) {
      const u32 e = base + (static_cast<u32>(m) << log_lo);
      W v = x[m];
      // Forward's last phase: [0,4q) -> [0,q). Inverse: reduced by its last stage when the
      // chunk holds it, else left in [0,2q) for the cross-chunk stages.
      if (Forward && ph.last) v = csub(csub(v, static_cast<W>(2 * q)), q);
      if (ph.out_global)
        g.gout[e] = static_cast<u64>(v);
      else
        sm[pad(e)] = v;
    }
  }
}

template <typename W, bool Forward>
TEMPO_NTT_HD void phase(const ChunkGeom& g, W* sm, const Tw<W>& tw, const Params& p, const Phase& ph) {
  if (ph.k == 3) phase_k<W, 3, Forward>(g, sm, tw, p, ph);
  else if (ph.k == 2) phase_k<W, 2, Forward>(g, sm, tw, p, ph);
  else phase_k<W, 1, Forward>(g, sm, tw, p, ph);
}

// Butterfly `tid` (of count * n/2) of the cross-chunk stage with len = 2^log_len.
template <typename W, bool Forward>
TEMPO_NTT_HD void stage_body(std::size_t tid, const u64* in, u64* out, const Tw<W>& tw, const Params& p, int log_len) {
  const u32 half_n = p.n >> 1;
  const std::size_t poly = tid / half_n;
  const u32 r = static_cast<u32>(tid % half_n);
  const u32 b = r >> log_len;
  const u32 j = (b << (log_len + 1)) + (r & ((1u << log_len) - 1));
  const std::size_t o = poly * p.n + j, o2 = o + (std::size_t{1} << log_len);
  const W q = static_cast<W>(p.q);
  W x = static_cast<W>(in[o]), y = static_cast<W>(in[o2]);
  if (Forward) {
    const u32 idx = (p.n >> (log_len + 1)) + b;
    ct(x, y, TEMPO_NTT_LDG(tw.fwd + idx), TEMPO_NTT_LDG(tw.fwd_s + idx), q);
  } else {
    const u32 idx = (p.n >> log_len) - 1 - b;
    if (log_len == static_cast<int>(p.log_n) - 1) {
      const W a = x;
      x = csub(mul_lazy(static_cast<W>(a + y), static_cast<W>(p.n_inv), static_cast<W>(p.n_inv_s), q), q);
      y = csub(mul_lazy(static_cast<W>(a - y + 2 * q), TEMPO_NTT_LDG(tw.inv + idx), TEMPO_NTT_LDG(tw.inv_s + idx), q), q);
    } else {
      gs(x, y, TEMPO_NTT_LDG(tw.inv + idx), TEMPO_NTT_LDG(tw.inv_s + idx), q);
    }
  }
  out[o] = static_cast<u64>(x);
  out[o2] = static_cast<u64>(y);
}

// Barrett for a product of two residues (q < 2^62): the CPU's formula, in 64-bit halves.
TEMPO_NTT_HD u64 mul_mod(u64 x, u64 y, const Params& p) {
  const u64 q = p.q, lo = x * y, hi = mulhi(x, y);
  const u32 k = p.k;
  const u64 top = (hi << (65 - k)) | (lo >> (k - 1));  // x*y >> (k-1)
  const u64 qhat = (mulhi(top, p.mu) << (63 - k)) | ((top * p.mu) >> (k + 1));
  const u64 r = lo - qhat * q;  // < 3q
  return csub(csub(r, 2 * q), q);
}

}  // namespace tempo::ntt::cuda::dev
