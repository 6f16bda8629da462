// Gate bootstrapping: blind rotation (GINX, ternary key), sample extraction, modulus
// switching and LWE key switching. Exact integer arithmetic; results are canonical.
#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "internal.hpp"

namespace tempo::tfhe::detail {

namespace {

// Vector loops compiled three times and picked at load time (ifunc). Not under the
// sanitizers: ThreadSanitizer's runtime is not ready when the ifunc resolvers run.
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define TEMPO_TFHE_CLONES
#else
#define TEMPO_TFHE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

// Balanced base-2^log_bg digits of the centered coefficients of `in` (mod Q), after rounding
// off their low `drop` bits (Params::dropped_bits; 0: exact): digit r of coefficient j goes
// to out[r][j] as an element of [0, Q). Sum_r d_r B^r 2^drop = x up to the rounding (and, for
// the few coefficients beyond the digits' range, a carry: the noise model counts both).
// Digit-major loops over a scratch copy, so every inner loop is a plain vector loop.
TEMPO_TFHE_CLONES
void decompose_impl(const u64* __restrict in, std::size_t N, std::int64_t Q, unsigned log_bg, unsigned levels,
                    unsigned drop, std::int64_t* __restrict x, u64* __restrict out) {
  const std::int64_t half = std::int64_t{1} << (log_bg - 1);
  const std::int64_t mask = (std::int64_t{1} << log_bg) - 1;
  const std::int64_t round = drop > 0 ? std::int64_t{1} << (drop - 1) : 0;
  for (std::size_t j = 0; j < N; ++j) {
    const std::int64_t v = static_cast<std::int64_t>(in[j]);
    x[j] = (v - ((v > Q / 2) ? Q : 0) + round) >> drop;
  }
  for (unsigned r = 0; r < levels; ++r) {
    u64* o = out + r * N;
    for (std::size_t j = 0; j < N; ++j) {
      const std::int64_t d = ((x[j] + half) & mask) - half;
      x[j] = (x[j] - d) >> log_bg;
      o[j] = static_cast<u64>(d + ((d < 0) ? Q : 0));
    }
  }
}

}  // namespace

void decompose(std::span<const u64> in, const Params& p, std::int64_t* scratch, u64* out) {
  decompose_impl(in.data(), p.N, static_cast<std::int64_t>(p.Q), p.log_bg, p.levels, p.dropped_bits(), scratch, out);
}

namespace {

// Q < 2^32 (k = bitlen(Q)): x mod Q for x < 2^(k+31) with 32x32-bit multiplies only, so the
// loops that use it vectorize. The quotient estimate is at most 3 too small.
struct SmallReducer {
  u64 Q;
  unsigned k;
  u64 mu;  // floor(2^(k+31) / Q) < 2^32
  explicit SmallReducer(u64 q, unsigned bits) : Q(q), k(bits), mu((u64{1} << (bits + 31)) / q) {}
  u64 operator()(u64 x) const noexcept {
    const u64 q1 = x >> (k - 1);
    const u64 est = (static_cast<std::uint32_t>(q1) * mu) >> 32;
    u64 r = x - est * Q;
    r -= (r >= Q) ? Q : 0;
    r -= (r >= Q) ? Q : 0;
    r -= (r >= Q) ? Q : 0;
    return r;
  }
};

// The external product of the step's P keys with the digits, and the combination with
// their monomials (X^e_t - 1), in one pass over the coefficients (Q < 2^27):
//   u0 = R(sum_t R(sum_r d_r k_t,r,0) * mono_t), u1 likewise with the second column of each
//   key (k_t = the step's key t; `key` is step i's run of bk32, in EvalData::bk32_offset's
//   blocks of B coefficients, read front to back; mono: P rows of N).
// Per block the 2P sums stay in registers across the rows: the digits and keys are read
// once and nothing else goes to memory. Products < 2^54, sums of up to 16 of them < 2^58,
// exact in 64 bits (then SmallReducer; the outer sum of P <= 8 products of reduced values
// stays below 2^57).
constexpr std::size_t kBlock = EvalData::kKeyBlock;
constexpr std::size_t kMaxPatterns = cuda::kMaxPatterns;
TEMPO_TFHE_CLONES
void mac_combine_small(const u64* __restrict d, const std::uint32_t* __restrict key, std::size_t rows, std::size_t N,
                       std::size_t P, const u64* __restrict mono, SmallReducer red, u64* __restrict u0,
                       u64* __restrict u1) {
  constexpr std::size_t B = kBlock;
  if (P == 2) {  // one coefficient per step: the four sums named, the loop as before multi-bit steps
    const u64* mp = mono;
    const u64* mm = mono + N;
    for (std::size_t j0 = 0; j0 < N; j0 += B) {
      u64 p0[B] = {}, p1[B] = {}, m0[B] = {}, m1[B] = {};
      for (std::size_t r = 0; r < rows; ++r, key += 4 * B) {
        const u64* dr = d + r * N + j0;
        for (std::size_t l = 0; l < B; ++l) {
          const u64 x = static_cast<std::uint32_t>(dr[l]);
          p0[l] += x * key[l];
          p1[l] += x * key[B + l];
          m0[l] += x * key[2 * B + l];
          m1[l] += x * key[3 * B + l];
        }
      }
      for (std::size_t l = 0; l < B; ++l) {
        const u64 a = static_cast<std::uint32_t>(mp[j0 + l]), b = static_cast<std::uint32_t>(mm[j0 + l]);
        u0[j0 + l] = red(red(p0[l]) * a + red(m0[l]) * b);
        u1[j0 + l] = red(red(p1[l]) * a + red(m1[l]) * b);
      }
    }
    return;
  }
  for (std::size_t j0 = 0; j0 < N; j0 += B) {
    u64 s[2 * kMaxPatterns][B] = {};
    for (std::size_t r = 0; r < rows; ++r, key += 2 * P * B) {
      const u64* dr = d + r * N + j0;
      for (std::size_t c = 0; c < 2 * P; ++c)
        for (std::size_t l = 0; l < B; ++l) s[c][l] += static_cast<std::uint32_t>(dr[l]) * u64{key[c * B + l]};
    }
    for (std::size_t l = 0; l < B; ++l) {
      u64 a = 0, b = 0;
      for (std::size_t t = 0; t < P; ++t) {
        const u64 m = static_cast<std::uint32_t>(mono[t * N + j0 + l]);
        a += red(s[2 * t][l]) * m;
        b += red(s[2 * t + 1][l]) * m;
      }
      u0[j0 + l] = red(a);
      u1[j0 + l] = red(b);
    }
  }
}

#if defined(__x86_64__)
// The AVX-512 loops of the blind rotation (mac_combine_avx512, add_decompose_avx512 below).
// GCC 12 warns inside its own avx512fintrin.h (_mm512_undefined_epi32): a false positive.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
struct VecReducer {
  __m512i q, mu;
  int shift;  // k - 1
};

// SmallReducer's quotient estimate (at most 3 too small) without its conditional
// subtractions: x mod Q plus up to 3Q, below 4Q < 2^29, for x < 2^58.
__attribute__((target("avx512f"), always_inline)) inline __m512i vreduce_lazy(__m512i x, const VecReducer& r) {
  const __m512i q1 = _mm512_srli_epi64(x, static_cast<unsigned>(r.shift));
  const __m512i est = _mm512_srli_epi64(_mm512_mul_epu32(q1, r.mu), 32);
  return _mm512_sub_epi64(x, _mm512_mul_epu32(est, r.q));
}
__attribute__((target("avx512f"), always_inline)) inline __m512i vreduce(__m512i x, const VecReducer& r) {
  __m512i v = vreduce_lazy(x, r);
  v = _mm512_min_epu64(v, _mm512_sub_epi64(v, r.q));
  v = _mm512_min_epu64(v, _mm512_sub_epi64(v, r.q));
  return _mm512_min_epu64(v, _mm512_sub_epi64(v, r.q));
}

// One key row's 16 words as even and odd lanes (vpmuludq reads the low dword of each
// 64-bit lane: the odd words are shifted down).
struct EvenOdd {
  __m512i e, o;
};
__attribute__((target("avx512f"), always_inline)) inline EvenOdd load_eo(const std::uint32_t* p) {
  const __m512i v = _mm512_loadu_si512(p);
  return {v, _mm512_srli_epi64(v, 32)};
}
__attribute__((target("avx512f"), always_inline)) inline void mac(__m512i& acc_e, __m512i& acc_o, const EvenOdd& x,
                                                                  const std::uint32_t* key) {
  const EvenOdd k = load_eo(key);
  acc_e = _mm512_add_epi64(acc_e, _mm512_mul_epu32(x.e, k.e));
  acc_o = _mm512_add_epi64(acc_o, _mm512_mul_epu32(x.o, k.o));
}

// R(R(p) a + R(m) b) for the even (e) and the odd (o) coefficients of a block, packed into
// 16 32-bit words in coefficient order (the values are < Q < 2^32). The inner reductions
// are lazy: below 4Q, times a or b (< Q) each product stays below 2^56 and their sum below
// 2^57, within the outer reduction's range; its result is the same canonical value.
__attribute__((target("avx512f"), always_inline)) inline __m512i combine(__m512i pe, __m512i po, __m512i me, __m512i mo,
                                                                         __m512i ae, __m512i ao, __m512i be, __m512i bo,
                                                                         const VecReducer& vr) {
  const __m512i ve =
      _mm512_add_epi64(_mm512_mul_epu32(vreduce_lazy(pe, vr), ae), _mm512_mul_epu32(vreduce_lazy(me, vr), be));
  const __m512i vo =
      _mm512_add_epi64(_mm512_mul_epu32(vreduce_lazy(po, vr), ao), _mm512_mul_epu32(vreduce_lazy(mo, vr), bo));
  return _mm512_or_si512(vreduce(ve, vr), _mm512_slli_epi64(vreduce(vo, vr), 32));
}
// R(R(p) a + R(m) b) for one set of lanes (64-bit), fully reduced (< Q): a pair of keys'
// part of a step with more than two keys (mac_combine_keys_avx512).
__attribute__((target("avx512f"), always_inline)) inline __m512i combine_part(__m512i p, __m512i m, __m512i a,
                                                                              __m512i b, const VecReducer& vr) {
  return vreduce(
      _mm512_add_epi64(_mm512_mul_epu32(vreduce_lazy(p, vr), a), _mm512_mul_epu32(vreduce_lazy(m, vr), b)), vr);
}

// mac_combine_small in AVX-512 on 32-bit words: 16 digits and 16 key words per load, the
// sums of the even and the odd coefficients in separate registers of 64-bit lanes. The
// monomial factors are gathered in the same pass (psi^(e slot_i) - 1, e = alpha and
// 2N - alpha; the low dword of each psi_pow word, < Q), and the reductions are
// SmallReducer's arithmetic lane by lane (the inner ones lazy, see combine), so the output
// is the same canonical values as the generic loop. The key is one stream (step i's run of
// bk32, the next step's run after it), read front to back and prefetched into L2 kAhead
// words ahead, up to key_end (the end of bk32); the hardware prefetchers alone leave the
// loop waiting on memory (rotate_step also prefetches the step during its transforms).
__attribute__((target("avx512f"))) void mac_combine_avx512(const std::uint32_t* __restrict d,
                                                         const std::uint32_t* __restrict key,
                                                         const std::uint32_t* key_end, std::size_t rows,
                                                         std::size_t N, const u64* __restrict psi_pow,
                                                         const std::uint32_t* __restrict slot, std::size_t alpha,
                                                         SmallReducer red, std::uint32_t* __restrict u0,
                                                         std::uint32_t* __restrict u1) {
  static_assert(kBlock == 16, "one block of coefficients per 512-bit load");
  const VecReducer vr{_mm512_set1_epi64(static_cast<long long>(red.Q)), _mm512_set1_epi64(static_cast<long long>(red.mu)),
                      static_cast<int>(red.k - 1)};
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i emask = _mm512_set1_epi32(static_cast<int>(2 * N - 1));
  const __m512i ep = _mm512_set1_epi32(static_cast<int>(alpha));
  const __m512i em = _mm512_set1_epi32(static_cast<int>(2 * N - alpha));
  constexpr std::size_t kAhead = 2048;  // words: 8 KiB (measured best of 2-12 KiB, L1 or L2)
  for (std::size_t j0 = 0; j0 < N; j0 += 16) {
    __m512i p0e = _mm512_setzero_si512(), p0o = p0e, p1e = p0e, p1o = p0e, m0e = p0e, m0o = p0e, m1e = p0e, m1o = p0e;
    for (std::size_t r = 0; r < rows; ++r, key += 64) {
      if (static_cast<std::size_t>(key_end - key) >= kAhead + 64)
        for (std::size_t o = 0; o < 64; o += 16)
          _mm_prefetch(reinterpret_cast<const char*>(key + kAhead + o), _MM_HINT_T1);
      const EvenOdd x = load_eo(d + r * N + j0);
      mac(p0e, p0o, x, key);
      mac(p1e, p1o, x, key + 16);
      mac(m0e, m0o, x, key + 32);
      mac(m1e, m1o, x, key + 48);
    }
    const __m512i s = _mm512_loadu_si512(slot + j0);
    const __m512i ip = _mm512_and_si512(_mm512_mullo_epi32(s, ep), emask);
    const __m512i im = _mm512_and_si512(_mm512_mullo_epi32(s, em), emask);
    // psi^e is a unit, never 0: psi^e - 1 is in [0, Q).
    const __m512i a = _mm512_sub_epi32(_mm512_i32gather_epi32(ip, psi_pow, 8), one);
    const __m512i b = _mm512_sub_epi32(_mm512_i32gather_epi32(im, psi_pow, 8), one);
    const __m512i ao = _mm512_srli_epi64(a, 32), bo = _mm512_srli_epi64(b, 32);
    _mm512_storeu_si512(u0 + j0, combine(p0e, p0o, m0e, m0o, a, ao, b, bo, vr));
    _mm512_storeu_si512(u1 + j0, combine(p1e, p1o, m1e, m1o, a, ao, b, bo, vr));
  }
}

// mac_combine_avx512 for steps of more than two keys (multi-bit, P = 8, their exponents in
// exps): the keys two at a time, each pair's eight sums in registers over the rows (the
// digits read again per pair, from L1), the pair's part reduced below Q (combine_part) and
// the parts, below P/2 Q, reduced once more, so the output is the generic loop's canonical
// values. The key stream is prefetched as in mac_combine_avx512, 8 KiB per pair of keys
// ahead.
__attribute__((target("avx512f"))) void mac_combine_keys_avx512(const std::uint32_t* __restrict d,
                                                              const std::uint32_t* __restrict key,
                                                              const std::uint32_t* key_end, std::size_t rows,
                                                              std::size_t N, std::size_t P,
                                                              const u64* __restrict psi_pow,
                                                              const std::uint32_t* __restrict slot,
                                                              const std::uint32_t* exps, SmallReducer red,
                                                              std::uint32_t* __restrict u0,
                                                              std::uint32_t* __restrict u1) {
  static_assert(kBlock == 16, "one block of coefficients per 512-bit load");
  const VecReducer vr{_mm512_set1_epi64(static_cast<long long>(red.Q)), _mm512_set1_epi64(static_cast<long long>(red.mu)),
                      static_cast<int>(red.k - 1)};
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i emask = _mm512_set1_epi32(static_cast<int>(2 * N - 1));
  const std::size_t row_words = 2 * P * 16, ahead = 1024 * P;  // words: 8 KiB per pair of keys
  for (std::size_t j0 = 0; j0 < N; j0 += 16, key += rows * row_words) {
    const __m512i s = _mm512_loadu_si512(slot + j0);
    __m512i r0e = _mm512_setzero_si512(), r0o = r0e, r1e = r0e, r1o = r0e;
    for (std::size_t c = 0; c < P; c += 2) {
      __m512i p0e = _mm512_setzero_si512(), p0o = p0e, p1e = p0e, p1o = p0e, m0e = p0e, m0o = p0e, m1e = p0e,
              m1o = p0e;
      const std::uint32_t* k = key + 16 * 2 * c;
      for (std::size_t r = 0; r < rows; ++r, k += row_words) {
        if (c == 0 && static_cast<std::size_t>(key_end - k) >= ahead + row_words)
          for (std::size_t o = 0; o < row_words; o += 16)
            _mm_prefetch(reinterpret_cast<const char*>(k + ahead + o), _MM_HINT_T1);
        const EvenOdd x = load_eo(d + r * N + j0);
        mac(p0e, p0o, x, k);
        mac(p1e, p1o, x, k + 16);
        mac(m0e, m0o, x, k + 32);
        mac(m1e, m1o, x, k + 48);
      }
      const __m512i ip = _mm512_and_si512(_mm512_mullo_epi32(s, _mm512_set1_epi32(static_cast<int>(exps[c]))), emask);
      const __m512i im =
          _mm512_and_si512(_mm512_mullo_epi32(s, _mm512_set1_epi32(static_cast<int>(exps[c + 1]))), emask);
      // psi^e is a unit, never 0: psi^e - 1 is in [0, Q).
      const __m512i a = _mm512_sub_epi32(_mm512_i32gather_epi32(ip, psi_pow, 8), one);
      const __m512i b = _mm512_sub_epi32(_mm512_i32gather_epi32(im, psi_pow, 8), one);
      const __m512i ao = _mm512_srli_epi64(a, 32), bo = _mm512_srli_epi64(b, 32);
      r0e = _mm512_add_epi64(r0e, combine_part(p0e, m0e, a, b, vr));
      r0o = _mm512_add_epi64(r0o, combine_part(p0o, m0o, ao, bo, vr));
      r1e = _mm512_add_epi64(r1e, combine_part(p1e, m1e, a, b, vr));
      r1o = _mm512_add_epi64(r1o, combine_part(p1o, m1o, ao, bo, vr));
    }
    _mm512_storeu_si512(u0 + j0, _mm512_or_si512(vreduce(r0e, vr), _mm512_slli_epi64(vreduce(r0o, vr), 32)));
    _mm512_storeu_si512(u1 + j0, _mm512_or_si512(vreduce(r1e, vr), _mm512_slli_epi64(vreduce(r1o, vr), 32)));
  }
}

// acc <- acc + u (mod Q; u null: no addition), then decompose_impl's digits of acc into
// out[r][j] (Q < 2^27): the centered coefficients fit 32-bit lanes, 16 per register, and
// so do the digits, which the transforms take as 32-bit words. Same values as
// decompose_impl.
__attribute__((target("avx512f"))) void add_decompose_avx512(u64* __restrict acc, const std::uint32_t* __restrict u,
                                                           std::size_t N, u64 Q, unsigned log_bg, unsigned levels,
                                                           unsigned drop, std::uint32_t* __restrict out) {
  const __m512i q64 = _mm512_set1_epi64(static_cast<long long>(Q));
  const __m512i q32 = _mm512_set1_epi32(static_cast<int>(Q));
  const __m512i half_q = _mm512_set1_epi32(static_cast<int>(Q / 2));
  const __m512i half = _mm512_set1_epi32(1 << (log_bg - 1));
  const __m512i mask = _mm512_set1_epi32((1 << log_bg) - 1);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i round = _mm512_set1_epi32(drop > 0 ? 1 << (drop - 1) : 0);
  for (std::size_t j = 0; j < N; j += 16) {
    __m512i a0 = _mm512_loadu_si512(acc + j), a1 = _mm512_loadu_si512(acc + j + 8);
    if (u != nullptr) {
      a0 = _mm512_add_epi64(a0, _mm512_cvtepu32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(u + j))));
      a1 = _mm512_add_epi64(a1, _mm512_cvtepu32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(u + j + 8))));
      a0 = _mm512_min_epu64(a0, _mm512_sub_epi64(a0, q64));
      a1 = _mm512_min_epu64(a1, _mm512_sub_epi64(a1, q64));
      _mm512_storeu_si512(acc + j, a0);
      _mm512_storeu_si512(acc + j + 8, a1);
    }
    __m512i x = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(a0)), _mm512_cvtepi64_epi32(a1), 1);
    x = _mm512_mask_sub_epi32(x, _mm512_cmpgt_epi32_mask(x, half_q), x, q32);
    x = _mm512_srai_epi32(_mm512_add_epi32(x, round), drop);
    for (unsigned r = 0; r < levels; ++r) {
      const __m512i d = _mm512_sub_epi32(_mm512_and_si512(_mm512_add_epi32(x, half), mask), half);
      x = _mm512_srai_epi32(_mm512_sub_epi32(x, d), log_bg);
      _mm512_storeu_si512(out + r * N + j, _mm512_mask_add_epi32(d, _mm512_cmplt_epi32_mask(d, zero), d, q32));
    }
  }
}

