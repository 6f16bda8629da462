// Tower products (GF(2^11)[Y]/f(Y), degree 12, 18 and 24) with AVX-512 and PCLMULQDQ: the
// PKP proof's hot loop (about 8,000 products per level-1 signature).
//
// Kronecker substitution, as the SSE kernel: coefficients widened to 32-bit slots, two per
// 64-bit word, so one carry-less product gives three 21-bit coefficient sums, none reaching the
// next slot. Degree 12 multiplies its six words by two-level Karatsuba (18 products instead of
// 36: carry-less sums are XORs, so the middle terms are exact), folds Y^12 = Y^3 + 1 on 32-bit
// lanes and reduces every coefficient modulo x^11 + x^2 + 1 at once. Degrees 18 and 24 use the
// schoolbook product and the scalar fold. No branch or index depends on the operands.
#include <cstdint>

#include "field.hpp"
#include "tower.hpp"

#if defined(__AVX512BW__) && defined(__PCLMUL__)
// GCC 12 warns inside its own AVX-512 headers (the intrinsics' self-initialised "undefined"
// vectors, GCC PR 105593, fixed in GCC 13) once they are inlined here.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#define TEMPO_PERK_TOWER_AVX512 1
#endif

namespace tempo::perk::detail {
#if TEMPO_PERK_TOWER_AVX512
namespace {

// Both GF(2^11) reduction rounds on sixteen 32-bit lanes (each < 2^21 on entry).
inline __m512i gf11_reduce16(__m512i v) {
  const __m512i lo11 = _mm512_set1_epi32(0x7FF);
  for (int r = 0; r < 2; ++r) {
    const __m512i hi = _mm512_srli_epi32(v, 11);
    v = _mm512_xor_si512(_mm512_and_si512(v, lo11), _mm512_xor_si512(hi, _mm512_slli_epi32(hi, 2)));
  }
  return v;
}

// a (three words in low qwords) times b: c[k] is the 128-bit sum at word offset k, k = 0..4.
inline void karatsuba3(const __m128i* a, const __m128i* b, __m128i* c) {
  const __m128i p0 = _mm_clmulepi64_si128(a[0], b[0], 0x00);
  const __m128i p1 = _mm_clmulepi64_si128(a[1], b[1], 0x00);
  const __m128i p2 = _mm_clmulepi64_si128(a[2], b[2], 0x00);
  const __m128i p01 = _mm_clmulepi64_si128(_mm_xor_si128(a[0], a[1]), _mm_xor_si128(b[0], b[1]), 0x00);
  const __m128i p02 = _mm_clmulepi64_si128(_mm_xor_si128(a[0], a[2]), _mm_xor_si128(b[0], b[2]), 0x00);
  const __m128i p12 = _mm_clmulepi64_si128(_mm_xor_si128(a[1], a[2]), _mm_xor_si128(b[1], b[2]), 0x00);
  const __m128i s01 = _mm_xor_si128(p0, p1);
  c[0] = p0;
  c[1] = _mm_xor_si128(p01, s01);
  c[2] = _mm_xor_si128(p02, _mm_xor_si128(s01, p2));
  c[3] = _mm_xor_si128(p12, _mm_xor_si128(p1, p2));
  c[4] = p2;
}

// Twelve 11-bit coefficients -> six words in the low qwords of w[0..5].
inline void words12(const std::uint16_t* x, __m128i* w) {
  // 16 + 8 bytes, the sizes the caller stores (a masked load would not get them forwarded).
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
  const __m128i q0 = _mm_cvtepu16_epi32(lo), q1 = _mm_cvtepu16_epi32(_mm_srli_si128(lo, 8)),
                q2 = _mm_cvtepu16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + 8)));
  w[0] = q0;
  w[1] = _mm_unpackhi_epi64(q0, q0);
  w[2] = q1;
  w[3] = _mm_unpackhi_epi64(q1, q1);
  w[4] = q2;
  w[5] = _mm_unpackhi_epi64(q2, q2);
}

