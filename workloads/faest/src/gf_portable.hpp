// Portable constant-time carry-less multiplication: integer multiplies of operands with
// 3-bit holes (each bit class mod 4 sums at most 8 terms, so carries never reach the next
// bit of the same class). No branches or table lookups on the operands.
#pragma once

#include <cstdint>

#include "common.hpp"

namespace tempo::faest::detail::portable_gf {

inline std::uint64_t clmul32(std::uint32_t x, std::uint32_t y) {
  constexpr std::uint64_t m0 = 0x1111111111111111ull, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
  const std::uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
  const std::uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
  const std::uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
  const std::uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
  const std::uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
  const std::uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
  return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

// 64 x 64 -> 128 (Karatsuba over 32-bit halves).
inline void clmul64(std::uint64_t a, std::uint64_t b, std::uint64_t& lo, std::uint64_t& hi) {
  const std::uint32_t a0 = std::uint32_t(a), a1 = std::uint32_t(a >> 32);
  const std::uint32_t b0 = std::uint32_t(b), b1 = std::uint32_t(b >> 32);
  const std::uint64_t l = clmul32(a0, b0), h = clmul32(a1, b1);
  const std::uint64_t m = clmul32(a0 ^ a1, b0 ^ b1) ^ l ^ h;
  lo = l ^ (m << 32);
  hi = h ^ (m >> 32);
}

// Reduction of a 256-bit product modulo x^128 + x^7 + x^2 + x + 1.
inline gf128 reduce128(std::uint64_t c0, std::uint64_t c1, std::uint64_t c2, std::uint64_t c3) {
  c1 ^= c3 ^ (c3 << 1) ^ (c3 << 2) ^ (c3 << 7);
  c2 ^= (c3 >> 63) ^ (c3 >> 62) ^ (c3 >> 57);
  c0 ^= c2 ^ (c2 << 1) ^ (c2 << 2) ^ (c2 << 7);
  c1 ^= (c2 >> 63) ^ (c2 >> 62) ^ (c2 >> 57);
  return {c0, c1};
}

inline gf128 mul(gf128 a, gf128 b) {
  std::uint64_t l0, l1, h0, h1, m0, m1;
  clmul64(a.lo, b.lo, l0, l1);
  clmul64(a.hi, b.hi, h0, h1);
  clmul64(a.lo ^ a.hi, b.lo ^ b.hi, m0, m1);
  m0 ^= l0 ^ h0;
  m1 ^= l1 ^ h1;
  return reduce128(l0, l1 ^ m0, h0 ^ m1, h1);
}

// GF(2^64) = GF(2)[x] / (x^64 + x^4 + x^3 + x + 1).
inline std::uint64_t reduce64(std::uint64_t lo, std::uint64_t hi) {
  lo ^= hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);
  const std::uint64_t ov = (hi >> 63) ^ (hi >> 61) ^ (hi >> 60);
  return lo ^ ov ^ (ov << 1) ^ (ov << 3) ^ (ov << 4);
}
inline std::uint64_t mul64(std::uint64_t a, std::uint64_t b) {
  std::uint64_t lo, hi;
  clmul64(a, b, lo, hi);
  return reduce64(lo, hi);
}

// Reduction of an 8-word product modulo x^384 + x^12 + x^3 + x^2 + 1 (faest-ref bf384).
inline void reduce384(std::uint64_t c[8]) {
  for (int w = 7; w >= 6; --w) {
    const std::uint64_t t = c[w];
    c[w - 6] ^= t ^ (t << 2) ^ (t << 3) ^ (t << 12);
    c[w - 5] ^= (t >> 62) ^ (t >> 61) ^ (t >> 52);
  }
}

// Leaf commitment hash (faest-ref leaf_hash_128): u * x[0..16) + x[16..64) in GF(2^384).
inline void leaf_hash(std::uint8_t out[48], const std::uint8_t uhash[48], const std::uint8_t x[64]) {
  std::uint64_t u[6], c[8] = {};
  std::memcpy(u, uhash, 48);
  std::uint64_t x0, x1;
  std::memcpy(&x0, x, 8);
  std::memcpy(&x1, x + 8, 8);
  for (int i = 0; i < 6; ++i) {
    std::uint64_t lo, hi;
    clmul64(u[i], x0, lo, hi);
    c[i] ^= lo;
    c[i + 1] ^= hi;
    clmul64(u[i], x1, lo, hi);
    c[i + 1] ^= lo;
    c[i + 2] ^= hi;
  }
  reduce384(c);
  std::uint64_t t[6];
  std::memcpy(t, x + 16, 48);
  for (int i = 0; i < 6; ++i) c[i] ^= t[i];
  std::memcpy(out, c, 48);
}

}  // namespace tempo::faest::detail::portable_gf
