// The TFHE bootstrap kernel's per-thread arithmetic and its block-level order, compilable by
// nvcc (device) and by the host compiler: tests/workloads/tfhe/test_cuda_emulated.cpp runs
// bootstrap_block thread by thread, phase by phase, on the CPU and checks the bytes against
// the CPU path (there is no GPU in CI). No CUDA runtime calls here.
//
// One thread block per bootstrap. Shared memory holds ACC = (a, b) (2 N words) and the 2L
// digit rows of its decomposition (2L N words). Words are 32-bit when Q < 2^27 (PN10QP27,
// TOY256: Shoup products with 32-bit companions, 64-bit lazy sums of the key products, one
// reduction per sum) and 64-bit otherwise (PN11QP54: Barrett with __umul64hi). Per LWE
// coefficient i with alpha != 0 (one barrier after each phase):
//   forward     radix passes of up to S stages in registers over all 2L rows (2^S coefficients
//               per thread; shared memory only between passes), the first pass loading the
//               balanced digits of ACC directly (decomposition fused into the load)
//   multiply    each thread, per coefficient j: s_{sign,col} = sum_r row_r[j] BK_i,sign[r][col][j],
//               u_col = s_{+,col} (X^alpha - 1)^ + s_{-,col} (X^-alpha - 1)^ -> rows 0, 1
//   inverse     radix passes over rows 0 and 1, the last one adding N^-1 u to ACC
// then sample extraction with the switch to Q_ks, key switching (items of 32 outputs x 64
// inputs, partial sums added in shared memory) and the switch to q. Every value is reduced to [0, Q) where the CPU reduces,
// so the result equals the CPU's bytes (the math has one result per input).
//
// Exec is the "all threads of the block run f, then barrier" primitive: on the device
// f(threadIdx.x) + __syncthreads(); on the host a loop over the threads. Inside one f(t),
// thread t writes only its own coefficients / radix-pass groups, so the serial order of the
// emulation gives the same result as the parallel one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

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
// x - m when x >= m, else x (0 < m): the wrapped difference exceeds x exactly when x < m,
// so this is min(x, x - m): two instructions on the device (a subtraction and an unsigned
// minimum) where a compare and select took three.
template <typename W>
TEMPO_TFHE_HD W csub(W x, W m) {
  const W d = static_cast<W>(x - m);
#if defined(__CUDA_ARCH__)
  return min(x, d);
#else
  return d < x ? d : x;
#endif
}
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
TEMPO_TFHE_HD W mul_shoup_lazy(W y, W w, W ws, W Q) { return static_cast<W>(w * y - mulhi(ws, y) * Q); }  // [0, 2Q)
template <typename W>
TEMPO_TFHE_HD W mul_shoup(W y, W w, W ws, W Q) { return csub(mul_shoup_lazy(y, w, ws, Q), Q); }
// x mod Q for x < 2^(k+31), Q < 2^30 with k = bit width of Q, mu32 = floor(2^(k+31) / Q)
// (< 2^32): 32-bit quotient estimate, at most 3 too small (the CPU's SmallReducer), so
// x - est Q is below 4 Q <= 2^32 and is computed mod 2^32 (exact).
TEMPO_TFHE_HD u32 reduce_wide_lazy(u64 x, const DeviceParams& p) {  // x - est Q: below 4Q
  const u32 est = mulhi(static_cast<u32>(x >> (p.k - 1)), static_cast<u32>(p.mu32));
  return static_cast<u32>(x) + est * static_cast<u32>(p.Q_neg);
}
TEMPO_TFHE_HD u32 reduce_wide(u64 x, const DeviceParams& p) {
  return csub<u32>(csub<u32>(reduce_wide_lazy(x, p), static_cast<u32>(p.Q2)), static_cast<u32>(p.Q));
}

// x, with the device compiler unable to see through it: a run-time lo passed through it
// keeps a pass's swizzled offsets from being hoisted out of the loop over groups, where
// sixteen of them held in registers spilled the wide kernel (tfhe_kernels.cu).
TEMPO_TFHE_HD u32 opaque(u32 x) {
#if defined(__CUDA_ARCH__)
  asm volatile("mov.u32 %0, %0;" : "+r"(x));
#endif
  return x;
}

// A twiddle and its Shoup companion, read together (one 8-byte shared-memory load for
// 32-bit words).
template <typename W>
struct alignas(2 * sizeof(W)) Twiddle {
  W w, ws;
};

// bit-reverse of j's low `bits` bits.
TEMPO_TFHE_HD u32 bit_reverse(u32 j, u32 bits) {
#if defined(__CUDA_ARCH__)
  return __brev(j) >> (32 - bits);
#else
  u32 r = 0;
  for (u32 b = 0; b < bits; ++b) r |= ((j >> b) & 1u) << (bits - 1 - b);
  return r;
#endif
}

// The tables' layout in the device constants (uint64 words), read in place (64-bit words).
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
  template <typename W>
  TEMPO_TFHE_HD Twiddle<W> fwd_pair(u32 m) const { return {static_cast<W>(fwd[m]), static_cast<W>(fwd_s[m])}; }
  template <typename W>
  TEMPO_TFHE_HD Twiddle<W> inv_pair(u32 m) const { return {static_cast<W>(inv[m]), static_cast<W>(inv_s[m])}; }
  // A radix group's twiddles of one stage: forward m0 + j, inverse m0 - j (see fwd_pass).
  template <typename W>
  TEMPO_TFHE_HD Twiddle<W> fwd_pair_run(u32 m0, u32 j) const { return fwd_pair<W>(m0 + j); }
  template <typename W>
  TEMPO_TFHE_HD Twiddle<W> inv_pair_run(u32 m0, u32 j) const { return inv_pair<W>(m0 - j); }
  TEMPO_TFHE_HD u64 psi(u32 e) const { return psi_pow[e]; }
  TEMPO_TFHE_HD u32 slot_of(u32 j, u32) const { return static_cast<u32>(slot[j]); }
};

// The block's copy of the tables in shared memory for 32-bit words (table_smem_words(p)
// words at the end of the block's shared memory): twiddle pairs, forward then inverse, the
// psi powers, and after them the current step's exponent per item (alpha, written and read
// by bootstrap_block); the slots are computed (2 brv(j) + 1). Loaded once per block (load), the
// passes then read a twiddle pair in one shared load instead of two global ones.
// Padded against bank conflicts, which took a third of the kernel's shared-memory wavefronts:
// - twiddle pair m sits at m + m / 16: a radix group's run of a stage (2^(4-d-1) pairs, d its
//   stage in the pass) starts 2^(4-d-1) pairs after its neighbour's, and with a pair of padding
//   per 16 the sixteen lanes of a half warp (8-byte loads) then hit distinct banks for every
//   such stride up to 8;
// - psi power e sits at e + e / 2^(log N - 4): the multiply's warp reads psi^(a slot(j)) for 32
//   consecutive j, whose slots differ in their top five bits, so the powers sit 2N/32 apart
//   (one bank for all 32 lanes without the padding).
struct SharedTables {
  Twiddle<u32>* fwd;
  Twiddle<u32>* inv;
  u32* psi_pow;
  u32* alpha;  // kMaxGroup words after the tables: the current step's exponent per item
  u32 psi_shift;
  TEMPO_TFHE_HD static u32 pad_pair(u32 m) { return m + (m >> 4); }  // table_pairs' padding
  TEMPO_TFHE_HD u32 pad_psi(u32 e) const { return e + (e >> psi_shift); }  // at most kPsiPad - 1
  // At base, table_smem_words(p) words (the layout is table_pairs' and kPsiPad's).
  TEMPO_TFHE_HD SharedTables(u32* base, u32 N, u32 log_n)
      : fwd(reinterpret_cast<Twiddle<u32>*>(base)), inv(reinterpret_cast<Twiddle<u32>*>(base + 2 * table_pairs(N))),
        psi_pow(base + 4 * table_pairs(N)), alpha(psi_pow + 2 * N + kPsiPad), psi_shift(log_n > 4 ? log_n - 4 : 31) {}
  // Thread t of T's share of the copy from the device tables (a barrier before first use).
  TEMPO_TFHE_HD void load(const Tables& tw, u32 N, u32 t, u32 T) const {
    for (u32 m = t; m < N; m += T) {
      fwd[pad_pair(m)] = tw.fwd_pair<u32>(m);
      inv[pad_pair(m)] = tw.inv_pair<u32>(m);
    }
    for (u32 e = t; e < 2 * N; e += T) psi_pow[pad_psi(e)] = static_cast<u32>(tw.psi_pow[e]);
  }
  template <typename W>
  TEMPO_TFHE_HD Twiddle<u32> fwd_pair(u32 m) const {
    static_assert(sizeof(W) == 4, "the shared copy holds 32-bit Shoup companions");
    return fwd[pad_pair(m)];
  }
  template <typename W>
  TEMPO_TFHE_HD Twiddle<u32> inv_pair(u32 m) const {
    static_assert(sizeof(W) == 4, "the shared copy holds 32-bit Shoup companions");
    return inv[pad_pair(m)];
  }
  // Pairs m0 + j (forward) and m0 - j (inverse) for j below 2^b, b <= 3, where m0's low b bits
  // are zero (forward) or all one (inverse), as fwd_pass and inv_pass make them: then m0 +- j
  // does not carry into bit 4, so the padding is m0's and j is a constant offset.
  template <typename W>
  TEMPO_TFHE_HD Twiddle<u32> fwd_pair_run(u32 m0, u32 j) const {
    static_assert(sizeof(W) == 4, "the shared copy holds 32-bit Shoup companions");
    return fwd[pad_pair(m0) + j];
  }
  template <typename W>
  TEMPO_TFHE_HD Twiddle<u32> inv_pair_run(u32 m0, u32 j) const {
    static_assert(sizeof(W) == 4, "the shared copy holds 32-bit Shoup companions");
    return inv[pad_pair(m0) - j];
  }
  TEMPO_TFHE_HD u64 psi(u32 e) const { return psi_pow[pad_psi(e)]; }
  TEMPO_TFHE_HD u32 slot_of(u32 j, u32 log_n) const { return 2 * bit_reverse(j, log_n) + 1; }
};

