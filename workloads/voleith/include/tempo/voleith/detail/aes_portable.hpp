// Constant-time portable Rijndael: AES-128 (FAEST's PRG and OWF, PERK's PRG at level 1),
// AES-256 (the tests' NIST DRBG) and Rijndael-256 (256-bit blocks and keys: PERK's PRG at
// levels 3 and 5), with no table indexed by data. The S-box runs on bit planes, 64 bytes per
// pass: x^254 in GF(2^8) by AND/XOR gates, then the affine map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tempo::voleith::ct {

// 8x8 bit-matrix transpose: bit (8*j + b) moves to (8*b + j).
inline std::uint64_t transpose8(std::uint64_t x) {
  std::uint64_t t;
  t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x = x ^ t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x = x ^ t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  x = x ^ t ^ (t << 28);
  return x;
}

inline std::uint64_t load64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline void store64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// 64 bytes -> 8 planes: bit j of plane b is bit b of byte j.
inline void to_planes(const std::uint8_t* bytes, std::uint64_t p[8]) {
  for (int b = 0; b < 8; ++b) p[b] = 0;
  for (int g = 0; g < 8; ++g) {
    const std::uint64_t x = transpose8(load64(bytes + 8 * g));
    for (int b = 0; b < 8; ++b) p[b] |= ((x >> (8 * b)) & 0xff) << (8 * g);
  }
}
inline void from_planes(const std::uint64_t p[8], std::uint8_t* bytes) {
  for (int g = 0; g < 8; ++g) {
    std::uint64_t x = 0;
    for (int b = 0; b < 8; ++b) x |= ((p[b] >> (8 * g)) & 0xff) << (8 * b);
    store64(bytes + 8 * g, transpose8(x));
  }
}

// GF(2^8) (x^8 + x^4 + x^3 + x + 1) product on planes.
inline void gf8_mul_planes(const std::uint64_t a[8], const std::uint64_t b[8], std::uint64_t r[8]) {
  std::uint64_t c[15] = {};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) c[i + j] ^= a[i] & b[j];
  for (int i = 14; i >= 8; --i) {
    c[i - 4] ^= c[i];
    c[i - 5] ^= c[i];
    c[i - 7] ^= c[i];
    c[i - 8] ^= c[i];
  }
  for (int i = 0; i < 8; ++i) r[i] = c[i];
}

inline void sbox_planes(std::uint64_t p[8]) {
  // x^254 = x^-1 (0 -> 0): x^2, x^3, x^6, x^12, x^15, x^30, x^60, x^120, x^240, x^252, x^254.
  std::uint64_t x2[8], x3[8], x12[8], x15[8], t[8];
  gf8_mul_planes(p, p, x2);
  gf8_mul_planes(x2, p, x3);
  gf8_mul_planes(x3, x3, t);
  gf8_mul_planes(t, t, x12);
  gf8_mul_planes(x12, x3, x15);
  gf8_mul_planes(x15, x15, t);
  gf8_mul_planes(t, t, t);
  gf8_mul_planes(t, t, t);
  gf8_mul_planes(t, t, t);
  gf8_mul_planes(t, x12, t);
  gf8_mul_planes(t, x2, t);
  // Affine map: b_i = a_i ^ a_{i+4} ^ a_{i+5} ^ a_{i+6} ^ a_{i+7} ^ c_i, c = 0x63.
  for (int i = 0; i < 8; ++i) {
    std::uint64_t v = t[i] ^ t[(i + 4) % 8] ^ t[(i + 5) % 8] ^ t[(i + 6) % 8] ^ t[(i + 7) % 8];
    if ((0x63 >> i) & 1) v = ~v;  // a public constant, not data
    p[i] = v;
  }
}

// The S-box on n bytes in place, 64 bytes per pass.
inline void sub_bytes(std::uint8_t* bytes, std::size_t n) {
  std::uint8_t buf[64];
  for (std::size_t off = 0; off < n; off += 64) {
    const std::size_t m = n - off < 64 ? n - off : 64;
    std::memset(buf, 0, sizeof buf);
    std::memcpy(buf, bytes + off, m);
    std::uint64_t p[8];
    to_planes(buf, p);
    sbox_planes(p);
    from_planes(p, buf);
    std::memcpy(bytes + off, buf, m);
  }
  std::memset(buf, 0, sizeof buf);
}

inline std::uint8_t xtime(std::uint8_t x) {
  const unsigned v = x;
  return static_cast<std::uint8_t>((v << 1) ^ (0x1bu & (0u - (v >> 7))));
}
// Constant-time GF(2^8) product (scalar; for witnesses, not the hot path).
inline std::uint8_t gf8_mul(std::uint8_t a, std::uint8_t b) {
  std::uint8_t r = 0;
  for (int i = 0; i < 8; ++i) {
    r = static_cast<std::uint8_t>(r ^ (a & (0u - ((b >> i) & 1u))));
    a = xtime(a);
  }
  return r;
}

