// The AVX-512 lane logic (ops_avx512.inc) run on any CPU: the same source, with the ~20
// intrinsics it uses defined here in plain C++ after Intel's descriptions. Catches wrong
// permutation indices, twiddle layout or IFMA use where no AVX-512 hardware is present
// (the real instructions are checked by [paths] on the device host).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "reference.hpp"
#include "simd_ntt.hpp"

namespace emu {
using tempo::ntt::detail::Barrett;
using tempo::ntt::detail::u128;
using tempo::ntt::detail::u64;
struct __m512i {
  u64 v[8];
};
#define EMU_MAP(expr)        \
  __m512i r;                 \
  for (int i = 0; i < 8; ++i) r.v[i] = (expr); \
  return r
inline __m512i _mm512_loadu_si512(const void* p) {
  __m512i r;
  std::memcpy(r.v, p, 64);
  return r;
}
inline void _mm512_storeu_si512(void* p, __m512i a) { std::memcpy(p, a.v, 64); }
struct __m128i {
  u64 v[2];
};
struct __m256i {
  u64 v[4];
};
inline __m128i _mm_loadu_si128(const __m128i* p) {
  __m128i r;
  std::memcpy(r.v, p, 16);
  return r;
}
inline __m256i _mm256_loadu_si256(const __m256i* p) {
  __m256i r;
  std::memcpy(r.v, p, 32);
  return r;
}
inline __m512i _mm512_broadcast_i64x2(__m128i a) { EMU_MAP(a.v[i % 2]); }
inline __m512i _mm512_broadcast_i64x4(__m256i a) { EMU_MAP(a.v[i % 4]); }
inline __m512i _mm512_set1_epi64(long long x) { EMU_MAP(static_cast<u64>(x)); }
inline __m512i _mm512_setzero_si512() { EMU_MAP(0); }
inline __m512i _mm512_add_epi64(__m512i a, __m512i b) { EMU_MAP(a.v[i] + b.v[i]); }
inline __m512i _mm512_sub_epi64(__m512i a, __m512i b) { EMU_MAP(a.v[i] - b.v[i]); }
inline __m512i _mm512_and_si512(__m512i a, __m512i b) { EMU_MAP(a.v[i] & b.v[i]); }
inline __m512i _mm512_or_si512(__m512i a, __m512i b) { EMU_MAP(a.v[i] | b.v[i]); }
inline __m512i _mm512_sllv_epi64(__m512i a, __m512i c) { EMU_MAP(c.v[i] > 63 ? 0 : a.v[i] << c.v[i]); }
inline __m512i _mm512_srlv_epi64(__m512i a, __m512i c) { EMU_MAP(c.v[i] > 63 ? 0 : a.v[i] >> c.v[i]); }
inline __m512i _mm512_min_epu64(__m512i a, __m512i b) { EMU_MAP(a.v[i] < b.v[i] ? a.v[i] : b.v[i]); }
inline __m512i _mm512_max_epu64(__m512i a, __m512i b) { EMU_MAP(a.v[i] > b.v[i] ? a.v[i] : b.v[i]); }
inline unsigned _mm512_cmpge_epu64_mask(__m512i a, __m512i b) {
  unsigned m = 0;
  for (int i = 0; i < 8; ++i) m |= (a.v[i] >= b.v[i] ? 1u : 0u) << i;
  return m;
}
inline __m512i _mm512_srli_epi64(__m512i a, unsigned s) { EMU_MAP(s > 63 ? 0 : a.v[i] >> s); }
inline __m512i _mm512_mul_epu32(__m512i a, __m512i b) { EMU_MAP((a.v[i] & 0xffffffffu) * (b.v[i] & 0xffffffffu)); }
inline __m512i _mm512_mullo_epi64(__m512i a, __m512i b) { EMU_MAP(a.v[i] * b.v[i]); }
constexpr u64 m52 = (u64{1} << 52) - 1;
inline __m512i _mm512_madd52lo_epu64(__m512i a, __m512i b, __m512i c) {
  EMU_MAP(a.v[i] + static_cast<u64>((static_cast<u128>(b.v[i] & m52) * (c.v[i] & m52)) & m52));
}
inline __m512i _mm512_madd52hi_epu64(__m512i a, __m512i b, __m512i c) {
  EMU_MAP(a.v[i] + static_cast<u64>((static_cast<u128>(b.v[i] & m52) * (c.v[i] & m52)) >> 52));
}
inline __m512i _mm512_permutex2var_epi64(__m512i a, __m512i idx, __m512i b) {
  EMU_MAP((idx.v[i] & 8) ? b.v[idx.v[i] & 7] : a.v[idx.v[i] & 7]);
}
#undef EMU_MAP
#include "ops_avx512.inc"
}  // namespace emu