#if defined(__CUDA_ARCH__)
#define TEMPO_TFHE_UNROLL _Pragma("unroll")
#define TEMPO_TFHE_UNROLL_BY(n) _Pragma(TEMPO_TFHE_STR(unroll n))
#define TEMPO_TFHE_STR(x) #x
#else
#define TEMPO_TFHE_UNROLL
#define TEMPO_TFHE_UNROLL_BY(n)
#endif

// Digit rows are stored swizzled: coefficient pos sits at pos ^ ((pos >> 5) & 31), so the
// radix passes' unit-stride and stride-32 accesses both hit 32 distinct banks (a bijection
// within every aligned run of 32 words; only the bank layout, not the values, depends on it).
TEMPO_TFHE_HD u32 swz(u32 pos) { return pos ^ ((pos >> 5) & 31u); }

// A radix group's swizzled coefficients in one row, addressed in bytes from the block's
// shared memory `sm`: row starts are multiples of N words from sm and swizzled offsets are
// below N, so (start + sbase) ^ c = start + (sbase ^ c). Each access is one XOR with a
// compile-time constant, and the device adds sm in the load or store itself ([R + UR]
// addressing), where a word index took an XOR and a shift-add.
template <typename W>
struct SwizzledRow {
  char* sm;
  u32 at;  // bytes from sm to the row's start + sbase
  TEMPO_TFHE_HD SwizzledRow(W* sm_, const W* row, u32 sbase)
      : sm(reinterpret_cast<char*>(sm_)), at(static_cast<u32>((row - sm_) + sbase) * u32{sizeof(W)}) {}
  TEMPO_TFHE_HD W& operator[](u32 c) const { return *reinterpret_cast<W*>(sm + (at ^ (c * u32{sizeof(W)}))); }
};

// Balanced base-2^log_bg digit `level` of the centered coefficient v (mod Q) with its low
// p.drop bits rounded off (bootstrap.cpp's decompose_impl), as an element of [0, Q).
// decompose_impl's digit loop (d = ((x + B/2) mod B) - B/2, x = (x - d) / B, level + 1
// times) in closed form: with C = (B/2)(1 + B + ... + B^level), digit `level` is
// ((x + C) >> (level log_bg)) mod B - B/2 (each step's x is floor((x + B/2) / B), so adding
// the B/2 terms up front and shifting once gives the same floor; arithmetic shifts, so
// negative x too). The rounding x = (v + 2^(drop-1)) >> drop folds in the same way: digit
// `level` is ((v + 2^(drop-1) + C 2^drop) >> (drop + level log_bg)) mod B - B/2, with v
// centered. DigitLevel holds the level's offset and shift, worked out once per radix group
// (in the per-value code the loop for C was an eighth of the kernel's instructions).
// Signed words of W's width: |v| <= Q/2 and the offset below 2^(levels log_bg + drop) =
// 2^max(k, levels log_bg), so 32-bit words need Q < 2^27 and levels log_bg <= 30
// (device_params' word32 condition): no overflow.
template <typename W>
struct DigitLevel {
  using I = std::conditional_t<sizeof(W) == 4, std::int32_t, i64>;
  I offset;
  u32 shift;
  TEMPO_TFHE_HD DigitLevel(u32 level, const DeviceParams& p) {
    const I half = I{1} << (p.log_bg - 1);
    I c = 0;
    for (u32 r = 0; r <= level; ++r) c += half << (r * p.log_bg);
    offset = (p.drop > 0 ? I{1} << (p.drop - 1) : I{0}) + (c << p.drop);
    shift = p.drop + level * p.log_bg;
  }
};
// The centered representative of v (mod Q, v in (-Q/2, 3Q/2) as a signed word): minus Q above
// Q/2, so in (-Q/2, Q/2] (decompose_impl's convention).
template <typename I>
TEMPO_TFHE_HD I center(I v, const DeviceParams& p) {
  return v - (v > static_cast<I>(p.Q >> 1) ? static_cast<I>(p.Q) : 0);
}

// Reduced = false: t + Q - B/2 as it is, in [Q - B/2, Q + B/2) below 2Q (the 32-bit forward
// pass takes inputs below 2Q: see fwd_pass), one conditional subtraction fewer per digit.
// Centered: v is already the centered value (kCenteredAcc's ACC), as a signed word.
template <typename W, bool Reduced = true, bool Centered = false>
TEMPO_TFHE_HD W digit_at(W v, const DigitLevel<W>& l, const DeviceParams& p) {
  using I = typename DigitLevel<W>::I;
  const I Q = static_cast<I>(p.Q);
  const I centered = Centered ? static_cast<I>(v) : center<I>(static_cast<I>(v), p);
  const I t = ((centered + l.offset) >> l.shift) & ((I{1} << p.log_bg) - 1);  // the digit + B/2, in [0, B)
  // t - B/2 mod Q: t + Q - B/2 is in [Q - B/2, Q + B/2)
  const W d = static_cast<W>(t + Q - (I{1} << (p.log_bg - 1)));
  if constexpr (Reduced) return csub<W>(d, static_cast<W>(p.Q));
  else return d;
}
template <typename W>
TEMPO_TFHE_HD W digit(W v, u32 level, const DeviceParams& p) {
  return digit_at<W>(v, DigitLevel<W>(level, p), p);
}

// With 32-bit words ACC holds centered values, (-Q/2, Q/2] as signed words (the digits'
// centring done once per update instead of once per digit row): written so by the block's
// first phase and the inverse's last pass, read by the digits and, made [0, Q) again
// (acc_word), by the sample extraction.
template <typename W>
inline constexpr bool kCenteredAcc = sizeof(W) == 4;
// ACC's stored word for a value in [0, Q) (centered where kCenteredAcc), and back.
template <typename W>
TEMPO_TFHE_HD W acc_store(u64 v, const DeviceParams& p) {
  if constexpr (kCenteredAcc<W>) return static_cast<W>(center<std::int32_t>(static_cast<std::int32_t>(v), p));
  else return static_cast<W>(v);
}
template <typename W>
TEMPO_TFHE_HD u64 acc_word(W v, const DeviceParams& p) {
  if constexpr (kCenteredAcc<W>) return static_cast<std::int32_t>(v) < 0 ? static_cast<u64>(v + static_cast<W>(p.Q)) : v;
  else return v;
}

// Stages per radix pass and coefficients per thread and pass (2^kPassBits): 16 with 32-bit
// words (for N = 1024 forward passes of 4, 4, 2 stages, inverse 2, 4, 4; 32 coefficients
// spill at the launch bound), 8 with 64-bit words.
template <typename W>
inline constexpr u32 kPassBits = sizeof(W) == 4 ? 4 : 3;

