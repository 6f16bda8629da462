// The TFHE bootstrap kernel's per-thread arithmetic and its block-level order, compilable by
// nvcc (device) and by the host compiler: tests/workloads/tfhe/test_cuda_emulated.cpp runs
// bootstrap_block thread by thread, phase by phase, on the CPU and checks the bytes against
// the CPU path (there is no GPU in CI). No CUDA runtime calls here.
//
// One thread block per bootstrap. Shared memory holds ACC = (a, b) (2 N words) and the 2L
// digit rows of its decomposition (2L N words). Words are 32-bit when Q < 2^27 (PN10QP27,
// TOY256: Shoup products with 32-bit companions, 64-bit lazy sums of the key products, one
// reduction per sum) and 64-bit otherwise (PN11QP54: Barrett with __umul64hi). Per LWE coefficient i with alpha != 0:
//   decompose   each thread: balanced digits of its coefficients of ACC -> rows
//   forward     log N stages over all 2L rows at once (one barrier per stage)
//   multiply    each thread, per coefficient j: s_{sign,col} = sum_r row_r[j] BK_i,sign[r][col][j],
//               u_col = s_{+,col} (X^alpha - 1)^ + s_{-,col} (X^-alpha - 1)^ -> rows 0, 1
//   inverse     log N stages over rows 0 and 1
//   accumulate  ACC += N^-1 u
// then sample extraction with the switch to Q_ks, key switching (a thread per output
// coefficient) and the switch to q. Every value is reduced to [0, Q) where the CPU reduces,
// so the result equals the CPU's bytes (the math has one result per input).
//
// Exec is the "all threads of the block run f, then barrier" primitive: on the device
// f(threadIdx.x) + __syncthreads(); on the host a loop over the threads. Inside one f(t),
// thread t writes only its own coefficients / butterfly pairs, so the serial order of the
// emulation gives the same result as the parallel one.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tfhe_kernels.hpp"

#if defined(__CUDACC__)
#define TEMPO_TFHE_HD __host__ __device__ __forceinline__
#else
#define TEMPO_TFHE_HD inline
#endif