#pragma GCC diagnostic pop

bool has_avx512() noexcept {
  static const bool yes = __builtin_cpu_supports("avx512f") != 0;
  return yes;
}
#endif

void mac_large(const u64* d, const u64* key, std::size_t rows, std::size_t N, u128* s0, u128* s1) {
  for (std::size_t j = 0; j < N; ++j) { s0[j] = 0; s1[j] = 0; }
  for (std::size_t r = 0; r < rows; ++r) {
    const u64* dr = d + r * N;
    const u64* k0 = key + (2 * r) * N;
    const u64* k1 = key + (2 * r + 1) * N;
    for (std::size_t j = 0; j < N; ++j) {
      s0[j] += static_cast<u128>(dr[j]) * k0[j];
      s1[j] += static_cast<u128>(dr[j]) * k1[j];
    }
  }
}

std::atomic<bool> g_vector_kernels{true};

bool vector_small(const EvalData& ek) {
#if defined(__x86_64__)
  return ek.ring.mod.small() && ek.params.N % 16 == 0 && has_avx512() &&
         g_vector_kernels.load(std::memory_order_relaxed);
#else
  (void)ek;
  return false;
#endif
}

struct Workspace {
  // The AVX-512 path (chosen once per bootstrap) keeps its digits and (u0, u1) in the
  // 32-bit words (values < Q < 2^27): half the bytes, and the transforms run on them in
  // place. The other arrays are sized for the path taken.
  bool vec;
  std::vector<u64> acc_a, acc_b, digits, mono, u0, u1;  // mono: the step's P monomials (X^e_t - 1)^
  std::vector<std::uint32_t> digits32, v0, v1;
  std::vector<std::int64_t> scratch;
  std::vector<u128> s128;  // 2P N lazy sums (large modulus)
  // (u0, u1), or (v0, v1), of the last step are still to be added to the accumulator (fused
  // with the next step's decomposition, or settle()).
  bool pending = false;
  explicit Workspace(const EvalData& ek) : vec(vector_small(ek)), acc_a(ek.params.N), acc_b(ek.params.N) {
    const std::size_t N = ek.params.N, digit_words = 2 * ek.params.levels * N;
    if (vec) {
      digits32.resize(digit_words), v0.resize(N), v1.resize(N);
    } else {
      digits.resize(digit_words), mono.resize(ek.params.patterns() * N), u0.resize(N), u1.resize(N);
      scratch.resize(N);
    }
  }
};