// Radix passes: group g (over rows laid end to end, N / 2^T groups per row, T = kPassBits)
// holds the 2^T coefficients base + k 2^lo of one row in registers and runs S <= T butterfly
// stages with len = 2^lo .. 2^(lo+S-1) on them (with S < T: 2^(T-S) independent sets of
// 2^S, whose bits of k lie above the stages'; such a pass runs at lo = 0, the forward's last
// and the inverse's first, so that lo + T <= log N); shared memory is touched only at the
// pass's load and store. Every group holds 2^T coefficients so that the remainder pass has
// as few groups as the others (with 2^S its per-group work was a fifth of the kernel's
// instructions). Every butterfly is the one of tempo::ntt's radix-2 transform (same inputs,
// same twiddle), so the result is that transform's: output j = poly(psi^slot[j]).
//
// The group's coefficients base + k 2^lo: base = hi 2^(lo+T) + (G mod 2^lo) with hi = G >> lo,
// so at stage ll = lo + d the butterfly of k has group index (pos >> (ll + 1)) =
// hi 2^(T-d-1) + (k >> (d+1)) (no carries): a compile-time k part, so the twiddles that
// butterflies share are loaded once. base and k 2^lo have no bit in common and swz is linear
// over XOR, so coefficient k sits at swz(base) ^ swz(k 2^lo): with a compile-time lo (LO >= 0,
// the passes the 32-bit shapes run, see fwd_pass_bits) that is one XOR with a constant.
template <u32 T>
struct PassGroup {
  u32 row, hi, base;
  TEMPO_TFHE_HD PassGroup(u32 g, u32 lo, u32 log_n) {
    const u32 per_row = log_n - T, G = g & ((1u << per_row) - 1);
    row = g >> per_row;
    hi = G >> lo;
    base = (hi << (lo + T)) | (G & ((1u << lo) - 1));
  }
};

// Harvey's lazy butterflies: forward values stay in [0, 4Q) (64-bit words; 32-bit words
// grow, see fwd_pass) and inverse values in [0, 2Q) between stages and passes, reduced to
// [0, Q) at the end of the transform; the residues, and so the final values, are those of
// the exact butterflies.
//
// Forward (Cooley-Tukey, fwd[N/(2 len) + group]) stages len = 2^(lo+S-1) down to 2^lo. With
// acc (the first pass, lo + S = log N), the inputs are the digits of ACC: row r < L is digit r
// of ACC a, row L + r digit r of ACC b (the decomposition fused into the load).
// LO: lo when it is a compile-time constant, else -1 (lo_rt). Tw: Tables or SharedTables.
// 32-bit words grow instead (kGrow): no reduction between stages, each stage adds at most 2Q
// to the values' bound (u + v and u + 2Q - v with v < 2Q), so from digits below 2Q (not
// reduced: digit_at<W, false>) they stay below (2 log N + 2) Q <= 32 Q < 2^32 (Q < 2^27 and
// log N <= 15: device_params' word32 condition), and the last pass brings them below Q with
// one Barrett step (exact to 2Q below 32Q) and one
// conditional subtraction per coefficient instead of one per butterfly (log N / 2 per
// coefficient and transform). The Shoup product is exact for any 32-bit input.
// T: the pass's coefficients per group, 2^T (kPassBits by default; the cluster shape's
// passes hold fewer, see bootstrap_cluster).
template <typename W, u32 S, int LO = -1, u32 T = kPassBits<W>, class Tw>
TEMPO_TFHE_HD void fwd_pass(W* sm, W* rows, const W* acc, u32 g, u32 lo_rt, const Tw& tw, const DeviceParams& p) {
  constexpr u32 R = 1u << T;
  constexpr bool kGrow = sizeof(W) == 4;
  const u32 lo = LO >= 0 ? static_cast<u32>(LO) : opaque(lo_rt);
  const PassGroup<T> at(g, lo, p.log_n);
  const u32 row = at.row, hi = at.hi, base = at.base, sbase = swz(base);
  // 2Q read as a kernel parameter: given Q only, the compiler formed u + 2Q with a
  // multiply-add and then subtracted v (two instructions where one three-input add does).
  const W Q = static_cast<W>(p.Q), Q2 = static_cast<W>(p.Q2);
  const SwizzledRow<W> xr(sm, rows + row * p.N, sbase);
  W x[R];
  if (acc != nullptr) {
    const u32 half = row >= p.levels ? 1u : 0u;
    const W* src = acc + half * p.N + base;
    const DigitLevel<W> level(row - half * p.levels, p);
    TEMPO_TFHE_UNROLL
    for (u32 k = 0; k < R; ++k) x[k] = digit_at<W, !kGrow, kCenteredAcc<W>>(src[k << lo], level, p);
  } else {
    TEMPO_TFHE_UNROLL
    for (u32 k = 0; k < R; ++k) x[k] = xr[swz(k << lo)];
  }
  TEMPO_TFHE_UNROLL
  for (u32 d = S; d-- > 0;) {
    const u32 ll = lo + d;
    const u32 m0 = (p.N >> (ll + 1)) + (hi << (T - d - 1));
    TEMPO_TFHE_UNROLL
    for (u32 k = 0; k < R; ++k) {
      if ((k >> d) & 1u) continue;
      const auto t = tw.template fwd_pair_run<W>(m0, k >> (d + 1));
      const W v = mul_shoup_lazy<W>(x[k + (1u << d)], static_cast<W>(t.w), static_cast<W>(t.ws), Q);
      const W u = kGrow ? x[k] : csub<W>(x[k], Q2);
      x[k] = static_cast<W>(u + v);
      x[k + (1u << d)] = static_cast<W>(u + Q2 - v);
    }
  }
  TEMPO_TFHE_UNROLL
  for (u32 k = 0; k < R; ++k) {
    W y = x[k];
    if (lo == 0) {
      if constexpr (kGrow) {
        // Below 32Q: y - floor(y floor(2^32/Q) / 2^32) Q is below 2Q (the estimate of y / Q is
        // at most one short), then one conditional subtraction; three instructions where a
        // chain of subtractions of 16Q .. Q took five to ten.
        y = csub<W>(static_cast<W>(y + mulhi(y, static_cast<W>(p.mu_word)) * static_cast<W>(p.Q_neg)), Q);
      } else {
        y = csub<W>(csub<W>(y, Q2), Q);  // below 4Q
      }
    }
    xr[swz(k << lo)] = y;
  }
}

// Inverse (Gentleman-Sande, inv[N/len - 1 - group]) stages len = 2^lo .. 2^(lo+S-1), inputs
// in [0, 2Q) (the first pass's from the multiply, fully reduced). With acc
// (the last pass, lo + S = log N), the results are scaled by N^-1 and added to ACC (row 0 to
// ACC a, row 1 to ACC b) instead of being stored.
template <typename W, u32 S, int LO = -1, u32 T = kPassBits<W>, class Tw>
TEMPO_TFHE_HD void inv_pass(W* sm, W* rows, W* acc, u32 g, u32 lo_rt, const Tw& tw, const DeviceParams& p) {
  constexpr u32 R = 1u << T;
  const u32 lo = LO >= 0 ? static_cast<u32>(LO) : opaque(lo_rt);
  const PassGroup<T> at(g, lo, p.log_n);
  const u32 row = at.row, hi = at.hi, base = at.base, sbase = swz(base);
  const W Q = static_cast<W>(p.Q), Q2 = static_cast<W>(p.Q2);  // 2Q as a parameter: see fwd_pass
  const SwizzledRow<W> xr(sm, rows + row * p.N, sbase);
  W x[R];
  TEMPO_TFHE_UNROLL
  for (u32 k = 0; k < R; ++k) x[k] = xr[swz(k << lo)];
  TEMPO_TFHE_UNROLL
  for (u32 d = 0; d < S; ++d) {
    const u32 ll = lo + d;
    const u32 m0 = (p.N >> ll) - 1 - (hi << (T - d - 1));
    TEMPO_TFHE_UNROLL
    for (u32 k = 0; k < R; ++k) {
      if ((k >> d) & 1u) continue;
      const auto t = tw.template inv_pair_run<W>(m0, k >> (d + 1));
      const W u = x[k], v = x[k + (1u << d)];
      x[k] = csub<W>(static_cast<W>(u + v), Q2);
      x[k + (1u << d)] = mul_shoup_lazy<W>(static_cast<W>(u + Q2 - v), static_cast<W>(t.w), static_cast<W>(t.ws), Q);
    }
  }
  if (acc != nullptr) {
    const W ni = static_cast<W>(p.n_inv), ni_s = static_cast<W>(p.n_inv_s);
    W* dst = acc + row * p.N + base;
    TEMPO_TFHE_UNROLL
    for (u32 k = 0; k < R; ++k) {
      const W m = mul_shoup<W>(x[k], ni, ni_s, Q);  // [0, Q)
      if constexpr (kCenteredAcc<W>) {
        // (-Q/2, Q/2] + [0, Q), centered again
        using I = std::int32_t;
        dst[k << lo] = static_cast<W>(center<I>(static_cast<I>(dst[k << lo]) + static_cast<I>(m), p));
      } else {
        dst[k << lo] = add_mod<W>(dst[k << lo], m, Q);
      }
    }
  } else {
    const bool last = lo + S == p.log_n;
    TEMPO_TFHE_UNROLL
    for (u32 k = 0; k < R; ++k) xr[swz(k << lo)] = last ? csub<W>(x[k], Q) : x[k];
  }
}