// ShiftRows for nb columns (4: AES; 8: Rijndael-256, row offsets 0, 1, 3, 4).
inline void shift_rows(std::uint8_t* s, unsigned nb = 4) {
  std::uint8_t t[32];
  const unsigned off[4] = {0, 1, nb == 8 ? 3u : 2u, nb == 8 ? 4u : 3u};
  for (unsigned c = 0; c < nb; ++c)
    for (unsigned r = 0; r < 4; ++r) t[4 * c + r] = s[4 * ((c + off[r]) % nb) + r];
  std::memcpy(s, t, 4 * nb);
}
inline void mix_columns(std::uint8_t* s, unsigned nb = 4) {
  for (unsigned c = 0; c < nb; ++c) {
    std::uint8_t* a = s + 4 * c;
    const std::uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    const auto all = static_cast<std::uint8_t>(a0 ^ a1 ^ a2 ^ a3);
    a[0] = static_cast<std::uint8_t>(a0 ^ all ^ xtime(static_cast<std::uint8_t>(a0 ^ a1)));
    a[1] = static_cast<std::uint8_t>(a1 ^ all ^ xtime(static_cast<std::uint8_t>(a1 ^ a2)));
    a[2] = static_cast<std::uint8_t>(a2 ^ all ^ xtime(static_cast<std::uint8_t>(a2 ^ a3)));
    a[3] = static_cast<std::uint8_t>(a3 ^ all ^ xtime(static_cast<std::uint8_t>(a3 ^ a0)));
  }
}

inline constexpr std::uint8_t rcon[14] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40,
                                          0x80, 0x1b, 0x36, 0x6c, 0xd8, 0xab, 0x4d};

// Rijndael with nk key words and nb block words: rounds = max(nk, nb) + 6.
struct Shape {
  unsigned nk, nb;
  constexpr unsigned rounds() const { return (nk > nb ? nk : nb) + 6; }
  constexpr std::size_t rk_bytes() const { return std::size_t{4} * nb * (rounds() + 1); }
};
inline constexpr Shape aes128{4, 4}, aes256{8, 4}, rijndael256{8, 8};

// Key expansion of n keys (4 * nk bytes each, back to back) at once; the S-box calls of all
// keys share the plane passes. rk: n * shape.rk_bytes().
inline void expand_keys(Shape sh, const std::uint8_t* keys, std::size_t n, std::uint8_t* rk) {
  const unsigned nk = sh.nk, words = sh.nb * (sh.rounds() + 1);
  const std::size_t stride = sh.rk_bytes();
  for (std::size_t i = 0; i < n; ++i) std::memcpy(rk + i * stride, keys + i * 4 * nk, 4 * nk);
  std::uint8_t tmp[64 * 4];
  for (unsigned w = nk; w < words; ++w) {
    for (std::size_t base = 0; base < n; base += 64) {
      const std::size_t m = n - base < 64 ? n - base : 64;
      for (std::size_t i = 0; i < m; ++i) {
        const std::uint8_t* prev = rk + (base + i) * stride + 4 * (w - 1);
        if (w % nk == 0) {  // RotWord
          tmp[4 * i] = prev[1], tmp[4 * i + 1] = prev[2], tmp[4 * i + 2] = prev[3], tmp[4 * i + 3] = prev[0];
        } else {
          std::memcpy(tmp + 4 * i, prev, 4);
        }
      }
      if (w % nk == 0 || (nk > 6 && w % nk == 4)) sub_bytes(tmp, 4 * m);
      for (std::size_t i = 0; i < m; ++i) {
        std::uint8_t* k = rk + (base + i) * stride;
        if (w % nk == 0) tmp[4 * i] ^= rcon[w / nk - 1];
        for (unsigned b = 0; b < 4; ++b) k[4 * w + b] = static_cast<std::uint8_t>(k[4 * (w - nk) + b] ^ tmp[4 * i + b]);
      }
    }
  }
  std::memset(tmp, 0, sizeof tmp);
}

// Encrypts n blocks (4 * nb bytes each) in place; block i uses the round keys
// rk + (i / per_key) * rk_stride. All blocks share the S-box plane passes.
inline void encrypt_blocks(Shape sh, const std::uint8_t* rk, std::size_t rk_stride, std::uint8_t* blocks,
                           std::size_t n, std::size_t per_key = 1) {
  const unsigned bb = 4 * sh.nb, rounds = sh.rounds();
  for (std::size_t i = 0; i < n; ++i)
    for (unsigned b = 0; b < bb; ++b) blocks[bb * i + b] ^= rk[(i / per_key) * rk_stride + b];
  for (unsigned r = 1; r <= rounds; ++r) {
    sub_bytes(blocks, bb * n);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint8_t* s = blocks + bb * i;
      shift_rows(s, sh.nb);
      if (r != rounds) mix_columns(s, sh.nb);
      const std::uint8_t* k = rk + (i / per_key) * rk_stride + std::size_t{bb} * r;
      for (unsigned b = 0; b < bb; ++b) s[b] ^= k[b];
    }
  }
}

}  // namespace tempo::voleith::ct