// ACC <- ACC + (u0, u1), or (v0, v1), when a step left them pending.
void settle(const EvalData& ek, Workspace& w) {
  if (!w.pending) return;
  const Modulus& m = ek.ring.mod;
  for (std::size_t j = 0; j < ek.params.N; ++j) {
    w.acc_a[j] = m.add(w.acc_a[j], w.vec ? w.v0[j] : w.u0[j]);
    w.acc_b[j] = m.add(w.acc_b[j], w.vec ? w.v1[j] : w.u1[j]);
  }
  w.pending = false;
}

// ACC <- ACC + sum_t (X^e_t - 1) (BK_i,t [x] ACC) over the step's P keys (grouping 1:
// e = alpha, -alpha for [s_i = 1], [s_i = -1]). The final addition is left pending (u0, u1
// or v0, v1) for the next step's decomposition to fuse.
void rotate_step(const EvalData& ek, Workspace& w, std::size_t i, const std::uint32_t* exps, bool prefetch) {
  const Params& p = ek.params;
  const Ring& ring = ek.ring;
  const std::size_t N = p.N, rows = 2 * p.levels, P = p.patterns();
  const Modulus& m = ring.mod;
#if defined(__x86_64__)
  if (w.vec) {
    add_decompose_avx512(w.acc_a.data(), w.pending ? w.v0.data() : nullptr, N, p.Q, p.log_bg, p.levels,
                         p.dropped_bits(), w.digits32.data());
    add_decompose_avx512(w.acc_b.data(), w.pending ? w.v1.data() : nullptr, N, p.Q, p.log_bg, p.levels,
                         p.dropped_bits(), w.digits32.data() + p.levels * N);
    // The forward transforms pull the step's key (P RGSWs, ~100 KB each pair) toward the
    // core, a share each, so that mac_combine's reads of it overlap their arithmetic instead
    // of waiting on memory in a burst; the other bootstraps of a group find it in cache.
    const std::size_t key_bytes = ek.step_stride() * sizeof(std::uint32_t);
    const std::size_t share = prefetch ? key_bytes / rows : 0;
    const auto* key = reinterpret_cast<const std::uint8_t*>(ek.step32(i));
    for (std::size_t r = 0; r < rows; ++r)
      ring.plan.forward_unchecked(std::span<std::uint32_t>(w.digits32.data() + r * N, N),
                                  ntt::Plan::Prefetch{key + r * share, share});
    if (P == 2)  // exps = (alpha, 2N - alpha)
      mac_combine_avx512(w.digits32.data(), ek.step32(i), ek.bk32.data() + ek.bk32.size(), rows, N,
                         ring.psi_pow.data(), ring.slot.data(), exps[0], SmallReducer(m.Q, m.k), w.v0.data(),
                         w.v1.data());
    else
      mac_combine_keys_avx512(w.digits32.data(), ek.step32(i), ek.bk32.data() + ek.bk32.size(), rows, N, P,
                              ring.psi_pow.data(), ring.slot.data(), exps, SmallReducer(m.Q, m.k), w.v0.data(),
                              w.v1.data());
    ring.plan.inverse_unchecked(std::span<std::uint32_t>(w.v0));
    ring.plan.inverse_unchecked(std::span<std::uint32_t>(w.v1));
    w.pending = true;
    return;
  }
#endif
  settle(ek, w);
  decompose(w.acc_a, p, w.scratch.data(), w.digits.data());
  decompose(w.acc_b, p, w.scratch.data(), w.digits.data() + p.levels * N);
  for (std::size_t r = 0; r < rows; ++r)
    ring.plan.forward_unchecked(std::span<u64>(w.digits.data() + r * N, N));
  for (std::size_t t = 0; t < P; ++t) ring.monomial_minus_one(exps[t], std::span<u64>(w.mono).subspan(t * N, N));
  if (m.small()) {
    mac_combine_small(w.digits.data(), ek.step32(i), rows, N, P, w.mono.data(), SmallReducer(m.Q, m.k),
                      w.u0.data(), w.u1.data());
  } else {
    w.s128.resize(2 * P * N);
    u128* s = w.s128.data();
    for (std::size_t t = 0; t < P; ++t) mac_large(w.digits.data(), ek.rgsw(i, static_cast<unsigned>(t)), rows, N,
                                                  s + 2 * t * N, s + (2 * t + 1) * N);
    // Each key's product reduced on its own, then summed mod Q (the same canonical value).
    for (std::size_t j = 0; j < N; ++j) {
      u64 a = 0, b = 0;
      for (std::size_t t = 0; t < P; ++t) {
        const u64 mt = w.mono[t * N + j];
        a = m.add(a, m.reduce128(static_cast<u128>(m.reduce128(s[2 * t * N + j])) * mt));
        b = m.add(b, m.reduce128(static_cast<u128>(m.reduce128(s[(2 * t + 1) * N + j])) * mt));
      }
      w.u0[j] = a;
      w.u1[j] = b;
    }
  }
  ring.plan.inverse_unchecked(w.u0);
  ring.plan.inverse_unchecked(w.u1);
  w.pending = true;
}

}  // namespace