void tower12_avx512(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b) {
  __m128i A[6], B[6], S[3], T[3], M0[5], M1[5], M2[5];
  words12(a, A);
  words12(b, B);
  karatsuba3(A, B, M0);
  karatsuba3(A + 3, B + 3, M2);
  for (int i = 0; i < 3; ++i) {
    S[i] = _mm_xor_si128(A[i], A[i + 3]);
    T[i] = _mm_xor_si128(B[i], B[i + 3]);
  }
  karatsuba3(S, T, M1);
  // C[k]: the 128-bit sum at word offset k (k = 0..10) = M0 + (M0 + M1 + M2) z^3 + M2 z^6.
  __m128i C[12];
  for (int k = 0; k < 12; ++k) C[k] = _mm_setzero_si128();
  for (int k = 0; k < 5; ++k) {
    C[k] = _mm_xor_si128(C[k], M0[k]);
    C[k + 3] = _mm_xor_si128(C[k + 3], _mm_xor_si128(M1[k], _mm_xor_si128(M0[k], M2[k])));
    C[k + 6] = _mm_xor_si128(C[k + 6], M2[k]);
  }
  // Product words 2m, 2m+1 = C[2m] + C[2m+1] << 64 + C[2m-1] >> 64: slots 0..23, assembled
  // in registers (a reload through memory would stall on store forwarding).
  __m128i R[6];
  for (int m = 0; m < 6; ++m) {
    R[m] = _mm_xor_si128(C[2 * m], _mm_slli_si128(C[2 * m + 1], 8));
    if (m > 0) R[m] = _mm_xor_si128(R[m], _mm_srli_si128(C[2 * m - 1], 8));
  }
  const __m512i L = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(R[1], R[0])), _mm256_set_m128i(R[3], R[2]), 1);
  const __m512i Z = _mm512_castsi256_si512(_mm256_set_m128i(R[5], R[4])), zero = _mm512_setzero_si512();
  // Fold the high slots H = c12..c22 with Y^12 = Y^3 + 1: H + H Y^3, whose Y^12 and Y^13
  // terms (from c21, c22) fold once more.
  const __m512i H = _mm512_alignr_epi32(Z, L, 12);
  __m512i X = _mm512_xor_si512(H, _mm512_alignr_epi32(H, zero, 13));
  const __m512i top = _mm512_alignr_epi32(zero, X, 12);
  X = _mm512_xor_si512(X, _mm512_xor_si512(top, _mm512_alignr_epi32(top, zero, 13)));
  // Two plain stores (16 + 8 bytes), not a masked one: the caller reads the product back at
  // once, and a masked store does not forward to those loads.
  const __m256i r = _mm512_cvtepi32_epi16(gf11_reduce16(_mm512_xor_si512(L, X)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(r));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out + 8), _mm256_extracti128_si256(r, 1));
}

// Degrees 18 and 24: schoolbook over the words, the scalar fold, the vector reduction. Loads
// and stores are whole vectors plus a tail of 4 (degree 18) or 16 (degree 24) bytes, so that
// they forward from and to the caller's plain copies.
template <unsigned E>
void tower_avx512(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b) {
  static_assert(E == 18 || E == 24);
  constexpr unsigned W = E / 2;
  alignas(64) std::uint64_t A[16], B[16];
  const auto widen = [](const std::uint16_t* x, std::uint64_t* w) {
    _mm512_store_si512(w, _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x))));
    if constexpr (E == 18)
      _mm_store_si128(reinterpret_cast<__m128i*>(w + 8),
                      _mm_cvtepu16_epi32(_mm_cvtsi32_si128(static_cast<int>(x[16] | std::uint32_t{x[17]} << 16))));
    else
      _mm256_store_si256(reinterpret_cast<__m256i*>(w + 8),
                         _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + 16))));
  };
  widen(a, A);
  widen(b, B);
  __m128i Ev[W], Od[W];  // word offsets 2m and 2m + 1
  for (unsigned m = 0; m < W; ++m) Ev[m] = Od[m] = _mm_setzero_si128();
  for (unsigned i = 0; i < W; ++i) {
    const __m128i ai = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(A + i));
    for (unsigned j = 0; j < W; ++j) {
      const __m128i p = _mm_clmulepi64_si128(ai, _mm_loadl_epi64(reinterpret_cast<const __m128i*>(B + j)), 0x00);
      __m128i& acc = (i + j) % 2 == 0 ? Ev[(i + j) / 2] : Od[(i + j) / 2];
      acc = _mm_xor_si128(acc, p);
    }
  }
  alignas(64) std::uint32_t slot[4 * W + 16] = {};
  for (unsigned m = 0; m < W; ++m) {
    __m128i r = _mm_xor_si128(Ev[m], _mm_slli_si128(Od[m], 8));
    if (m > 0) r = _mm_xor_si128(r, _mm_srli_si128(Od[m - 1], 8));
    _mm_store_si128(reinterpret_cast<__m128i*>(slot + 4 * m), r);
  }
  for (unsigned k = 2 * E - 2; k >= E; --k)
    for (unsigned t : TowerModulus<E>::terms) slot[k - E + t] ^= slot[k];
  const __m256i lo = _mm512_cvtepi32_epi16(gf11_reduce16(_mm512_load_si512(slot)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), lo);
  const __m256i hi = _mm512_cvtepi32_epi16(gf11_reduce16(_mm512_load_si512(slot + 16)));
  if constexpr (E == 18)
    _mm_storeu_si32(out + 16, _mm256_castsi256_si128(hi));
  else
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm256_castsi256_si128(hi));
}

}  // namespace

const TowerMuls* avx512_tower_muls() {
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                         __builtin_cpu_supports("pclmul");
  static const TowerMuls t{&tower12_avx512, &tower_avx512<18>, &tower_avx512<24>};
  return ok ? &t : nullptr;
}
#else
const TowerMuls* avx512_tower_muls() { return nullptr; }  // built without the x86 flags
#endif

}  // namespace tempo::perk::detail
