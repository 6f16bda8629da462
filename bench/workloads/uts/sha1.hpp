// SHA-1 of a short message (< 56 bytes, one block): all that UTS's splittable
// random number generator needs. Portable, so the numbers do not depend on a
// crypto library being present on the benchmark host.
//
// Inline, so that a call with a constant length (every UTS call: 20 or 24
// bytes) folds the padding and the big-endian loads into constants and
// register moves. Out of line, with the length unknown, it cost UTS T3 twice
// the per-node time of the same algorithm in bench/rayon (Rust inlines it),
// which made absolute ns per node incomparable across the two suites.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tb::uts {

// Throws std::invalid_argument (out of line: the error path stays cold).
[[noreturn]] void sha1_too_long(std::size_t len);

[[gnu::always_inline]] inline void sha1_short(const std::uint8_t* msg, std::size_t len, std::uint8_t out[20]) {
  if (len > 55) [[unlikely]]
    sha1_too_long(len);
  // The one padded block, as 16 big-endian words.
  std::uint32_t w[16] = {};
  for (std::size_t i = 0; i < len; ++i) w[i / 4] |= std::uint32_t{msg[i]} << (24 - 8 * (i % 4));
  w[len / 4] |= std::uint32_t{0x80} << (24 - 8 * (len % 4));
  w[15] = static_cast<std::uint32_t>(len * 8);  // the bit length; its high word (w[14]) is 0

  const auto rol = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };
  std::uint32_t a = 0x67452301u, b = 0xEFCDAB89u, c = 0x98BADCFEu, d = 0x10325476u, e = 0xC3D2E1F0u;
  // The message schedule in a 16-word ring (w[i] for i >= 16 is computed in
  // place of w[i - 16]), the 80 rounds unrolled: every index is a constant,
  // so a..e and most of the ring live in registers.
#define TB_SHA1_STEP(i, F, K)                                                                    \
  {                                                                                              \
    if ((i) >= 16)                                                                               \
      w[(i) & 15] = rol(w[((i) - 3) & 15] ^ w[((i) - 8) & 15] ^ w[((i) - 14) & 15] ^ w[(i) & 15], 1); \
    const std::uint32_t tmp = rol(a, 5) + (F) + e + (K) + w[(i) & 15];                             \
    e = d;                                                                                       \
    d = c;                                                                                       \
    c = rol(b, 30);                                                                              \
    b = a;                                                                                       \
    a = tmp;                                                                                     \
  }
#pragma GCC unroll 20
  for (int i = 0; i < 20; ++i) TB_SHA1_STEP(i, (b & c) | (~b & d), 0x5A827999u)
#pragma GCC unroll 20
  for (int i = 20; i < 40; ++i) TB_SHA1_STEP(i, b ^ c ^ d, 0x6ED9EBA1u)
#pragma GCC unroll 20
  for (int i = 40; i < 60; ++i) TB_SHA1_STEP(i, (b & c) | (b & d) | (c & d), 0x8F1BBCDCu)
#pragma GCC unroll 20
  for (int i = 60; i < 80; ++i) TB_SHA1_STEP(i, b ^ c ^ d, 0xCA62C1D6u)
#undef TB_SHA1_STEP
  const std::uint32_t h[5] = {0x67452301u + a, 0xEFCDAB89u + b, 0x98BADCFEu + c, 0x10325476u + d,
                              0xC3D2E1F0u + e};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(h[i] >> (24 - 8 * j));
}

}  // namespace tb::uts