namespace {

// Extract the constant coefficient (key S), add Q/8, switch to Q_ks (round(x Q_ks / Q)), key
// switch to s, switch to q.
void finish(const EvalData& ek, Workspace& w, Ciphertext& out) {
  settle(ek, w);
  const Params& p = ek.params;
  const std::size_t N = p.N;
  const u64 Q = p.Q, c = p.Q / 8;
  const std::uint32_t qks_mask = p.qks() - 1;
  auto to_ks = [&](u64 x) {
    return static_cast<std::uint32_t>(((static_cast<u128>(x) << p.log_qks) + Q / 2) / Q) & qks_mask;
  };
  std::vector<std::uint32_t> ext(N);
  ext[0] = to_ks(w.acc_a[0]);
  for (std::size_t j = 1; j < N; ++j) ext[j] = to_ks(w.acc_a[N - j] == 0 ? 0 : Q - w.acc_a[N - j]);
  const std::uint32_t b_ks = to_ks(ek.ring.mod.add(w.acc_b[0], c));
  const std::vector<std::uint32_t> ka = key_switch_raw(ek, ext, b_ks);
  const unsigned down = p.log_qks - p.log_q;
  const std::uint32_t qmask = p.q() - 1;
  out.params_id = p.id;
  out.a.resize(p.n);
  for (std::size_t t = 0; t < p.n; ++t) out.a[t] = ((ka[t] + (1u << (down - 1))) >> down) & qmask;
  out.b = ((ka[p.n] + (1u << (down - 1))) >> down) & qmask;
}

}  // namespace