// f(std::integral_constant<int, LO>) for the first of Los equal to lo, else with LO = -1.
template <int... Los, class F>
TEMPO_TFHE_HD void with_const_lo(u32 lo, F&& f) {
  const bool hit = ((lo == static_cast<u32>(Los) ? (f(std::integral_constant<int, Los>{}), true) : false) || ...);
  if (!hit) f(std::integral_constant<int, -1>{});
}

// f(std::integral_constant<int, LO>) with LO = lo where a pass of S stages (2^T coefficients
// per group, words W) is compiled for that lo as a constant (see below), else LO = -1.
template <typename W, u32 S, u32 T, class F>
TEMPO_TFHE_HD void with_pass_lo(u32 lo, F&& f) {
  if constexpr (sizeof(W) == 4 && T == 3 && S == 3)
    with_const_lo<1, 4, 7>(lo, f);
  else if constexpr (sizeof(W) == 4 && T == 3 && S == 1)
    with_const_lo<0>(lo, f);
  else if constexpr (sizeof(W) == 4 && S == 4)
    with_const_lo<0, 2, 4, 6>(lo, f);
  else if constexpr (sizeof(W) == 4 && S == 2)
    with_const_lo<0>(lo, f);
  else
    f(std::integral_constant<int, -1>{});
}

// for_groups(pass), pass(rows, acc, g) running group g of the pass of `bits` <= S stages at
// lo (compile-time register arrays for every width). 32-bit words: the passes of N = 256 and
// 1024 (full passes at lo = 0, 2, 4, 6, two-stage at 0) with lo as a constant; the others
// with lo at run time (same bytes). The dispatch on bits and lo runs once, outside
// for_groups' loop over a thread's groups (inside it, it cost a tenth of the kernel's
// instructions).
// T: as fwd_pass's (2^T coefficients per group); with T = 3 (the cluster shape's passes of
// N = 1024: three of 3 stages at lo = 7, 4, 1 and one of 1 at lo = 0) lo is a constant too.
template <typename W, u32 S, u32 T = kPassBits<W>, class Tw, class ForGroups>
TEMPO_TFHE_HD void fwd_pass_bits(u32 bits, u32 lo, W* sm, const Tw& tw, const DeviceParams& p, ForGroups&& for_groups) {
  if constexpr (S > 1)
    if (bits < S) return fwd_pass_bits<W, S - 1, T>(bits, lo, sm, tw, p, for_groups);
  auto run = [&](auto c) {
    for_groups(
        [&](W* rows, const W* acc, u32 g) { fwd_pass<W, S, decltype(c)::value, T>(sm, rows, acc, g, lo, tw, p); });
  };
  with_pass_lo<W, S, T>(lo, run);
}
template <typename W, u32 S, u32 T = kPassBits<W>, class Tw, class ForGroups>
TEMPO_TFHE_HD void inv_pass_bits(u32 bits, u32 lo, W* sm, const Tw& tw, const DeviceParams& p, ForGroups&& for_groups) {
  if constexpr (S > 1)
    if (bits < S) return inv_pass_bits<W, S - 1, T>(bits, lo, sm, tw, p, for_groups);
  auto run = [&](auto c) {
    for_groups([&](W* rows, W* acc, u32 g) { inv_pass<W, S, decltype(c)::value, T>(sm, rows, acc, g, lo, tw, p); });
  };
  with_pass_lo<W, S, T>(lo, run);
}

// Initial ACC b-part: X^-beta tv with tv = Q/8 everywhere; coefficient e is +Q/8 when
// (e + beta) mod 2N < N, else -Q/8.
TEMPO_TFHE_HD u64 acc_init(u32 beta, u32 e, const DeviceParams& p) {
  const u64 c = p.Q / 8;
  return ((e + beta) & (2 * p.N - 1)) < p.N ? c : p.Q - c;
}

// Key word of RGSW(i, t) (step i's key t), row r, column col, coefficient j. 64-bit keys:
// bk's order; 32-bit keys: bk32's (key32_offset in tfhe_kernels.hpp).
TEMPO_TFHE_HD std::size_t key32_index(u32 i, u32 t, u32 r, u32 col, u32 j, const DeviceParams& p) {
  return static_cast<std::size_t>(i) * key_step_words(p) + key32_offset(p.levels, p.patterns, t, r, col, j);
}
TEMPO_TFHE_HD u64 key_word(const void* bk, u32 i, u32 t, u32 r, u32 col, u32 j, const DeviceParams& p) {
  if (p.key32) return static_cast<const u32*>(bk)[key32_index(i, t, r, col, j, p)];
  const std::size_t idx =
      ((((static_cast<std::size_t>(i) * p.patterns + t) * (2 * p.levels) + r) * 2 + col) * p.N) + j;
  return static_cast<const u64*>(bk)[idx];
}

// psi^e - 1 (e < 2N): X^a - 1 at the forward slot that evaluates at psi^s is psi^(a s) - 1.
template <class Tw>
TEMPO_TFHE_HD u64 monomial_minus_one_at(u32 e, const Tw& tw) {
  return tw.psi(e) - 1;  // psi^e is a unit mod Q, never 0
}
// (X^e - 1) at forward slot j.
template <class Tw>
TEMPO_TFHE_HD u64 monomial_minus_one(u32 e, u32 j, const Tw& tw, const DeviceParams& p) {
  return monomial_minus_one_at((e * tw.slot_of(j, p.log_n)) & (2 * p.N - 1), tw);
}

// Word w of a step's key (key32_index's order within the step) in the block's key buffer:
// each coefficient block (2L rows of 2P x kKeyBlock words) is followed by kKeyBlock words of
// padding, so the two blocks a warp's 32 coefficients read sit 16 banks apart.
TEMPO_TFHE_HD std::size_t key_slot(std::size_t w, const DeviceParams& p) {
  return w + w / key_block_words(p) * kKeyBlock;
}
// A 16-byte copy from global into shared memory that completes asynchronously (cp.async),
// and the wait for all of this thread's copies: a barrier after the wait makes every
// thread's copies visible to the block. On the host (and devices before sm_80, which have no
// cp.async): a plain copy, and nothing to wait for.
TEMPO_TFHE_HD void copy16_async(void* dst, const void* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const auto d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
#else
  std::memcpy(dst, src, 16);
#endif
}
TEMPO_TFHE_HD void copies_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// The monomial exponents of step i for one bootstrap's input: its grouping coefficients a
// switched to 2N, packed 16 bits each (2N <= 2^16), the first lowest (grouping 1: a_i
// switched to 2N). 0 exactly when every key's monomial is X^0 - 1 = 0 (the step adds nothing).
TEMPO_TFHE_HD u32 step_alpha(const u32* in, u32 i, const DeviceParams& p) {
  const u32 shift = p.log_n + 1 - p.log_q, mask = 2 * p.N - 1;
  if (p.grouping == 1) return (in[i] << shift) & mask;
  return ((in[2 * i] << shift) & mask) | (((in[2 * i + 1] << shift) & mask) << 16);
}
// Key t's exponent for a step's packed exponents (step_alpha; pattern_exponent).
TEMPO_TFHE_HD u32 step_exponent(u32 packed, u32 t, const DeviceParams& p) {
  return pattern_exponent(packed & 0xffffu, packed >> 16, p.grouping, t, 2 * p.N);
}

// Coefficient j's row-0 key words in a step's 32-bit key, key32_offset(levels, P, 0, 0, 0, j)
// (row r's follow 2P kKeyBlock words apart), in 32-bit arithmetic (a step's key is below
// 2^32 words; in 64-bit arithmetic per coefficient it cost a dozen instructions), and the
// same in a key buffer (key_slot's layout: kKeyBlock words of padding per coefficient block).
TEMPO_TFHE_HD u32 key_row0(u32 j, const DeviceParams& p) {
  return (j / kKeyBlock) * static_cast<u32>(key_block_words(p)) + j % kKeyBlock;
}
TEMPO_TFHE_HD u32 key_row0_slot(u32 j, const DeviceParams& p) { return key_row0(j, p) + j / kKeyBlock * kKeyBlock; }

