// AVX2 vector ops for simd_ntt.hpp: 4 lanes of 64 bits. S = 64 emulates the 64x64-bit
// products with vpmuludq (AVX2 has no 64-bit multiply); S = 32 (q < 2^30) needs one
// vpmuludq per product. Requires <immintrin.h> and -mavx2.
#pragma once

#include <immintrin.h>

#include "tables.hpp"

namespace tempo::ntt::detail::avx2 {

// Full 64x64 -> high 64 bits from four 32x32 products.
inline __m256i mulhi64(__m256i a, __m256i b) {
  const __m256i lo32 = _mm256_set1_epi64x(0xffffffff);
  const __m256i ah = _mm256_srli_epi64(a, 32), bh = _mm256_srli_epi64(b, 32);
  const __m256i ll = _mm256_mul_epu32(a, b), lh = _mm256_mul_epu32(a, bh);
  const __m256i hl = _mm256_mul_epu32(ah, b), hh = _mm256_mul_epu32(ah, bh);
  const __m256i mid = _mm256_add_epi64(_mm256_add_epi64(lh, _mm256_srli_epi64(ll, 32)), _mm256_and_si256(hl, lo32));
  return _mm256_add_epi64(_mm256_add_epi64(hh, _mm256_srli_epi64(hl, 32)), _mm256_srli_epi64(mid, 32));
}

// Low 64 bits of a 64x64 product.
inline __m256i mullo64(__m256i a, __m256i b) {
  const __m256i ll = _mm256_mul_epu32(a, b);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)),
                                         _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b));
  return _mm256_add_epi64(ll, _mm256_slli_epi64(cross, 32));
}

template <int Shift>
struct Ops {
  using reg = __m256i;
  static constexpr std::size_t L = 4;
  static constexpr int S = Shift;
  static constexpr int mul_bound = 2;  // mul_lazy's result is below 2q
  static constexpr int small_stages = 2;
  struct K {
    __m256i q;
  };
  static K make(u64 q) { return {_mm256_set1_epi64x(static_cast<long long>(q))}; }
  static reg load(const u64* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store(u64* p, reg v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static reg set1(u64 x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static reg add(reg a, reg b) { return _mm256_add_epi64(a, b); }
  static reg sub(reg a, reg b) { return _mm256_sub_epi64(a, b); }
  // x < 2m, m < 2^63 (x itself may reach 2^64 - 1): x - m has its top bit set exactly
  // when x < m, so a signed "< 0" gives the mask.
  static reg csub(reg x, reg m) {
    const reg y = _mm256_sub_epi64(x, m);
    const reg lt = _mm256_cmpgt_epi64(_mm256_setzero_si256(), y);
    return _mm256_add_epi64(y, _mm256_and_si256(lt, m));
  }
  static reg mul_lazy(reg y, reg w, reg ws, const K& k) {
    if constexpr (S == 32) {  // y, w, ws < 2^32; products < 2^62 are exact
      const reg hi = _mm256_srli_epi64(_mm256_mul_epu32(ws, y), 32);
      return _mm256_sub_epi64(_mm256_mul_epu32(w, y), _mm256_mul_epu32(hi, k.q));
    } else {
      const reg hi = mulhi64(ws, y);
      return _mm256_sub_epi64(mullo64(w, y), mullo64(hi, k.q));
    }
  }
  // Barrett (tables.hpp's formula) for the pointwise products: a, b < q, k = bit width of q.
  struct BK {
    __m256i q, mu, k_minus_1, k_plus_1, hi_shift, qhat_shift;
  };
  static BK make_barrett(const Barrett& b) {
    return {set1(b.q), set1(b.mu), set1(b.k - 1), set1(b.k + 1), set1(65 - b.k), set1(63 - b.k)};
  }
  static reg mul_mod(reg a, reg b, const BK& k) {
    reg r;
    if constexpr (S == 32) {  // q < 2^30: every product fits 64 bits
      const reg x = _mm256_mul_epu32(a, b);
      const reg qhat = _mm256_srlv_epi64(_mm256_mul_epu32(_mm256_srlv_epi64(x, k.k_minus_1), k.mu), k.k_plus_1);
      r = _mm256_sub_epi64(x, _mm256_mul_epu32(qhat, k.q));
    } else {
      const reg hi = mulhi64(a, b), lo = mullo64(a, b);
      const reg top = _mm256_or_si256(_mm256_sllv_epi64(hi, k.hi_shift), _mm256_srlv_epi64(lo, k.k_minus_1));
      const reg qhat = _mm256_or_si256(_mm256_sllv_epi64(mulhi64(top, k.mu), k.qhat_shift),
                                       _mm256_srlv_epi64(mullo64(top, k.mu), k.k_plus_1));
      r = _mm256_sub_epi64(lo, mullo64(qhat, k.q));
    }
    return csub(csub(r, add(k.q, k.q)), k.q);  // r < 3q
  }
  // s = 0: len 2, x = elements (0,1,4,5), y = (2,3,6,7). s = 1: len 1, x = (0,4,2,6), y = (1,5,3,7).
  static void split(int s, reg v0, reg v1, reg& x, reg& y) {
    if (s == 0) {
      x = _mm256_permute2x128_si256(v0, v1, 0x20);
      y = _mm256_permute2x128_si256(v0, v1, 0x31);
    } else {
      x = _mm256_unpacklo_epi64(v0, v1);
      y = _mm256_unpackhi_epi64(v0, v1);
    }
  }
  static void merge(int s, reg x, reg y, reg& v0, reg& v1) {
    if (s == 0) {
      v0 = _mm256_permute2x128_si256(x, y, 0x20);
      v1 = _mm256_permute2x128_si256(x, y, 0x31);
    } else {
      v0 = _mm256_unpacklo_epi64(x, y);
      v1 = _mm256_unpackhi_epi64(x, y);
    }
  }
  static int lane(int s, int which, int k) {
    static constexpr int idx[2][2][4] = {{{0, 1, 4, 5}, {2, 3, 6, 7}}, {{0, 4, 2, 6}, {1, 5, 3, 7}}};
    return idx[s][which][k];
  }
};

}  // namespace tempo::ntt::detail::avx2