namespace tempo::tfhe::cuda::dev {

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i64 = std::int64_t;

TEMPO_TFHE_HD u64 mulhi(u64 a, u64 b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<u64>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
TEMPO_TFHE_HD u32 mulhi(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<u32>((static_cast<u64>(a) * b) >> 32);
#endif
}
// x < 2m -> x mod m (a select, no branch on the device).
template <typename W>
TEMPO_TFHE_HD W csub(W x, W m) { return x >= m ? static_cast<W>(x - m) : x; }
template <typename W>
TEMPO_TFHE_HD W add_mod(W a, W b, W Q) { return csub(static_cast<W>(a + b), Q); }
template <typename W>
TEMPO_TFHE_HD W sub_mod(W a, W b, W Q) { return a >= b ? static_cast<W>(a - b) : static_cast<W>(a + Q - b); }

// Barrett division of a value X = hi 2^64 + lo < 2^(2k) by Q (k = bit width of Q,
// mu = floor(2^(2k)/Q)): the estimate is at most 2 below floor(X/Q) and is corrected.
struct DivMod {
  u64 quot, rem;
};
TEMPO_TFHE_HD DivMod barrett_divmod(u64 hi, u64 lo, const DeviceParams& p) {
  const u32 k = p.k;
  const u64 top = (hi << (65 - k)) | (lo >> (k - 1));  // X >> (k-1)
  u64 qhat = (mulhi(top, p.mu) << (63 - k)) | ((top * p.mu) >> (k + 1));
  u64 r = lo - qhat * p.Q;  // true value in [0, 3Q): the low word is exact
  if (r >= p.Q) { r -= p.Q; ++qhat; }
  if (r >= p.Q) { r -= p.Q; ++qhat; }
  return {qhat, r};
}
// a b mod Q for a, b < Q (Q < 2^62).
TEMPO_TFHE_HD u64 mul_mod(u64 a, u64 b, const DeviceParams& p) {
  return barrett_divmod(mulhi(a, b), a * b, p).rem;
}
// w y mod Q with the Shoup companion ws = floor(w 2^bits / Q) (bits = the word's width),
// y any word, Q < 2^(bits-1): fully reduced.
template <typename W>
TEMPO_TFHE_HD W mul_shoup(W y, W w, W ws, W Q) { return csub(static_cast<W>(w * y - mulhi(ws, y) * Q), Q); }
// x mod Q for x < 2^(k+31), Q < 2^32 with k = bit width of Q, mu32 = floor(2^(k+31) / Q):
// 32-bit quotient estimate, at most 3 too small (the CPU's SmallReducer).
TEMPO_TFHE_HD u32 reduce_wide(u64 x, const DeviceParams& p) {
  const u64 est = (static_cast<u64>(static_cast<u32>(x >> (p.k - 1))) * p.mu32) >> 32;
  u64 r = x - est * p.Q;
  r = csub<u64>(r, p.Q);
  r = csub<u64>(r, p.Q);
  r = csub<u64>(r, p.Q);
  return static_cast<u32>(r);
}

// The tables' layout in the device constants (uint64 words).
struct Tables {
  const u64* fwd;      // fwd[m] = psi^brv(m), m in [1, N)
  const u64* fwd_s;    // Shoup companions for the word width (2^32 or 2^64)
  const u64* inv;      // inv[m] = -fwd[m] mod Q
  const u64* inv_s;
  const u64* psi_pow;  // psi^e, e in [0, 2N)
  const u64* slot;     // 2 brv(j) + 1: forward slot j evaluates at psi^slot[j]
  TEMPO_TFHE_HD Tables(const u64* base, u32 N)
      : fwd(base), fwd_s(base + N), inv(base + 2 * N), inv_s(base + 3 * N), psi_pow(base + 4 * N),
        slot(base + 6 * N) {}
};
TEMPO_TFHE_HD std::size_t table_words(u32 N) { return std::size_t{7} * N; }

// Butterfly b (of rows * N/2) of the forward stage with len = 2^ll, on rows laid end to end:
// Cooley-Tukey with fwd[N/(2 len) + group] (tempo::ntt's transform: output j = poly(psi^slot[j])).
template <typename W>
TEMPO_TFHE_HD void fwd_butterfly(W* rows, u32 b, u32 ll, const Tables& tw, const DeviceParams& p) {
  // Shifts, not divisions (N/2 is a power of two; a runtime division costs ~20 instructions).
  const u32 row = b >> (p.log_n - 1), r = b & ((p.N >> 1) - 1), g = r >> ll, len = 1u << ll;
  W* x = rows + static_cast<std::size_t>(row) * p.N + (g << (ll + 1)) + (r & (len - 1));
  const u32 m = (p.N >> (ll + 1)) + g;
  const W Q = static_cast<W>(p.Q);
  const W v = mul_shoup<W>(x[len], static_cast<W>(tw.fwd[m]), static_cast<W>(tw.fwd_s[m]), Q);
  const W u = x[0];
  x[0] = add_mod<W>(u, v, Q);
  x[len] = sub_mod<W>(u, v, Q);
}
// Inverse stage with len = 2^ll (Gentleman-Sande with inv[N/len - 1 - group]); the factor
// N^-1 is applied when ACC is updated.
template <typename W>
TEMPO_TFHE_HD void inv_butterfly(W* rows, u32 b, u32 ll, const Tables& tw, const DeviceParams& p) {
  // Shifts, not divisions (N/2 is a power of two; a runtime division costs ~20 instructions).
  const u32 row = b >> (p.log_n - 1), r = b & ((p.N >> 1) - 1), g = r >> ll, len = 1u << ll;
  W* x = rows + static_cast<std::size_t>(row) * p.N + (g << (ll + 1)) + (r & (len - 1));
  const u32 m = (p.N >> ll) - 1 - g;
  const W Q = static_cast<W>(p.Q);
  const W u = x[0], v = x[len];
  x[0] = add_mod<W>(u, v, Q);
  x[len] = mul_shoup<W>(sub_mod<W>(u, v, Q), static_cast<W>(tw.inv[m]), static_cast<W>(tw.inv_s[m]), Q);
}

// Initial ACC b-part: X^-beta tv with tv = Q/8 everywhere; coefficient e is +Q/8 when
// (e + beta) mod 2N < N, else -Q/8.
TEMPO_TFHE_HD u64 acc_init(u32 beta, u32 e, const DeviceParams& p) {
  const u64 c = p.Q / 8;
  return ((e + beta) & (2 * p.N - 1)) < p.N ? c : p.Q - c;
}

// Balanced base-2^log_bg digits of the centered coefficient v (mod Q): digit r goes to
// rows[r N + j] as an element of [0, Q). Rows 0..L-1 come from ACC a, L..2L-1 from ACC b.
template <typename W>
TEMPO_TFHE_HD void decompose(W v, W* rows, u32 j, const DeviceParams& p) {
  const i64 Q = static_cast<i64>(p.Q);
  const i64 half = i64{1} << (p.log_bg - 1), mask = (i64{1} << p.log_bg) - 1;
  i64 x = static_cast<i64>(v) - (static_cast<i64>(v) > Q / 2 ? Q : 0);
  for (u32 r = 0; r < p.levels; ++r) {
    const i64 d = ((x + half) & mask) - half;
    x = (x - d) >> p.log_bg;
    rows[static_cast<std::size_t>(r) * p.N + j] = static_cast<W>(d + (d < 0 ? Q : 0));
  }
}

// Key word of RGSW(i, sign), row r, column col, coefficient j.
TEMPO_TFHE_HD u64 key_word(const void* bk, u32 i, u32 sign, u32 r, u32 col, u32 j, const DeviceParams& p) {
  const std::size_t idx =
      ((((static_cast<std::size_t>(i) * 2 + sign) * (2 * p.levels) + r) * 2 + col) * p.N) + j;
  return p.key32 ? static_cast<const u32*>(bk)[idx] : static_cast<const u64*>(bk)[idx];
}

// (X^e - 1) at forward slot j.
TEMPO_TFHE_HD u64 monomial_minus_one(u32 e, u32 j, const Tables& tw, const DeviceParams& p) {
  const u64 v = tw.psi_pow[(static_cast<u64>(e) * tw.slot[j]) & (2 * p.N - 1)];
  return v == 0 ? p.Q - 1 : v - 1;
}

// The external products of coefficient j against both keys, combined with the monomials:
// rows 0 and 1 receive u_a[j], u_b[j] (thread j reads all rows at j before writing).
template <typename W>
TEMPO_TFHE_HD void multiply_coeff(W* rows, u32 j, u32 i, u32 alpha, const void* bk, const Tables& tw,
                                  const DeviceParams& p) {
  const u32 nrows = 2 * p.levels;
  const u64 mp = monomial_minus_one(alpha, j, tw, p), mm = monomial_minus_one(2 * p.N - alpha, j, tw, p);
  if constexpr (sizeof(W) == 4) {
    // Products < 2^54, 2L <= 16 of them: exact 64-bit sums, one reduction each.
    u64 s[2][2] = {{0, 0}, {0, 0}};
    for (u32 r = 0; r < nrows; ++r) {
      const u32 d = static_cast<u32>(rows[static_cast<std::size_t>(r) * p.N + j]);
      for (u32 sign = 0; sign < 2; ++sign)
        for (u32 col = 0; col < 2; ++col)
          s[sign][col] += static_cast<u64>(d) * static_cast<u32>(key_word(bk, i, sign, r, col, j, p));
    }
    for (u32 col = 0; col < 2; ++col)
      rows[static_cast<std::size_t>(col) * p.N + j] =
          static_cast<W>(reduce_wide(reduce_wide(s[0][col], p) * mp + reduce_wide(s[1][col], p) * mm, p));
  } else {
    u64 s[2][2] = {{0, 0}, {0, 0}};
    for (u32 r = 0; r < nrows; ++r) {
      const u64 d = rows[static_cast<std::size_t>(r) * p.N + j];
      for (u32 sign = 0; sign < 2; ++sign)
        for (u32 col = 0; col < 2; ++col)
          s[sign][col] = add_mod<u64>(s[sign][col], mul_mod(d, key_word(bk, i, sign, r, col, j, p), p), p.Q);
    }
    for (u32 col = 0; col < 2; ++col)
      rows[static_cast<std::size_t>(col) * p.N + j] =
          static_cast<W>(add_mod<u64>(mul_mod(s[0][col], mp, p), mul_mod(s[1][col], mm, p), p.Q));
  }
}

// round(x Q_ks / Q) mod Q_ks for x in [0, Q).
TEMPO_TFHE_HD u32 switch_to_ks(u64 x, const DeviceParams& p) {
  const u32 s = p.log_qks;
  const u64 lo0 = x << s, lo = lo0 + p.Q / 2;
  const u64 hi = (x >> (64 - s)) + (lo < lo0 ? 1 : 0);
  return static_cast<u32>(barrett_divmod(hi, lo, p).quot) & ((1u << p.log_qks) - 1);
}
// Coefficient j of the extracted LWE (key S): a_0, then -a_{N-j}, switched to Q_ks.
template <typename W>
TEMPO_TFHE_HD u32 extract_coeff(const W* acc_a, u32 j, const DeviceParams& p) {
  if (j == 0) return switch_to_ks(acc_a[0], p);
  const u64 v = acc_a[p.N - j];
  return switch_to_ks(v == 0 ? 0 : p.Q - v, p);
}
// Key-switch digit j of a coefficient mod Q_ks.
TEMPO_TFHE_HD u32 ks_digit(u32 a, u32 j, const DeviceParams& p) { return (a >> (p.log_bks * j)) & ((1u << p.log_bks) - 1); }
// Output coefficient c (c < n: mask, c = n: body) of the key switch
// (0, b) - sum_{i,j} K[i][j][digit_j(ext_i)], then the rounding switch Q_ks -> q.
template <typename W>
TEMPO_TFHE_HD u32 key_switch_coeff(const W* ext, u32 b_ks, u32 c, const u16* ks, const DeviceParams& p) {
  const std::size_t row = p.n + 1, base = (std::size_t{1} << p.log_bks) - 1;
  u32 acc = c == p.n ? b_ks : 0;
  for (u32 i = 0; i < p.N; ++i) {
    const u32 a = static_cast<u32>(ext[i]);
    for (u32 j = 0; j < p.ks_levels; ++j) {
      const u32 d = ks_digit(a, j, p);
      if (d == 0) continue;  // a public ciphertext digit
      acc -= ks[((static_cast<std::size_t>(i) * p.ks_levels + j) * base + (d - 1)) * row + c];
    }
  }
  const u32 ka = acc & ((1u << p.log_qks) - 1), down = p.log_qks - p.log_q;
  return ((ka + (1u << (down - 1))) >> down) & ((1u << p.log_q) - 1);
}

// Word i of a batch of combined items (n + 1 words each): the gate's weighted sum, as
// detail::combine computes it. One thread per word.
TEMPO_TFHE_HD u32 combine_word(const Combination& lin, const DeviceParams& p, const u32* x, const u32* y,
                               std::size_t i) {
  u32 v = lin.w0 * x[i];
  if (lin.w1 != 0) v += lin.w1 * y[i];
  if (i % (p.n + 1) == p.n) v += lin.b_offset;
  return v & ((1u << p.log_q) - 1);
}

// One bootstrap by one block: in and out are n + 1 words (mask, then b); sm is the block's
// shared memory (block_smem_bytes); W = u32 when p.word32, else u64.
template <typename W, class Exec>
TEMPO_TFHE_HD void bootstrap_block(Exec& ex, const DeviceParams& p, const u64* tables, const void* bk,
                                   const u16* ks, const u32* in, u32* out, W* sm) {
  const u32 N = p.N, T = p.threads, two_n_mask = 2 * N - 1, rows = 2 * p.levels;
  const Tables tw(tables, N);
  const W Q = static_cast<W>(p.Q);
  W* acc_a = sm;
  W* acc_b = sm + N;
  W* dig = sm + 2 * static_cast<std::size_t>(N);
  const u32 shift = p.log_n + 1 - p.log_q;  // 2N / q
  const u32 beta = (in[p.n] << shift) & two_n_mask;
  ex([&](u32 t) {
    for (u32 j = t; j < N; j += T) {
      acc_a[j] = 0;
      acc_b[j] = static_cast<W>(acc_init(beta, j, p));
    }
  });
  for (u32 i = 0; i < p.n; ++i) {
    const u32 alpha = (in[i] << shift) & two_n_mask;
    if (alpha == 0) continue;  // X^0 - 1 = 0: the step adds nothing (block-uniform branch)
    ex([&](u32 t) {
      for (u32 j = t; j < N; j += T) {
        decompose<W>(acc_a[j], dig, j, p);
        decompose<W>(acc_b[j], dig + static_cast<std::size_t>(p.levels) * N, j, p);
      }
    });
    for (u32 ll = p.log_n; ll-- > 0;)
      ex([&](u32 t) {
        for (u32 b = t; b < rows * (N / 2); b += T) fwd_butterfly<W>(dig, b, ll, tw, p);
      });
    ex([&](u32 t) {
      for (u32 j = t; j < N; j += T) multiply_coeff<W>(dig, j, i, alpha, bk, tw, p);
    });
    for (u32 ll = 0; ll < p.log_n; ++ll)
      ex([&](u32 t) {
        for (u32 b = t; b < N; b += T) inv_butterfly<W>(dig, b, ll, tw, p);
      });
    ex([&](u32 t) {
      for (u32 j = t; j < N; j += T) {
        const W ni = static_cast<W>(p.n_inv), ni_s = static_cast<W>(p.n_inv_s);
        acc_a[j] = add_mod<W>(acc_a[j], mul_shoup<W>(dig[j], ni, ni_s, Q), Q);
        acc_b[j] = add_mod<W>(acc_b[j], mul_shoup<W>(dig[N + j], ni, ni_s, Q), Q);
      }
    });
  }
  ex([&](u32 t) {
    for (u32 j = t; j < N; j += T) dig[j] = static_cast<W>(extract_coeff<W>(acc_a, j, p));
  });
  const u32 b_ks = switch_to_ks(add_mod<u64>(acc_b[0], p.Q / 8, p.Q), p);
  ex([&](u32 t) {
    for (u32 c = t; c <= p.n; c += T) out[c] = key_switch_coeff<W>(dig, b_ks, c, ks, p);
  });
}

}  // namespace tempo::tfhe::cuda::dev