void set_vector_kernels(bool on) noexcept { g_vector_kernels.store(on, std::memory_order_relaxed); }

// Several bootstraps walk the bootstrapping key together: key i's rows are read once from
// memory for the whole group and reused from cache (the key is tens of megabytes).
void bootstrap_batch(const EvalData& ek, std::span<const Lwe> in, std::span<Ciphertext> out, Task* t) {
  const Params& p = ek.params;
  const std::size_t N = p.N, two_n = 2 * N;
  const unsigned shift = static_cast<unsigned>(std::bit_width(two_n) - 1) - p.log_q;  // 2N / q
  std::vector<Workspace> ws;
  ws.reserve(in.size());
  // ACC = (0, X^-beta * tv), tv = Q/8 in every coefficient: the constant coefficient of
  // X^-phase * tv is +Q/8 for phase in [0, N) and -Q/8 for [N, 2N).
  const u64 c = p.Q / 8;
  for (const Lwe& x : in) {
    if (x.a.size() != p.n) throw std::invalid_argument("tempo::tfhe: bootstrap input has the wrong dimension");
    Workspace& w = ws.emplace_back(ek);
    const std::size_t beta = (static_cast<std::size_t>(x.b) << shift) & (two_n - 1);
    for (std::size_t j = 0; j < N; ++j) {
      const std::size_t e = (j + two_n - beta) & (two_n - 1);
      if (e < N) w.acc_b[e] = c;
      else w.acc_b[e - N] = p.Q - c;
    }
  }
  const std::size_t g = p.grouping, P = p.patterns();
  for (std::size_t i = 0; i < p.steps(); ++i) {
    if (t != nullptr) t->tick();  // one relaxed load per step (~70 us of work per bootstrap)
    for (std::size_t k = 0; k < in.size(); ++k) {
      std::uint32_t alphas[2], exps[kMaxPatterns];
      bool any = false;
      for (std::size_t x = 0; x < g; ++x) {
        alphas[x] = static_cast<std::uint32_t>((static_cast<std::size_t>(in[k].a[g * i + x]) << shift) & (two_n - 1));
        any |= alphas[x] != 0;
      }
      if (!any) continue;  // X^0 - 1 = 0 for every key (the a_i are public)
      for (std::size_t e = 0; e < P; ++e)
        exps[e] = cuda::pattern_exponent(alphas[0], g > 1 ? alphas[1] : 0, static_cast<std::uint32_t>(g),
                                         static_cast<std::uint32_t>(e), static_cast<std::uint32_t>(two_n));
      rotate_step(ek, ws[k], i, exps, k == 0);
    }
  }
  for (std::size_t k = 0; k < in.size(); ++k) finish(ek, ws[k], out[k]);
}