using namespace ntt_test;
namespace d = tempo::ntt::detail;

template <int S, bool Approx = false>
static void check(u64 q) {
  using V = emu::Ops512<S, Approx>;
  const d::Kernels k{"emu", d::simd::forward<V>, d::simd::inverse<V>, d::simd::pointwise<V>, d::simd::prepare<V>, 62,
                     d::scan_then<d::simd::forward<V>>, d::scan_then<d::simd::inverse<V>>};
  for (std::size_t n = 16; n <= 4096; n *= 2) {
    if (q % (2 * n) != 1) continue;
    INFO("S = " << S << ", n = " << n << ", q = " << q);
    const u64 psi = d::minimal_root(n, q);
    const auto ref = d::build_tables(n, q, psi, d::portable_kernels());
    const auto t = d::build_tables(n, q, psi, k);
    Rng r(n + q);
    for (int rep = 0; rep < 3; ++rep) {
      auto a = random_poly(r, n, q);
      if (rep == 0) std::fill(a.begin(), a.end(), q - 1);
      auto x = a, y = a;
      ref->kernels->forward(*ref, x.data());
      k.forward(*t, y.data());
      REQUIRE(x == y);
      k.inverse(*t, y.data());
      REQUIRE(y == a);
      // the fused checks (through a scratch): the same bytes, the scratch left zero; a
      // value >= q: false, a untouched
      std::vector<u64> s(n, 0), z = a;
      REQUIRE(d::simd::forward_into<V, true>(*t, z.data(), s.data()));
      REQUIRE(z == x);
      REQUIRE(std::count(s.begin(), s.end(), u64{0}) == static_cast<std::ptrdiff_t>(n));
      REQUIRE(d::simd::inverse_into<V, true>(*t, z.data(), s.data()));
      REQUIRE(z == a);
      REQUIRE(std::count(s.begin(), s.end(), u64{0}) == static_cast<std::ptrdiff_t>(n));
      for (std::size_t i : {std::size_t{0}, n / 2 + 1, n - 1}) {
        auto b = a;
        b[i] = q + static_cast<u64>(rep);
        const auto copy = b;
        REQUIRE_FALSE(d::simd::forward_into<V, true>(*t, b.data(), s.data()));
        REQUIRE(b == copy);
        REQUIRE_FALSE(d::simd::inverse_into<V, true>(*t, b.data(), s.data()));
        REQUIRE(b == copy);
      }
      // pointwise products (x: a transform, fully reduced), plain and accumulating
      auto p1 = a, p2 = a, acc1 = x, acc2 = x;
      ref->kernels->pointwise(*ref, a.data(), x.data(), p1.data(), false);
      k.pointwise(*t, a.data(), x.data(), p2.data(), false);
      REQUIRE(p1 == p2);
      ref->kernels->pointwise(*ref, a.data(), x.data(), acc1.data(), true);
      k.pointwise(*t, a.data(), x.data(), acc2.data(), true);
      REQUIRE(acc1 == acc2);
    }
  }
}

TEST_CASE("AVX-512 lane logic, emulated", "[paths]") {
  check<32>(8380417);
  check<32>(134215681);
  check<52>(134215681);
  check<52>(1125899903827969ull);
  check<64>(18014398509404161ull);
  check<64>(4611686018425815041ull);
  check<64, true>(18014398509404161ull);
  check<64, true>(2305843009211662337ull);  // just below 2^61: the widest q of the three-product form
}
