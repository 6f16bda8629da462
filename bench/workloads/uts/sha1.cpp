#include "sha1.hpp"

#include <cstring>
#include <stdexcept>

namespace tb::uts {
namespace {
inline std::uint32_t rol(std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
}  // namespace

void sha1_short(const std::uint8_t* msg, std::size_t len, std::uint8_t out[20]) {
  if (len > 55) throw std::invalid_argument("sha1_short: message longer than 55 bytes");
  std::uint8_t block[64] = {};
  std::memcpy(block, msg, len);
  block[len] = 0x80;
  const std::uint64_t bits = static_cast<std::uint64_t>(len) * 8;
  for (int i = 0; i < 8; ++i) block[63 - i] = static_cast<std::uint8_t>(bits >> (8 * i));

  std::uint32_t w[80];
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t{block[4 * i]} << 24) | (std::uint32_t{block[4 * i + 1]} << 16) |
           (std::uint32_t{block[4 * i + 2]} << 8) | std::uint32_t{block[4 * i + 3]};
  for (int i = 16; i < 80; ++i) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);

  const std::uint32_t h0 = 0x67452301, h1 = 0xEFCDAB89, h2 = 0x98BADCFE, h3 = 0x10325476, h4 = 0xC3D2E1F0;
  std::uint32_t a = h0, b = h1, c = h2, d = h3, e = h4;
  // Four branch-free loops (one per round function) keep a..e in registers.
#define TB_SHA1_ROUND(F, K)                      \
  {                                              \
    std::uint32_t tmp = rol(a, 5) + (F) + e + (K) + w[i]; \
    e = d;                                       \
    d = c;                                       \
    c = rol(b, 30);                              \
    b = a;                                       \
    a = tmp;                                     \
  }
  for (int i = 0; i < 20; ++i) TB_SHA1_ROUND((b & c) | (~b & d), 0x5A827999u)
  for (int i = 20; i < 40; ++i) TB_SHA1_ROUND(b ^ c ^ d, 0x6ED9EBA1u)
  for (int i = 40; i < 60; ++i) TB_SHA1_ROUND((b & c) | (b & d) | (c & d), 0x8F1BBCDCu)
  for (int i = 60; i < 80; ++i) TB_SHA1_ROUND(b ^ c ^ d, 0xCA62C1D6u)
#undef TB_SHA1_ROUND
  const std::uint32_t h[5] = {h0 + a, h1 + b, h2 + c, h3 + d, h4 + e};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(h[i] >> (24 - 8 * j));
}

}  // namespace tb::uts
