// GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1): a 256-bit carry-less product reduced
// to 128 bits, in every 128-bit lane of an __m128i (the AES-NI backend's NiField::mul,
// vaes512.hpp's dot8) or of an __m512i (vaes512.hpp's reduce4: four products per register).
//
// One fold for both widths: gf128_reduce is a template with no target of its own, always
// inlined into its callers (whose targets have the width's instructions), and it reaches the
// instructions only through the overloads in gf128_lanes, which take and give vectors by
// reference: a 512-bit vector passed or returned by value in code without AVX-512 changes
// the ABI (GCC's -Wpsabi), even where every call is inlined.
#pragma once
#include <immintrin.h>

namespace tempo::faest::detail {
namespace {  // per translation unit, as in backend_ni_common.hpp: its includers have different flags

namespace gf128_lanes {
// r = x^7 + x^2 + x + 1 (0x87) in the low 64-bit word of every 128-bit lane.
inline void set_poly(__m128i& r) { r = _mm_set_epi64x(0, 0x87); }
inline void add(__m128i& acc, const __m128i& t) { acc = _mm_xor_si128(acc, t); }
// Per 128-bit lane: t = a's high 64-bit word times b's low one; t = low times low.
inline void clmul_hi_lo(__m128i& t, const __m128i& a, const __m128i& b) { t = _mm_clmulepi64_si128(a, b, 0x01); }
inline void clmul_lo_lo(__m128i& t, const __m128i& a, const __m128i& b) { t = _mm_clmulepi64_si128(a, b, 0x00); }
// Per 128-bit lane, t added one 64-bit word up into (lo, hi): lo ^= t << 64, hi ^= t >> 64.
inline void add_word_up(__m128i& lo, __m128i& hi, const __m128i& t) {
  hi = _mm_xor_si128(hi, _mm_srli_si128(t, 8));
  lo = _mm_xor_si128(lo, _mm_slli_si128(t, 8));
}

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,vpclmulqdq")
inline void set_poly(__m512i& r) { r = _mm512_maskz_set1_epi64(0x55, 0x87); }
inline void add(__m512i& acc, const __m512i& t) { acc = _mm512_xor_si512(acc, t); }
inline void clmul_hi_lo(__m512i& t, const __m512i& a, const __m512i& b) { t = _mm512_clmulepi64_epi128(a, b, 0x01); }
inline void clmul_lo_lo(__m512i& t, const __m512i& a, const __m512i& b) { t = _mm512_clmulepi64_epi128(a, b, 0x00); }
inline void add_word_up(__m512i& lo, __m512i& hi, const __m512i& t) {
  hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128(t, 8));
  lo = _mm512_xor_si512(lo, _mm512_bslli_epi128(t, 8));
}
#pragma GCC pop_options
}  // namespace gf128_lanes

// (lo, hi): per 128-bit lane, the low and high halves of a 256-bit carry-less product; lo
// becomes the product reduced, hi is overwritten. V: __m128i or __m512i.
template <class V>
[[gnu::always_inline]] inline void gf128_reduce(V& lo, V& hi) {
  // Fold the top word into words 1-2, then word 2 into words 0-1.
  V r, t;
  gf128_lanes::set_poly(r);
  gf128_lanes::clmul_hi_lo(t, hi, r);
  gf128_lanes::add_word_up(lo, hi, t);
  gf128_lanes::clmul_lo_lo(t, hi, r);
  gf128_lanes::add(lo, t);
}

}  // namespace
}  // namespace tempo::faest::detail
