// Portable constant-time carry-less multiplication: integer multiplies of operands with
// 3-bit holes (each bit class mod 4 sums at most 8 terms, so carries never reach the next
// bit of the same class). No branches or table lookups on the operands.
#pragma once

#include <cstdint>

#include <tempo/voleith/detail/clmul_device.hpp>

#include "common.hpp"

namespace tempo::faest::detail::portable_gf {

// 32 x 32 -> 64 and 64 x 64 -> 128 (Karatsuba over 32-bit halves): tempo::voleith's, which
// its device code shares.
using voleith::dev::clmul32;
using voleith::dev::clmul64;

// Reduction of a 256-bit product modulo x^128 + x^7 + x^2 + x + 1.
TEMPO_FAEST_HD gf128 reduce128(std::uint64_t c0, std::uint64_t c1, std::uint64_t c2, std::uint64_t c3) {
  c1 ^= c3 ^ (c3 << 1) ^ (c3 << 2) ^ (c3 << 7);
  c2 ^= (c3 >> 63) ^ (c3 >> 62) ^ (c3 >> 57);
  c0 ^= c2 ^ (c2 << 1) ^ (c2 << 2) ^ (c2 << 7);
  c1 ^= (c2 >> 63) ^ (c2 >> 62) ^ (c2 >> 57);
  return {c0, c1};
}

TEMPO_FAEST_HD gf128 mul(gf128 a, gf128 b) {
  std::uint64_t l0, l1, h0, h1, m0, m1;
  clmul64(a.lo, b.lo, l0, l1);
  clmul64(a.hi, b.hi, h0, h1);
  clmul64(a.lo ^ a.hi, b.lo ^ b.hi, m0, m1);
  m0 ^= l0 ^ h0;
  m1 ^= l1 ^ h1;
  return reduce128(l0, l1 ^ m0, h0 ^ m1, h1);
}

// GF(2^64) = GF(2)[x] / (x^64 + x^4 + x^3 + x + 1).
TEMPO_FAEST_HD std::uint64_t reduce64(std::uint64_t lo, std::uint64_t hi) {
  lo ^= hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);
  const std::uint64_t ov = (hi >> 63) ^ (hi >> 61) ^ (hi >> 60);
  return lo ^ ov ^ (ov << 1) ^ (ov << 3) ^ (ov << 4);
}
TEMPO_FAEST_HD std::uint64_t mul64(std::uint64_t a, std::uint64_t b) {
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

namespace tempo::faest::detail {
// The field of the GPU batch path's device code (and of its host emulation): the portable
// products, on either side.
struct DeviceField {
  TEMPO_FAEST_HD static gf128 mul(gf128 a, gf128 b) { return portable_gf::mul(a, b); }
  TEMPO_FAEST_HD static std::uint64_t mul64(std::uint64_t a, std::uint64_t b) { return portable_gf::mul64(a, b); }
};
}  // namespace tempo::faest::detail