// The external product's last step at forward slot `slot` (32-bit words): the key products'
// sums s = (sign +: col 0, col 1, sign -: col 0, col 1) times X^alpha - 1 and X^-alpha - 1
// there (X^alpha is psi^(alpha slot), X^-alpha = X^(2N - alpha) is psi^(-alpha slot)), into
// u = (col 0, col 1). Each sum is reduced below 4Q only: the two products then sum below
// 8 Q^2 < 2^(k+31), inside reduce_wide's bound (k <= 27).
template <class Tw>
TEMPO_TFHE_HD void combine_products32(const u64 (&s)[4], u32 alpha, u32 slot, const Tw& tw, const DeviceParams& p,
                                      u32 (&u)[2]) {
  const u32 e = alpha * slot, two_n_mask = 2 * p.N - 1;
  const u32 mp = static_cast<u32>(monomial_minus_one_at(e & two_n_mask, tw)),
            mm = static_cast<u32>(monomial_minus_one_at((0u - e) & two_n_mask, tw));
  TEMPO_TFHE_UNROLL
  for (u32 col = 0; col < 2; ++col)
    u[col] = reduce_wide(u64{reduce_wide_lazy(s[col], p)} * mp + u64{reduce_wide_lazy(s[2 + col], p)} * mm, p);
}

// The external products of coefficient j against both keys of step i, combined with the
// monomials, for exactly C bootstraps of a block (32-bit words; item b's digit rows at
// rows + b * iw, its step exponent at alphas[b]): rows 0 and 1 of each receive u_a[j], u_b[j]
// (all rows at j are read before any is written). k0: the step's key words of row 0 at
// coefficient j (in global memory or in the block's key buffer; the keys' words kKeyBlock
// apart, the rows 2P kKeyBlock; P = 2 here, more: multiply_coeff32_keys). The key words are read once for the C items. Products < 2^54,
// 2L <= 16 of them: exact 64-bit sums, one reduction each. C is a compile-time count so
// that the sums stay in fixed registers: a run-time item count (a break in the item loop)
// made the compiler copy every 64-bit sum after each multiply-add (3.5 instructions per
// product instead of one; Nsight Compute, H100).
// With more than two keys per step (multi-bit: P = 8; device_params allows it for 2L <= 8
// only), one key at a time: its two sums over the rows, reduced and multiplied by its
// monomial, each product's reduction (below Q) added to the item's two sums, reduced at the
// end. The items' digits at j are read once into registers (kMaxMultiRows per item, the
// unused ones 0), the key words of each (key, row) once for the C items.
template <u32 C, class Tw>
TEMPO_TFHE_HD void multiply_coeff32_keys(u32* rows, u32 iw, const u32* alphas, u32 j, const u32* k0, const Tw& tw,
                                         const DeviceParams& p) {
  const u32 N = p.N, nrows = 2 * p.levels, sj = swz(j), row_words = 2 * p.patterns * kKeyBlock;
  const u32 slot = tw.slot_of(j, p.log_n), two_n_mask = 2 * p.N - 1;
  u32 d[C][kMaxMultiRows];
  TEMPO_TFHE_UNROLL
  for (u32 r = 0; r < kMaxMultiRows; ++r)
    TEMPO_TFHE_UNROLL
    for (u32 b = 0; b < C; ++b) d[b][r] = r < nrows ? rows[b * iw + r * N + sj] : 0;
  u64 acc[C][2] = {};
  TEMPO_TFHE_UNROLL_BY(2)
  for (u32 t = 0; t < p.patterns; ++t) {
    u64 s[C][2] = {};
    const u32* kr = k0 + 2 * t * kKeyBlock;
    TEMPO_TFHE_UNROLL
    for (u32 r = 0; r < kMaxMultiRows; ++r) {
      if (r >= nrows) break;
      const u32 k[2] = {kr[r * row_words], kr[r * row_words + kKeyBlock]};
      TEMPO_TFHE_UNROLL
      for (u32 b = 0; b < C; ++b) {
        s[b][0] += u64{d[b][r]} * k[0];
        s[b][1] += u64{d[b][r]} * k[1];
      }
    }
    TEMPO_TFHE_UNROLL
    for (u32 b = 0; b < C; ++b) {
      const u32 m = static_cast<u32>(monomial_minus_one_at((step_exponent(alphas[b], t, p) * slot) & two_n_mask, tw));
      TEMPO_TFHE_UNROLL
      for (u32 col = 0; col < 2; ++col) acc[b][col] += reduce_wide(u64{reduce_wide_lazy(s[b][col], p)} * m, p);
    }
  }
  TEMPO_TFHE_UNROLL
  for (u32 b = 0; b < C; ++b)
    TEMPO_TFHE_UNROLL
    for (u32 col = 0; col < 2; ++col) rows[b * iw + col * N + sj] = reduce_wide(acc[b][col], p);
}

template <u32 C, class Tw>
TEMPO_TFHE_HD void multiply_coeff32(u32* rows, u32 iw, const u32* alphas, u32 j, const u32* k0, const Tw& tw,
                                    const DeviceParams& p) {
  if (p.patterns != 2) return multiply_coeff32_keys<C>(rows, iw, alphas, j, k0, tw, p);
  const u32 N = p.N, nrows = 2 * p.levels, sj = swz(j);  // rows are swizzled
  const u32* d0 = rows + sj;
  u64 s[C][4] = {};
  for (u32 r = 0; r < nrows; r += 2, k0 += 8 * kKeyBlock, d0 += 2 * N) {  // 2L rows: even
    TEMPO_TFHE_UNROLL
    for (u32 h = 0; h < 2; ++h) {
      const u32* kr = k0 + h * 4 * kKeyBlock;
      const u32 k[4] = {kr[0], kr[kKeyBlock], kr[2 * kKeyBlock], kr[3 * kKeyBlock]};
      TEMPO_TFHE_UNROLL
      for (u32 b = 0; b < C; ++b) {
        const u32 d = d0[b * iw + h * N];
        TEMPO_TFHE_UNROLL
        for (u32 q = 0; q < 4; ++q) s[b][q] += u64{d} * k[q];
      }
    }
  }
  const u32 slot = tw.slot_of(j, p.log_n);
  TEMPO_TFHE_UNROLL
  for (u32 b = 0; b < C; ++b) {
    u32 u[2];
    combine_products32(s[b], alphas[b], slot, tw, p, u);
    TEMPO_TFHE_UNROLL
    for (u32 col = 0; col < 2; ++col) rows[b * iw + col * N + sj] = u[col];
  }
}

// The same for 1 <= items <= Run (a compile-time count per call, see multiply_coeff32).
template <u32 Run, class Tw>
TEMPO_TFHE_HD void multiply_coeff32_upto(u32 items, u32* rows, u32 iw, const u32* alphas, u32 j, const u32* k0,
                                         const Tw& tw, const DeviceParams& p) {
  if constexpr (Run > 1)
    if (items < Run) return multiply_coeff32_upto<Run - 1>(items, rows, iw, alphas, j, k0, tw, p);
  multiply_coeff32<Run>(rows, iw, alphas, j, k0, tw, p);
}