void bootstrap(const EvalData& ek, std::span<const std::uint32_t> a, std::uint32_t b, Ciphertext& out) {
  const Lwe in{std::vector<std::uint32_t>(a.begin(), a.end()), b};
  bootstrap_batch(ek, std::span<const Lwe>(&in, 1), std::span<Ciphertext>(&out, 1));
}

// (0, b) - sum_{i,j} K[i][j][digit_j(a_i)], mod Q_ks. Returns n+1 values (mask, then b).
// The rows are picked by public digits from a table of ~100 MB: their addresses are listed
// first, and each row is prefetched a few rows ahead, so the subtractions do not wait on
// one memory access after another.
std::vector<std::uint32_t> key_switch_raw(const EvalData& ek, std::span<const std::uint32_t> a,
                                          std::uint32_t b) {
  const Params& p = ek.params;
  const std::size_t row = ek.ks_row(), base = ek.ks_base();
  std::vector<std::uint16_t> acc(row, 0);
  acc[p.n] = static_cast<std::uint16_t>(b);
  const std::uint32_t dmask = (1u << p.log_bks) - 1;
  std::vector<const std::uint16_t*> rows;
  rows.reserve(p.N * p.ks_levels);
  for (std::size_t i = 0; i < p.N; ++i) {
    for (unsigned j = 0; j < p.ks_levels; ++j) {
      const std::uint32_t d = (a[i] >> (p.log_bks * j)) & dmask;
      if (d == 0) continue;  // public ciphertext digit
      rows.push_back(ek.ks.data() + ((i * p.ks_levels + j) * base + (d - 1)) * row);
    }
  }
  constexpr std::size_t kAhead = 4;  // rows
  const std::size_t row_bytes = row * sizeof(std::uint16_t);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (r + kAhead < rows.size()) {
      const char* next = reinterpret_cast<const char*>(rows[r + kAhead]);
      for (std::size_t o = 0; o < row_bytes; o += 64) __builtin_prefetch(next + o, 0, 3);
    }
    const std::uint16_t* k = rows[r];
    for (std::size_t t = 0; t < row; ++t) acc[t] = static_cast<std::uint16_t>(acc[t] - k[t]);
  }
  const std::uint32_t mask = p.qks() - 1;
  std::vector<std::uint32_t> out(row);
  for (std::size_t t = 0; t < row; ++t) out[t] = acc[t] & mask;
  return out;
}

}  // namespace tempo::tfhe::detail
