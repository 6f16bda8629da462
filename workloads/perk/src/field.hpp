// Portable constant-time field arithmetic (no tables): GF(2^11) = GF(2)[x]/(x^11 + x^2 + 1),
// the tower GF(2^11)[Y]/(f(Y)) of degree 12, 18 or 24 (f = Y^12 + Y^3 + 1, Y^18 + Y^7 + 1,
// Y^24 + Y^17 + Y^11 + Y + 1; gf_poly_arithmetic.h), GF(2^64) (x^64 + x^4 + x^3 + x + 1) and
// GF(2^lambda) (x^128 + x^7 + x^2 + x + 1, x^192 + x^7 + x^2 + x + 1,
// x^256 + x^10 + x^5 + x^2 + 1; gf_arithmetic.c). Elements of the binary fields are arrays of
// 64-bit words, bit i the coefficient of x^i; tower elements arrays of 11-bit coefficients.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tempo::perk::detail {

inline constexpr std::uint16_t gf11_mask = 0x7FF;

// Carry-less product of two 11-bit values (21 bits).
inline std::uint32_t gf11_clmul(std::uint32_t a, std::uint32_t b) {
  std::uint32_t r = 0;
  for (unsigned t = 0; t < 11; ++t) r ^= (a << t) & (0u - ((b >> t) & 1u));
  return r;
}
// Reduction of up to 22 bits modulo x^11 + x^2 + 1 (gf_common_arithmetic.h sig_perk_gf2_q_reduce).
inline std::uint16_t gf11_reduce(std::uint32_t x) {
  for (int i = 0; i < 2; ++i) {
    const std::uint32_t hi = x >> 11;
    x = (x & gf11_mask) ^ hi ^ (hi << 2);
  }
  return static_cast<std::uint16_t>(x);
}
inline std::uint16_t gf11_mul(std::uint16_t a, std::uint16_t b) { return gf11_reduce(gf11_clmul(a, b)); }

// The tower modulus' low terms: Y^E = sum of Y^t over these t.
template <unsigned E>
struct TowerModulus;
template <>
struct TowerModulus<12> {
  static constexpr unsigned terms[] = {0, 3};
};
template <>
struct TowerModulus<18> {
  static constexpr unsigned terms[] = {0, 7};
};
template <>
struct TowerModulus<24> {
  static constexpr unsigned terms[] = {0, 1, 11, 17};
};

// acc: 2E-1 unreduced coefficient sums (any width the reduction accepts) -> E coefficients
// reduced modulo f(Y) and x^11 + x^2 + 1.
template <unsigned E, class T>
inline void tower_reduce(T* acc, std::uint16_t* out) {
  for (unsigned k = 2 * E - 2; k >= E; --k)
    for (unsigned t : TowerModulus<E>::terms) acc[k - E + t] ^= acc[k];
  for (unsigned i = 0; i < E; ++i) out[i] = gf11_reduce(static_cast<std::uint32_t>(acc[i]));
}

template <unsigned E>
inline void tower_mul_portable(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b) {
  std::uint32_t acc[2 * E - 1] = {};
  for (unsigned i = 0; i < E; ++i)
    for (unsigned j = 0; j < E; ++j) acc[i + j] ^= gf11_clmul(a[i], b[j]);
  tower_reduce<E>(acc, out);
}

// 64 x 64 -> 128 carry-less product, constant time.
inline void clmul64_portable(std::uint64_t a, std::uint64_t b, std::uint64_t& lo, std::uint64_t& hi) {
  std::uint64_t l = 0, h = 0;
  for (unsigned i = 0; i < 64; ++i) {
    const std::uint64_t m = 0 - ((b >> i) & 1u);
    l ^= (a << i) & m;
    h ^= (i == 0 ? 0 : a >> (64 - i)) & m;
  }
  lo = l;
  hi = h;
}

// x^64 + x^4 + x^3 + x + 1 (gf_common_arithmetic.c sig_perk_gf2_64_reduce).
inline std::uint64_t gf64_reduce(std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t t = hi ^ (hi >> 60) ^ (hi >> 61) ^ (hi >> 63);
  return lo ^ t ^ (t << 1) ^ (t << 3) ^ (t << 4);
}

// c: 2n words of a product -> n words modulo the GF(2^(64 n)) polynomial (n = 2, 3, 4).
inline void gf_lambda_reduce(unsigned n, std::uint64_t* c) {
  const bool big = n == 4;  // x^256 + x^10 + x^5 + x^2 + 1; else x^(64n) + x^7 + x^2 + x + 1
  for (unsigned k = 2 * n - 1; k >= n; --k) {
    const std::uint64_t v = c[k];
    if (big) {
      c[k - n] ^= (v << 10) ^ (v << 5) ^ (v << 2) ^ v;
      c[k - n + 1] ^= (v >> 54) ^ (v >> 59) ^ (v >> 62);
    } else {
      c[k - n] ^= (v << 7) ^ (v << 2) ^ (v << 1) ^ v;
      c[k - n + 1] ^= (v >> 57) ^ (v >> 62) ^ (v >> 63);
    }
  }
}

// The GF(2^lambda) product (n words) over a 64x64-bit carry-less multiply
// clmul(a, b, lo, hi): schoolbook, then gf_lambda_reduce. out may alias a or b.
template <class Clmul>
inline void gf_lambda_mul_with(Clmul clmul, unsigned n, std::uint64_t* out, const std::uint64_t* a,
                               const std::uint64_t* b) {
  std::uint64_t c[8] = {};
  for (unsigned i = 0; i < n; ++i)
    for (unsigned j = 0; j < n; ++j) {
      std::uint64_t lo, hi;
      clmul(a[i], b[j], lo, hi);
      c[i + j] ^= lo;
      c[i + j + 1] ^= hi;
    }
  gf_lambda_reduce(n, c);
  for (unsigned i = 0; i < n; ++i) out[i] = c[i];
}

inline void gf_lambda_mul_portable(unsigned n, std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b) {
  // A lambda, not the function: its own specialization, apart from the AES-NI file's.
  gf_lambda_mul_with([](std::uint64_t x, std::uint64_t y, std::uint64_t& lo, std::uint64_t& hi) {
    clmul64_portable(x, y, lo, hi);
  }, n, out, a, b);
}

inline std::uint64_t gf64_mul_portable(std::uint64_t a, std::uint64_t b) {
  std::uint64_t lo, hi;
  clmul64_portable(a, b, lo, hi);
  return gf64_reduce(lo, hi);
}

}  // namespace tempo::perk::detail
