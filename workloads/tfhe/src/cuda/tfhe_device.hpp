// The TFHE bootstrap kernel's per-thread arithmetic and its block-level order, compilable by
// nvcc (device) and by the host compiler: tests/workloads/tfhe/test_cuda_emulated.cpp runs
// bootstrap_block thread by thread, phase by phase, on the CPU and checks the bytes against
// the CPU path (there is no GPU in CI). No CUDA runtime calls here.
//
// One thread block per bootstrap. Shared memory holds ACC = (a, b) (2 N words) and the 2L
// digit rows of its decomposition (2L N words). Per LWE coefficient i with alpha != 0:
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
// x < 2m -> x mod m, branch-free (a select).
TEMPO_TFHE_HD u64 csub(u64 x, u64 m) { return x >= m ? x - m : x; }
TEMPO_TFHE_HD u64 add_mod(u64 a, u64 b, u64 Q) { return csub(a + b, Q); }
TEMPO_TFHE_HD u64 sub_mod(u64 a, u64 b, u64 Q) { return a >= b ? a - b : a + Q - b; }

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
// w y mod Q with the Shoup companion ws = floor(w 2^64 / Q), y < 2^64, fully reduced.
TEMPO_TFHE_HD u64 mul_shoup(u64 y, u64 w, u64 ws, u64 Q) { return csub(w * y - mulhi(ws, y) * Q, Q); }

