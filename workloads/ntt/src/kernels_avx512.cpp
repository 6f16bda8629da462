// AVX-512 kernel sets (this file alone is compiled with -mavx512f -mavx512dq -mavx512ifma;
// chosen at run time). IFMA needs q < 2^50, the 32-bit-word path q < 2^31.
#include <immintrin.h>

#include <cstddef>

#include "simd_ntt.hpp"

// GCC 12 warns inside its own avx512fintrin.h (_mm512_undefined_epi32) where the kernels
// are inlined at -O1 (the sanitizer builds): a false positive.
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tempo::ntt::detail {
namespace avx512 {
#include "ops_avx512.inc"
}  // namespace avx512
namespace {

// The range check of the checked entry points at this ISA's width (a separate scan: the
// 64-bit-lane kernels transform in place, and a failed check must leave `a` untouched).
// 64 values per step into two running maxima, so that vpmaxuq's latency stays off the
// critical path.
bool any_out_of_range_512(const u64* a, std::size_t n, u64 q) {
  const auto ld = [](const u64* p) { return _mm512_loadu_si512(p); };
  __m512i m0 = _mm512_setzero_si512(), m1 = _mm512_setzero_si512();
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i a01 = _mm512_max_epu64(ld(a + i), ld(a + i + 8)), a23 = _mm512_max_epu64(ld(a + i + 16), ld(a + i + 24));
    const __m512i a45 = _mm512_max_epu64(ld(a + i + 32), ld(a + i + 40)), a67 = _mm512_max_epu64(ld(a + i + 48), ld(a + i + 56));
    m0 = _mm512_max_epu64(m0, _mm512_max_epu64(a01, a23));
    m1 = _mm512_max_epu64(m1, _mm512_max_epu64(a45, a67));
  }
  for (; i < n; i += 16) m0 = _mm512_max_epu64(m0, _mm512_max_epu64(ld(a + i), ld(a + i + 8)));
  const __m512i vq = _mm512_set1_epi64(static_cast<long long>(q));
  return (_mm512_cmpge_epu64_mask(m0, vq) | _mm512_cmpge_epu64_mask(m1, vq)) != 0;
}

template <int S, bool Approx = false>
Kernels make(const char* name, unsigned bits) {
  using V = avx512::Ops512<S, Approx>;
  return Kernels{name, simd::forward<V>, simd::inverse<V>, simd::pointwise<V>, simd::prepare<V>, bits,
                 scan_then<simd::forward<V>, any_out_of_range_512>, scan_then<simd::inverse<V>, any_out_of_range_512>};
}

// The 32-bit-word path (kernels_avx512_w32.cpp) for n >= 32; n = 16 (one register) takes
// the portable loops, which read only the common tables.
void w32_fwd(const Tables& t, u64* a) {
  if (t.n < 32) return portable_kernels().forward(t, a);
  w32_forward(t, a, false);
}
void w32_inv(const Tables& t, u64* a) {
  if (t.n < 32) return portable_kernels().inverse(t, a);
  w32_inverse(t, a, false);
}
bool w32_fwd_checked(const Tables& t, u64* a) {
  if (t.n < 32) return scan_then<w32_fwd>(t, a);
  return w32_forward(t, a, true);
}
bool w32_inv_checked(const Tables& t, u64* a) {
  if (t.n < 32) return scan_then<w32_inv>(t, a);
  return w32_inverse(t, a, true);
}

}  // namespace

// Called only after dispatch.cpp (compiled without AVX-512) checked the CPU: code here may
// use AVX-512 anywhere, static initialisers included, so nothing runs before that check.
std::vector<const Kernels*> avx512_kernels_checked(bool ifma) {
  // 64-bit products: the three-product quotient up to q < 2^61, the exact one above.
  static const Kernels k64 = make<64, true>("avx512", 61);
  static const Kernels k64exact = make<64>("avx512-q62", 62);
  static const Kernels k52 = make<52>("avx512ifma", 50);
  // Pointwise products stay on 64-bit lanes (the operands are uint64 in memory).
  static const Kernels k32{"avx512-w32", w32_fwd, w32_inv, simd::pointwise<avx512::Ops512<32>>, w32_prepare, 31,
                           w32_fwd_checked, w32_inv_checked};
  std::vector<const Kernels*> v{&k32};
  if (ifma) v.push_back(&k52);
  v.push_back(&k64);
  v.push_back(&k64exact);
  return v;
}

}  // namespace tempo::ntt::detail
