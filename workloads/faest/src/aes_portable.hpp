// Constant-time portable AES: no table indexed by secret data. The S-box is computed on
// bit planes (64 bytes at a time): x^254 in GF(2^8) by AND/XOR gates, then the affine map.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tempo::faest::detail::ct {

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

// 64 bytes -> 8 planes: bit j of plane b is bit b of byte j.
inline void to_planes(const std::uint8_t* bytes, std::uint64_t p[8]) {
  for (int b = 0; b < 8; ++b) p[b] = 0;
  for (int g = 0; g < 8; ++g) {
    std::uint64_t x;
    std::memcpy(&x, bytes + 8 * g, 8);
    x = transpose8(x);
    for (int b = 0; b < 8; ++b) p[b] |= ((x >> (8 * b)) & 0xff) << (8 * g);
  }
}
inline void from_planes(const std::uint64_t p[8], std::uint8_t* bytes) {
  for (int g = 0; g < 8; ++g) {
    std::uint64_t x = 0;
    for (int b = 0; b < 8; ++b) x |= ((p[b] >> (8 * g)) & 0xff) << (8 * b);
    x = transpose8(x);
    std::memcpy(bytes + 8 * g, &x, 8);
  }
}

// GF(2^8) (AES polynomial x^8 + x^4 + x^3 + x + 1) product on planes.
inline void gf8_mul_planes(const std::uint64_t a[8], const std::uint64_t b[8], std::uint64_t r[8]) {
  std::uint64_t c[15] = {};
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) c[i + j] ^= a[i] & b[j];
  for (int i = 14; i >= 8; --i) {  // x^8 = x^4 + x^3 + x + 1
    c[i - 4] ^= c[i];
    c[i - 5] ^= c[i];
    c[i - 7] ^= c[i];
    c[i - 8] ^= c[i];
  }
  for (int i = 0; i < 8; ++i) r[i] = c[i];
}

inline void sbox_planes(std::uint64_t p[8]) {
  // x^254 = x^-1 (and 0 -> 0): x2, x3, x12, x15, x240, x252, x254.
  std::uint64_t x2[8], x3[8], x12[8], x15[8], t[8];
  gf8_mul_planes(p, p, x2);
  gf8_mul_planes(x2, p, x3);
  gf8_mul_planes(x3, x3, t);      // x6
  gf8_mul_planes(t, t, x12);      // x12
  gf8_mul_planes(x12, x3, x15);   // x15
  gf8_mul_planes(x15, x15, t);    // x30
  gf8_mul_planes(t, t, t);        // x60
  gf8_mul_planes(t, t, t);        // x120
  gf8_mul_planes(t, t, t);        // x240
  gf8_mul_planes(t, x12, t);      // x252
  gf8_mul_planes(t, x2, t);       // x254
  // Affine map: b_i = a_i ^ a_{i+4} ^ a_{i+5} ^ a_{i+6} ^ a_{i+7} ^ c_i, c = 0x63.
  for (int i = 0; i < 8; ++i) {
    std::uint64_t v = t[i] ^ t[(i + 4) % 8] ^ t[(i + 5) % 8] ^ t[(i + 6) % 8] ^ t[(i + 7) % 8];
    if ((0x63 >> i) & 1) v = ~v;  // public constant, not data
    p[i] = v;
  }
}

// S-box on n bytes in place (n any; processed in 64-byte groups).
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
}

inline std::uint8_t xtime(std::uint8_t x) {
  return std::uint8_t((x << 1) ^ (0x1b & (0u - (unsigned(x) >> 7))));
}
// Constant-time GF(2^8) product (scalar; for the witness, not the hot path).
inline std::uint8_t gf8_mul(std::uint8_t a, std::uint8_t b) {
  std::uint8_t r = 0;
  for (int i = 0; i < 8; ++i) {
    r ^= std::uint8_t(a & (0u - ((b >> i) & 1u)));
    a = xtime(a);
  }
  return r;
}

inline void shift_rows(std::uint8_t s[16]) {
  std::uint8_t t[16];
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) t[4 * c + r] = s[4 * ((c + r) % 4) + r];
  std::memcpy(s, t, 16);
}
inline void mix_columns(std::uint8_t s[16]) {
  for (int c = 0; c < 4; ++c) {
    std::uint8_t* a = s + 4 * c;
    const std::uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    const std::uint8_t all = std::uint8_t(a0 ^ a1 ^ a2 ^ a3);
    a[0] = std::uint8_t(a0 ^ all ^ xtime(std::uint8_t(a0 ^ a1)));
    a[1] = std::uint8_t(a1 ^ all ^ xtime(std::uint8_t(a1 ^ a2)));
    a[2] = std::uint8_t(a2 ^ all ^ xtime(std::uint8_t(a2 ^ a3)));
    a[3] = std::uint8_t(a3 ^ all ^ xtime(std::uint8_t(a3 ^ a0)));
  }
}

inline constexpr std::uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};

// Key expansion of n AES keys of nk words (4: AES-128, 8: AES-256) at once; the S-box
// calls of all keys share one plane pass. rk: n * 16 * (rounds + 1) bytes.
inline void expand_keys(const std::uint8_t* keys, std::size_t n, unsigned nk, std::uint8_t* rk) {
  const unsigned rounds = nk + 6, words = 4 * (rounds + 1);
  const std::size_t stride = 16 * std::size_t(rounds + 1);
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
        for (int b = 0; b < 4; ++b) k[4 * w + b] = std::uint8_t(k[4 * (w - nk) + b] ^ tmp[4 * i + b]);
      }
    }
  }
}

// Encrypts n blocks in place; block i uses the round keys rk + (i / per_key) * rk_stride
// (rounds: 10 or 14). All blocks share the S-box plane passes.
inline void encrypt_blocks(const std::uint8_t* rk, std::size_t rk_stride, unsigned rounds, std::uint8_t* blocks,
                           std::size_t n, std::size_t per_key = 1) {
  for (std::size_t i = 0; i < n; ++i)
    for (int b = 0; b < 16; ++b) blocks[16 * i + b] ^= rk[(i / per_key) * rk_stride + b];
  for (unsigned r = 1; r <= rounds; ++r) {
    sub_bytes(blocks, 16 * n);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint8_t* s = blocks + 16 * i;
      shift_rows(s);
      if (r != rounds) mix_columns(s);
      const std::uint8_t* k = rk + (i / per_key) * rk_stride + 16 * r;
      for (int b = 0; b < 16; ++b) s[b] ^= k[b];
    }
  }
}

}  // namespace tempo::faest::detail::ct