// The external products of coefficient j for `items` bootstraps of a block (at most Run
// with 32-bit words; item b's digit rows at rows + b * item_words, its step exponent at
// alphas[b]): multiply_coeff32, or for 64-bit words (one item per block, its exponent read
// from in) the same with Barrett products. An item with
// alpha = 0 gets u = 0 (X^0 - 1 = 0), the CPU's skipped step.
// Staged: step i's key is in the block's key buffer kbuf (key_slot; 32-bit words only),
// else read from bk in global memory (a compile-time choice, so that the loads are shared or
// global loads).
template <typename W, bool Staged, u32 Run, class Tw>
TEMPO_TFHE_HD void multiply_coeff(W* rows, std::size_t item_words, u32 items, const u32* in, std::size_t stride,
                                  const u32* alphas, u32 j, u32 i, const void* bk, const u32* kbuf, const Tw& tw,
                                  const DeviceParams& p) {
  if constexpr (sizeof(W) == 4) {
    // 32-bit words imply a 32-bit key (device_params); key32_index's layout, walked by
    // pointer: row r's 2P words of coefficient j are kKeyBlock apart, rows 2P kKeyBlock
    // (in the key buffer too: its padding falls between coefficient blocks).
    const u32* k0 = Staged ? kbuf + key_row0_slot(j, p)
                           : static_cast<const u32*>(bk) + static_cast<std::size_t>(i) * key_step_words(p) + key_row0(j, p);
    multiply_coeff32_upto<Run>(items, rows, static_cast<u32>(item_words), alphas, j, k0, tw, p);
  } else {
    const u32 nrows = 2 * p.levels, sj = swz(j);
    for (u32 b = 0; b < items; ++b) {
      W* item = rows + b * item_words;
      const u32 packed = step_alpha(in + b * stride, i, p);
      u64 u[2] = {0, 0};
      for (u32 t = 0; t < p.patterns; ++t) {
        const u64 m = monomial_minus_one(step_exponent(packed, t, p), j, tw, p);
        u64 s[2] = {0, 0};
        for (u32 r = 0; r < nrows; ++r) {
          const u64 d = item[static_cast<std::size_t>(r) * p.N + sj];
          for (u32 col = 0; col < 2; ++col)
            s[col] = add_mod<u64>(s[col], mul_mod(d, key_word(bk, i, t, r, col, j, p), p), p.Q);
        }
        for (u32 col = 0; col < 2; ++col) u[col] = add_mod<u64>(u[col], mul_mod(s[col], m, p), p.Q);
      }
      for (u32 col = 0; col < 2; ++col) item[static_cast<std::size_t>(col) * p.N + sj] = static_cast<W>(u[col]);
    }
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
  if (j == 0) return switch_to_ks(acc_word<W>(acc_a[0], p), p);
  const u64 v = acc_word<W>(acc_a[p.N - j], p);
  return switch_to_ks(v == 0 ? 0 : p.Q - v, p);
}
// Key-switch digit j of a coefficient mod Q_ks.
TEMPO_TFHE_HD u32 ks_digit(u32 a, u32 j, const DeviceParams& p) { return (a >> (p.log_bks * j)) & ((1u << p.log_bks) - 1); }
// The key switch (0, b) - sum_{i,j} K[i][j][digit_j(ext_i)], split into items of 32 output
// coefficients x kKsSlice input coefficients: a thread sums its output's terms over its
// slice and adds the partial sum into a shared accumulator (sums mod 2^32 in any order are
// the same). The loop is branch-free (a zero digit reads entry 0 and adds nothing; the
// digits are public) so the table loads overlap.
inline constexpr u32 kKsSlice = 64;
// Levels: ks_levels when it is a compile-time constant (the sets' 3), else 0 (p.ks_levels).
// A coefficient's table rows are walked by pointer with 32-bit offsets inside it, and a
// compile-time level count lets the compiler issue several coefficients' loads before their
// sums (one load at a time, the loop waited on memory for a tenth of the kernel's time).
template <typename W, u32 Levels = 0>
TEMPO_TFHE_HD u32 key_switch_partial(const W* ext, u32 c, u32 i0, const u16* ks, const DeviceParams& p) {
  const u32 row = p.n + 1, base = (1u << p.log_bks) - 1, levels = Levels > 0 ? Levels : p.ks_levels;
  const u32 per_coeff = levels * base * row;  // table entries per input coefficient
  const u32 i1 = i0 + kKsSlice < p.N ? i0 + kKsSlice : p.N;
  const u16* t = ks + static_cast<std::size_t>(i0) * per_coeff + c;
  u32 acc = 0;
  TEMPO_TFHE_UNROLL_BY(4)
  for (u32 i = i0; i < i1; ++i, t += per_coeff) {
    const u32 a = static_cast<u32>(ext[i]);
    TEMPO_TFHE_UNROLL
    for (u32 j = 0; j < levels; ++j) {
      const u32 d = ks_digit(a, j, p);
      const u32 v = t[(j * base + (d == 0 ? 0 : d - 1)) * row];
      acc -= d == 0 ? 0u : v;
    }
  }
  return acc;
}
// x += v on a shared word (an atomic on the device: several threads add to one output).
TEMPO_TFHE_HD void shared_add(u32* x, u32 v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(x, v);
#else
  *x += v;
#endif
}
// The rounding switch Q_ks -> q of a key-switched coefficient.
TEMPO_TFHE_HD u32 ks_round(u32 acc, const DeviceParams& p) {
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

// The multiply's tasks are coefficient j for a run of at most Run items (which read j's key
// words once; the kernel's register bound sets Run, see tfhe_kernels.cu): the fewest runs
// that make runs N a multiple of the block's T threads where that exists, so that every
// thread gets as many tasks (T = 768 and six items: three runs of two, four tasks per
// thread; one task per coefficient would leave two thirds of the threads a task short).
template <u32 Run>
TEMPO_TFHE_HD u32 mac_runs(u32 N, u32 T, u32 items) {
  const u32 fewest = (items + Run - 1) / Run;
  for (u32 s = fewest; s <= items; ++s)
    if (s * N % T == 0) return s;
  return fewest;
}

// The bootstraps of one block: `items` (<= p.group) inputs and outputs of n + 1 words each
// (mask, then b) at in and out; sm is the block's shared memory (block_smem_bytes: item b's
// ACC a, ACC b and digit rows at sm + b item_smem_words); W = u32 when p.word32, else u64.
// The items run in lockstep, so each step's key is read once for every run of at most Run
// of them (mac_runs); with Run >= kNarrowGroup (the narrow kernel) one run: items <= Run.
template <typename W, u32 Run = kNarrowGroup, class Exec>
TEMPO_TFHE_HD void bootstrap_block(Exec& ex, const DeviceParams& p, const u64* tables, const void* bk,
                                   const u16* ks, const u32* in, u32* out, W* sm, u32 items) {
  const u32 N = p.N, T = p.threads, two_n_mask = 2 * N - 1, rows = 2 * p.levels;
  const std::size_t stride = p.n + 1, item_words = item_smem_words(p);
  constexpr u32 S = kPassBits<W>;
  const Tables tw(tables, N);
  auto acc = [&](u32 b) { return sm + b * item_words; };            // ACC a; ACC b at + N
  auto dig = [&](u32 b) { return sm + b * item_words + 2 * N; };    // the 2L digit rows
  const u32 shift = p.log_n + 1 - p.log_q;  // 2N / q
  // The step loop divides by a forward pass's groups per item, rows 2^(log N - S), as a
  // shift and a high product with ceil(2^32 / rows): exact for quotients below 2^32 / rows^2
  // (here below kMaxGroup), where a run-time division took about twenty instructions.
  const u32 rows_magic = 0xffffffffu / rows + 1;
  // Groups per item of every pass (PassGroup: 2^S coefficients each): forward over the 2L
  // digit rows, inverse over rows 0 and 1.
  const u32 fwd_groups = rows << (p.log_n - S), inv_groups = 2u << (p.log_n - S);
  // With p.stage_key (32-bit keys) the key buffer after the items holds the current step's
  // key: the copy of step i's key is issued before the transforms that precede its use
  // (with the first inverse pass of the step before) and waited for at the end of the last
  // forward pass, so the memory latency hides behind the transforms.
  u32* const kbuf = p.stage_key ? reinterpret_cast<u32*>(sm + p.group * item_words) : nullptr;
  // 32-bit words: the passes and the multiply read the block's shared copy of the tables
  // (after the items and the key buffer), loaded in the first phase; 64-bit: the device's.
  const auto twv = [&] {
    if constexpr (sizeof(W) == 4)
      return SharedTables(reinterpret_cast<u32*>(sm + p.group * item_words) + (p.stage_key ? key_buffer_words(p) : 0), N,
                          p.log_n);
    else
      return tw;
  }();
  auto stage_copy = [&](u32 t, u32 i) {
    const u32* src = static_cast<const u32*>(bk) + static_cast<std::size_t>(i) * key_step_words(p);
    for (std::size_t c = t; c < key_step_words(p) / 4; c += T) copy16_async(kbuf + key_slot(4 * c, p), src + 4 * c);
  };
  // Steps where some item's X^alpha - 1 is not 0 (the others add nothing: block-uniform skip).
  auto next_step = [&](u32 i) {
    for (; i < p.steps; ++i)
      for (u32 b = 0; b < items; ++b)
        if (step_alpha(in + b * stride, i, p) != 0) return i;
    return p.steps;
  };
  u32 i = next_step(0);
  ex([&](u32 t) {
    if constexpr (sizeof(W) == 4) twv.load(tw, N, t, T);
    if (kbuf != nullptr && i < p.steps) stage_copy(t, i);
    for (u32 w = t; w < items * N; w += T) {
      const u32 b = w / N, j = w % N;
      const u32 beta = (in[b * stride + p.n] << shift) & two_n_mask;
      acc(b)[j] = 0;
      acc(b)[N + j] = acc_store<W>(acc_init(beta, j, p), p);
    }
  });
  // 32-bit words: the step's exponents in shared memory (written in its first phase, read by
  // its multiply), so that the multiply's tasks do not each load them from the inputs.
  u32* const alphas = [&]() -> u32* {
    if constexpr (sizeof(W) == 4) return twv.alpha;
    else return nullptr;
  }();
  while (i < p.steps) {
    // Forward transforms of each item's 2L digit rows, the decomposition fused into the first pass.
    for (u32 h = p.log_n; h > 0;) {
      const u32 bits = h < S ? h : S, lo = h - bits;
      const bool first = h == p.log_n;
      ex([&](u32 t) {
        if (alphas != nullptr && first && t < items) alphas[t] = step_alpha(in + t * stride, i, p);
        fwd_pass_bits<W, S>(bits, lo, sm, twv, p, [&](auto&& pass) {
          for (u32 g = t; g < items * fwd_groups; g += T) {
            const u32 b = mulhi(g >> (p.log_n - S), rows_magic);  // g / fwd_groups
            pass(dig(b), first ? acc(b) : nullptr, g - b * fwd_groups);
          }
        });
        if (kbuf != nullptr && lo == 0) copies_wait();
      });
      h = lo;
    }
    ex([&](u32 t) {
      auto mac = [&](auto staged) {
        constexpr bool St = decltype(staged)::value;
        // The narrow kernel: the whole group in one run (the general loop below needed about
        // 20 more registers when tried).
        if constexpr (Run >= kNarrowGroup) {
          for (u32 j = t; j < N; j += T)
            multiply_coeff<W, St, Run>(dig(0), item_words, items, in, stride, alphas, j, i, bk, kbuf, twv, p);
        } else {
          // (Worked out here, not kept across the step: registers are the wide kernel's limit.)
          const u32 runs = mac_runs<Run>(N, T, items), per = (items + runs - 1) / runs;
          for (u32 w = t; w < runs * N; w += T) {
            const u32 b0 = (w >> p.log_n) * per, j = w & (N - 1);
            if (b0 >= items) continue;
            const u32 cnt = items - b0 < per ? items - b0 : per;
            multiply_coeff<W, St, Run>(dig(b0), item_words, cnt, in + b0 * stride, stride, alphas + b0, j, i, bk, kbuf,
                                       twv, p);
          }
        }
      };
      if (kbuf != nullptr)
        mac(std::true_type{});
      else
        mac(std::false_type{});
    });
    const u32 next = next_step(i + 1);
    // Inverse transforms of rows 0 and 1 of each item, the last pass adding N^-1 u to its ACC.
    // The pass of fewer stages first, at lo = 0 (see PassGroup).
    for (u32 lo = 0; lo < p.log_n;) {
      const u32 bits = lo == 0 && p.log_n % S != 0 ? p.log_n % S : S;
      const bool last = lo + bits == p.log_n;
      ex([&](u32 t) {
        if (kbuf != nullptr && lo == 0 && next < p.steps) stage_copy(t, next);
        inv_pass_bits<W, S>(bits, lo, sm, twv, p, [&](auto&& pass) {
          for (u32 g = t; g < items * inv_groups; g += T) {
            const u32 b = g >> (p.log_n - S + 1);  // g / inv_groups
            pass(dig(b), last ? acc(b) : nullptr, g - b * inv_groups);
          }
        });
      });
      lo += bits;
    }
    i = next;
  }
  // Sample extraction into each item's digit row 0, its key-switch accumulators (n + 1
  // words) after it.
  auto ks_acc = [&](u32 b) { return reinterpret_cast<u32*>(dig(b) + N); };
  ex([&](u32 t) {
    for (u32 w = t; w < items * N; w += T) {
      const u32 b = w / N, j = w % N;
      dig(b)[j] = static_cast<W>(extract_coeff<W>(acc(b), j, p));
    }
    for (u32 w = t; w < items * static_cast<u32>(stride); w += T) {
      const u32 b = w / static_cast<u32>(stride), c = w % static_cast<u32>(stride);
      ks_acc(b)[c] = c == p.n ? switch_to_ks(add_mod<u64>(acc_word<W>(acc(b)[N], p), p.Q / 8, p.Q), p) : 0;
    }
  });
  const u32 chunks = (p.n + 32) / 32, slices = (N + kKsSlice - 1) / kKsSlice, per_item = chunks * slices * 32;
  ex([&](u32 t) {
    for (u32 w = t; w < items * per_item; w += T) {
      const u32 b = w / per_item, v = w - b * per_item;
      const u32 item = v / 32, c = (item % chunks) * 32 + v % 32;
      if (c > p.n) continue;
      const u32 i0 = (item / chunks) * kKsSlice;
      shared_add(&ks_acc(b)[c], p.ks_levels == 3 ? key_switch_partial<W, 3>(dig(b), c, i0, ks, p)
                                                 : key_switch_partial<W>(dig(b), c, i0, ks, p));
    }
  });
  ex([&](u32 t) {
    for (u32 w = t; w < items * static_cast<u32>(stride); w += T) {
      const u32 b = w / static_cast<u32>(stride), c = w % static_cast<u32>(stride);
      out[b * stride + c] = ks_round(ks_acc(b)[c], p);
    }
  });
}

// The most ranks of a cluster (2L; the launcher's bound).
inline constexpr u32 kMaxRanks = 8;

// The cluster shape's radix passes: 8 coefficients per group, so that a rank's one row per
// pass spreads over N / 8 threads (16 coefficients per thread left 64 threads working and
// each pass bound by one thread's chain of 32 butterflies; 4 per thread took five passes).
inline constexpr u32 kClusterPassBits = 3;

// One bootstrap on a cluster of 2L blocks (32-bit words and keys, 2L <= 8): the latency
// shape. A lone bootstrap on one block runs each step's 2L forward transforms one after
// another on one SM; here rank r of the cluster owns digit row r (ACC column c(r) = [r >= L]:
// the row's digits read that column only) and a slice of the coefficients (cluster_slice),
// and each step runs as
//   forward   row r's passes, from the rank's copy of ACC column c(r)       (block barriers)
//   ---- cluster barrier
//   multiply  per coefficient j of the slice: the 2L rows' words at j from their owners
//             (distributed shared memory), the external products with the slice's key,
//             u_a[j] into row 0 of every rank of column 0, u_b[j] into row 1 of column 1's
//   ---- cluster barrier
//   inverse   row c(r)'s passes, the last adding N^-1 u_c to ACC column c(r)
// Every rank of column c runs the same inverse on the same u_c, so each holds ACC column c
// for its next forward without a third exchange. Between the two barriers coefficient j of
// any rank's rows is read and written by the one thread of the rank whose slice holds j
// (reading all rows at j before writing any); outside them every rank touches its own
// shared memory only. The step's key: each rank stages its slice's words a step ahead
// (cp.async, issued with the first inverse pass, awaited at the end of the forward) into a
// key buffer laid out as key_slot's from the slice's first block (cluster_key_buffer_words).
// At the end each rank takes the ACC column it lacks from rank 0 (a) or L (b), extracts,
// and sums its share of the key switch into its own partial sums; rank 0 adds the ranks'
// sums and writes the output, and the last barrier keeps every rank's shared memory alive
// until then. Same phases for every rank (roles differ inside them); the host runs each rank
// on a thread of its own, meeting at the cluster barriers (test_cuda_emulated.cpp).
//
// Cluster: ex(f) runs f(rank, t) on every thread of every rank, then a barrier of each
// block; ex.cluster(f) the same, then a barrier of the whole cluster; ex.smem(r) is rank r's
// shared memory (cluster_smem_bytes: ACC, the 2L rows, the key buffer of its slice, the
// tables) and p.threads the threads per block.
template <class Cluster>
TEMPO_TFHE_HD void bootstrap_cluster(Cluster& ex, const DeviceParams& p, const u64* tables, const void* bk,
                                     const u16* ks, const u32* in, u32* out) {
  using W = u32;
  constexpr u32 S = kClusterPassBits;
  const u32 N = p.N, T = p.threads, L = p.levels, ranks = 2 * L, two_n_mask = 2 * N - 1;
  const u32 row_groups = N >> S;  // radix groups per row and pass
  const std::size_t item_words = item_smem_words(p), stride = p.n + 1;
  const Tables tw(tables, N);
  auto dig = [&](W* sm) { return sm + 2 * N; };  // ACC (a, b) at sm, then the 2L rows
  auto kbuf = [&](W* sm) { return sm + item_words; };
  auto tabs = [&](W* sm) { return SharedTables(sm + item_words + cluster_key_buffer_words(p), N, p.log_n); };
  auto col_of = [&](u32 r) { return r >= L ? 1u : 0u; };
  // Rank r's slice of step i's key: whole key blocks of key_block_words / 4 16-byte chunks,
  // the slice's block B at B (key_block_words + kKeyBlock) words in the buffer (key_slot's
  // layout from the slice's first block, without its division; cluster_key_buffer_words).
  auto stage_slice = [&](W* sm, u32 r, u32 t, u32 i) {
    const Slice s = cluster_slice(r, ranks, N);
    const u32 per_block = static_cast<u32>(key_block_words(p) / 4), b0 = s.lo / kKeyBlock,
              chunks = (s.hi - s.lo) / kKeyBlock * per_block;
    const u32* src = static_cast<const u32*>(bk) + static_cast<std::size_t>(i) * key_step_words(p);
    for (u32 c = t; c < chunks; c += T) {
      const u32 b = c / per_block, x = c % per_block;
      copy16_async(kbuf(sm) + b * (4 * per_block + kKeyBlock) + 4 * x,
                   src + (std::size_t{b0 + b} * per_block + x) * 4);
    }
  };
  auto next_step = [&](u32 i) {
    for (; i < p.steps; ++i)
      if (step_alpha(in, i, p) != 0) return i;
    return p.steps;
  };
  u32 i = next_step(0);
  ex([&](u32 r, u32 t) {
    W* sm = ex.smem(r);
    tabs(sm).load(tw, N, t, T);
    if (i < p.steps) stage_slice(sm, r, t, i);
    const u32 beta = (in[p.n] << (p.log_n + 1 - p.log_q)) & two_n_mask;
    for (u32 j = t; j < N; j += T) {
      sm[j] = 0;
      sm[N + j] = acc_store<W>(acc_init(beta, j, p), p);
    }
  });
  while (i < p.steps) {
    for (u32 h = p.log_n; h > 0;) {
      const u32 bits = h < S ? h : S, lo = h - bits;
      const bool first = h == p.log_n;
      auto forward = [&](u32 r, u32 t) {
        W* sm = ex.smem(r);
        const SharedTables tv = tabs(sm);
        if (first && t == 0) tv.alpha[0] = step_alpha(in, i, p);
        fwd_pass_bits<W, S, S>(bits, lo, sm, tv, p, [&](auto&& pass) {
          for (u32 g = t; g < row_groups; g += T) pass(dig(sm), first ? sm : nullptr, r * row_groups + g);
        });
        if (lo == 0) copies_wait();
      };
      if (lo == 0) ex.cluster(forward);
      else ex(forward);
      h = lo;
    }
    ex.cluster([&](u32 r, u32 t) {  // multiply: rows from their owners, u to its column's ranks
      W* sm = ex.smem(r);
      const SharedTables tv = tabs(sm);
      const Slice s = cluster_slice(r, ranks, N);
      // Loops over kMaxRanks with a rank test, unrolled: the arrays stay in registers.
      W* rows[kMaxRanks];
      TEMPO_TFHE_UNROLL
      for (u32 k = 0; k < kMaxRanks; ++k) rows[k] = k < ranks ? dig(ex.smem(k)) + k * N : sm;  // rank k's row k
      const u32 alpha = tv.alpha[0];
      for (u32 j = s.lo + t; j < s.hi; j += T) {
        const u32 sj = swz(j);
        const u32* k0 = kbuf(sm) + key_row0_slot(j - s.lo, p);
        u32 d[kMaxRanks];
        TEMPO_TFHE_UNROLL
        for (u32 k = 0; k < kMaxRanks; ++k) d[k] = k < ranks ? rows[k][sj] : 0;
        u32 u[2];
        if (p.patterns == 2) {
          u64 acc[4] = {};
          TEMPO_TFHE_UNROLL
          for (u32 k = 0; k < kMaxRanks; ++k) {
            if (k >= ranks) break;
            const u32* kr = k0 + k * 4 * kKeyBlock;
            TEMPO_TFHE_UNROLL
            for (u32 q = 0; q < 4; ++q) acc[q] += u64{d[k]} * kr[q * kKeyBlock];
          }
          combine_products32(acc, alpha, tv.slot_of(j, p.log_n), tv, p, u);
        } else {  // multiply_coeff32_keys's order, the digits in registers
          const u32 slot = tv.slot_of(j, p.log_n), row_words = 2 * p.patterns * kKeyBlock;
          u64 sum[2] = {};
          TEMPO_TFHE_UNROLL
          for (u32 q = 0; q < kMaxPatterns; ++q) {  // unrolled: the key loads of several keys in flight
            if (q >= p.patterns) break;
            u64 acc[2] = {};
            TEMPO_TFHE_UNROLL
            for (u32 k = 0; k < kMaxRanks; ++k) {
              if (k >= ranks) break;
              const u32* kr = k0 + k * row_words + 2 * q * kKeyBlock;
              acc[0] += u64{d[k]} * kr[0];
              acc[1] += u64{d[k]} * kr[kKeyBlock];
            }
            const u32 m = static_cast<u32>(monomial_minus_one_at((step_exponent(alpha, q, p) * slot) & two_n_mask, tv));
            TEMPO_TFHE_UNROLL
            for (u32 col = 0; col < 2; ++col) sum[col] += reduce_wide(u64{reduce_wide_lazy(acc[col], p)} * m, p);
          }
          TEMPO_TFHE_UNROLL
          for (u32 col = 0; col < 2; ++col) u[col] = reduce_wide(sum[col], p);
        }
        TEMPO_TFHE_UNROLL
        for (u32 k = 0; k < kMaxRanks; ++k)
          if (k < ranks) (rows[k] - k * N)[col_of(k) * N + sj] = u[col_of(k)];
      }
    });
    const u32 next = next_step(i + 1);
    for (u32 lo = 0; lo < p.log_n;) {
      const u32 bits = lo == 0 && p.log_n % S != 0 ? p.log_n % S : S;
      const bool last = lo + bits == p.log_n;
      ex([&](u32 r, u32 t) {
        W* sm = ex.smem(r);
        if (lo == 0 && next < p.steps) stage_slice(sm, r, t, next);
        const u32 c = col_of(r);
        inv_pass_bits<W, S, S>(bits, lo, sm, tabs(sm), p, [&](auto&& pass) {
          for (u32 g = t; g < row_groups; g += T) pass(dig(sm), last ? sm : nullptr, c * row_groups + g);
        });
      });
      lo += bits;
    }
    i = next;
  }
  ex.cluster([](u32, u32) {});  // every rank's ACC column final
  auto ks_acc = [&](W* sm) { return dig(sm) + N; };
  ex([&](u32 r, u32 t) {  // the other column, then the extraction into row 0
    W* sm = ex.smem(r);
    const u32 c = 1 - col_of(r);
    const W* from = ex.smem(c == 0 ? 0 : L);
    for (u32 j = t; j < N; j += T) sm[c * N + j] = from[c * N + j];
  });
  ex([&](u32 r, u32 t) {
    W* sm = ex.smem(r);
    for (u32 j = t; j < N; j += T) dig(sm)[j] = static_cast<W>(extract_coeff<W>(sm, j, p));
    for (u32 c = t; c < stride; c += T)
      ks_acc(sm)[c] = c == p.n && r == 0 ? switch_to_ks(add_mod<u64>(acc_word<W>(sm[N], p), p.Q / 8, p.Q), p) : 0;
  });
  const u32 chunks = (p.n + 32) / 32, slices = (N + kKsSlice - 1) / kKsSlice, per_item = chunks * slices * 32;
  ex.cluster([&](u32 r, u32 t) {  // rank r's share of the key switch
    W* sm = ex.smem(r);
    for (u32 w = r * T + t; w < per_item; w += ranks * T) {
      const u32 item = w / 32, c = (item % chunks) * 32 + w % 32;
      if (c > p.n) continue;
      const u32 i0 = (item / chunks) * kKsSlice;
      shared_add(&ks_acc(sm)[c], p.ks_levels == 3 ? key_switch_partial<W, 3>(dig(sm), c, i0, ks, p)
                                                  : key_switch_partial<W>(dig(sm), c, i0, ks, p));
    }
  });
  ex.cluster([&](u32 r, u32 t) {  // rank 0 adds the ranks' sums (mod 2^32, any order)
    if (r != 0) return;
    for (u32 c = t; c < stride; c += T) {
      u32 sum = 0;
      for (u32 k = 0; k < ranks; ++k) sum += ks_acc(ex.smem(k))[c];
      out[c] = ks_round(sum, p);
    }
  });
}

}  // namespace tempo::tfhe::cuda::dev
