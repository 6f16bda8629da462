// Carry-less products for the GPU kernels (no carry-less multiply instruction there): 32x32
// bits by integer multiplies of the operands' bits 4 apart (each product's carries stay in
// the 3 bits between), 64x64 by Karatsuba over three of those. Constant time. Compiled for
// the device and the host (the families' emulation tests), like aes_planes.hpp.
#pragma once

#include <tempo/voleith/detail/aes_planes.hpp>

namespace tempo::voleith::dev {

TEMPO_VOLEITH_HD u64 clmul32(u32 x, u32 y) {
  constexpr u64 m0 = 0x1111111111111111ull, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
  const u64 x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
  const u64 y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
  const u64 z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
  const u64 z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
  const u64 z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
  const u64 z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
  return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

TEMPO_VOLEITH_HD void clmul64(u64 a, u64 b, u64& lo, u64& hi) {
  const u32 a0 = u32(a), a1 = u32(a >> 32), b0 = u32(b), b1 = u32(b >> 32);
  const u64 l = clmul32(a0, b0), h = clmul32(a1, b1);
  const u64 m = clmul32(a0 ^ a1, b0 ^ b1) ^ l ^ h;
  lo = l ^ (m << 32);
  hi = h ^ (m >> 32);
}

}  // namespace tempo::voleith::dev