// The tables' layout in the device constants (uint64 words).
struct Tables {
  const u64* fwd;      // fwd[m] = psi^brv(m), m in [1, N)
  const u64* fwd_s;
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
TEMPO_TFHE_HD void fwd_butterfly(u64* rows, u32 b, u32 ll, const Tables& tw, const DeviceParams& p) {
  const u32 half = p.N >> 1;
  const u32 row = b / half, r = b % half, g = r >> ll, len = 1u << ll;
  u64* x = rows + static_cast<std::size_t>(row) * p.N + (g << (ll + 1)) + (r & (len - 1));
  const u32 m = (p.N >> (ll + 1)) + g;
  const u64 v = mul_shoup(x[len], tw.fwd[m], tw.fwd_s[m], p.Q);
  const u64 u = x[0];
  x[0] = add_mod(u, v, p.Q);
  x[len] = sub_mod(u, v, p.Q);
}
// Inverse stage with len = 2^ll (Gentleman-Sande with inv[N/len - 1 - group]); the factor
// N^-1 is applied when ACC is updated.
TEMPO_TFHE_HD void inv_butterfly(u64* rows, u32 b, u32 ll, const Tables& tw, const DeviceParams& p) {
  const u32 half = p.N >> 1;
  const u32 row = b / half, r = b % half, g = r >> ll, len = 1u << ll;
  u64* x = rows + static_cast<std::size_t>(row) * p.N + (g << (ll + 1)) + (r & (len - 1));
  const u32 m = (p.N >> ll) - 1 - g;
  const u64 u = x[0], v = x[len];
  x[0] = add_mod(u, v, p.Q);
  x[len] = mul_shoup(sub_mod(u, v, p.Q), tw.inv[m], tw.inv_s[m], p.Q);
}

// Initial ACC b-part: X^-beta tv with tv = Q/8 everywhere; coefficient e is +Q/8 when
// (e + beta) mod 2N < N, else -Q/8.
TEMPO_TFHE_HD u64 acc_init(u32 beta, u32 e, const DeviceParams& p) {
  const u64 c = p.Q / 8;
  return ((e + beta) & (2 * p.N - 1)) < p.N ? c : p.Q - c;
}

// Balanced base-2^log_bg digits of the centered coefficient v (mod Q): digit r goes to
// rows[r N + j] as an element of [0, Q). Rows 0..L-1 come from ACC a, L..2L-1 from ACC b.
TEMPO_TFHE_HD void decompose(u64 v, u64* rows, u32 j, const DeviceParams& p) {
  const i64 Q = static_cast<i64>(p.Q);
  const i64 half = i64{1} << (p.log_bg - 1), mask = (i64{1} << p.log_bg) - 1;
  i64 x = static_cast<i64>(v) - (static_cast<i64>(v) > Q / 2 ? Q : 0);
  for (u32 r = 0; r < p.levels; ++r) {
    const i64 d = ((x + half) & mask) - half;
    x = (x - d) >> p.log_bg;
    rows[static_cast<std::size_t>(r) * p.N + j] = static_cast<u64>(d + (d < 0 ? Q : 0));
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
TEMPO_TFHE_HD void multiply_coeff(u64* rows, u32 j, u32 i, u32 alpha, const void* bk, const Tables& tw,
                                  const DeviceParams& p) {
  u64 s[2][2] = {{0, 0}, {0, 0}};
  const u32 nrows = 2 * p.levels;
  for (u32 r = 0; r < nrows; ++r) {
    const u64 d = rows[static_cast<std::size_t>(r) * p.N + j];
    for (u32 sign = 0; sign < 2; ++sign)
      for (u32 col = 0; col < 2; ++col)
        s[sign][col] = add_mod(s[sign][col], mul_mod(d, key_word(bk, i, sign, r, col, j, p), p), p.Q);
  }
  const u64 mp = monomial_minus_one(alpha, j, tw, p), mm = monomial_minus_one(2 * p.N - alpha, j, tw, p);
  for (u32 col = 0; col < 2; ++col)
    rows[static_cast<std::size_t>(col) * p.N + j] =
        add_mod(mul_mod(s[0][col], mp, p), mul_mod(s[1][col], mm, p), p.Q);
}

// round(x Q_ks / Q) mod Q_ks for x in [0, Q).
TEMPO_TFHE_HD u32 switch_to_ks(u64 x, const DeviceParams& p) {
  const u32 s = p.log_qks;
  const u64 lo0 = x << s, lo = lo0 + p.Q / 2;
  const u64 hi = (x >> (64 - s)) + (lo < lo0 ? 1 : 0);
  return static_cast<u32>(barrett_divmod(hi, lo, p).quot) & ((1u << p.log_qks) - 1);
}
// Coefficient j of the extracted LWE (key S): a_0, then -a_{N-j}, switched to Q_ks.
TEMPO_TFHE_HD u32 extract_coeff(const u64* acc_a, u32 j, const DeviceParams& p) {
  if (j == 0) return switch_to_ks(acc_a[0], p);
  const u64 v = acc_a[p.N - j];
  return switch_to_ks(v == 0 ? 0 : p.Q - v, p);
}
// Key-switch digit j of a coefficient mod Q_ks.
TEMPO_TFHE_HD u32 ks_digit(u32 a, u32 j, const DeviceParams& p) { return (a >> (p.log_bks * j)) & ((1u << p.log_bks) - 1); }
// Output coefficient c (c < n: mask, c = n: body) of the key switch
// (0, b) - sum_{i,j} K[i][j][digit_j(ext_i)], then the rounding switch Q_ks -> q.
TEMPO_TFHE_HD u32 key_switch_coeff(const u64* ext, u32 b_ks, u32 c, const u16* ks, const DeviceParams& p) {
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

// One bootstrap by one block: in and out are n + 1 words (mask, then b); sm is the block's
// shared memory (block_smem_bytes).
template <class Exec>
TEMPO_TFHE_HD void bootstrap_block(Exec& ex, const DeviceParams& p, const u64* tables, const void* bk,
                                   const u16* ks, const u32* in, u32* out, u64* sm) {
  const u32 N = p.N, T = p.threads, two_n_mask = 2 * N - 1, rows = 2 * p.levels;
  const Tables tw(tables, N);
  u64* acc_a = sm;
  u64* acc_b = sm + N;
  u64* dig = sm + 2 * static_cast<std::size_t>(N);
  const u32 shift = p.log_n + 1 - p.log_q;  // 2N / q
  const u32 beta = (in[p.n] << shift) & two_n_mask;
  ex([&](u32 t) {
    for (u32 j = t; j < N; j += T) {
      acc_a[j] = 0;
      acc_b[j] = acc_init(beta, j, p);
    }
  });
  for (u32 i = 0; i < p.n; ++i) {
    const u32 alpha = (in[i] << shift) & two_n_mask;
    if (alpha == 0) continue;  // X^0 - 1 = 0: the step adds nothing (block-uniform branch)
    ex([&](u32 t) {
      for (u32 j = t; j < N; j += T) {
        decompose(acc_a[j], dig, j, p);
        decompose(acc_b[j], dig + static_cast<std::size_t>(p.levels) * N, j, p);
      }
    });
    for (u32 ll = p.log_n; ll-- > 0;)
      ex([&](u32 t) {
        for (u32 b = t; b < rows * (N / 2); b += T) fwd_butterfly(dig, b, ll, tw, p);
      });
    ex([&](u32 t) {
      for (u32 j = t; j < N; j += T) multiply_coeff(dig, j, i, alpha, bk, tw, p);
    });
    for (u32 ll = 0; ll < p.log_n; ++ll)
      ex([&](u32 t) {
        for (u32 b = t; b < N; b += T) inv_butterfly(dig, b, ll, tw, p);
      });
    ex([&](u32 t) {
      for (u32 j = t; j < N; j += T) {
        acc_a[j] = add_mod(acc_a[j], mul_shoup(dig[j], p.n_inv, p.n_inv_s, p.Q), p.Q);
        acc_b[j] = add_mod(acc_b[j], mul_shoup(dig[N + j], p.n_inv, p.n_inv_s, p.Q), p.Q);
      }
    });
  }
  ex([&](u32 t) {
    for (u32 j = t; j < N; j += T) dig[j] = extract_coeff(acc_a, j, p);
  });
  const u32 b_ks = switch_to_ks(add_mod(acc_b[0], p.Q / 8, p.Q), p);
  ex([&](u32 t) {
    for (u32 c = t; c <= p.n; c += T) out[c] = key_switch_coeff(dig, b_ks, c, ks, p);
  });
}

}  // namespace tempo::tfhe::cuda::dev
