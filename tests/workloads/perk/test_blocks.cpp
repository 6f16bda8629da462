// Building blocks: the AES/Rijndael code (FIPS-197 vectors, portable against AES-NI), the
// carry-less field products (portable against PCLMULQDQ, and against schoolbook definitions).
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include <tempo/voleith/detail/aes_portable.hpp>
#include "field.hpp"
#include "kernels.hpp"
#include "kat.hpp"
#include "params.hpp"
#include "tower.hpp"

namespace ct = tempo::voleith::ct;
using tempo::perk::detail::Kernels;
using tempo::perk::detail::PrfStream;

namespace {

std::vector<std::uint8_t> aes_one(ct::Shape sh, const std::vector<std::uint8_t>& key, const std::vector<std::uint8_t>& pt) {
  std::vector<std::uint8_t> rk(sh.rk_bytes()), blk = pt;
  ct::expand_keys(sh, key.data(), 1, rk.data());
  ct::encrypt_blocks(sh, rk.data(), rk.size(), blk.data(), 1);
  return blk;
}

// Rijndael straight from its definition, byte by byte (S-box by inversion), for any nb.
std::uint8_t gmul(std::uint8_t a, std::uint8_t b) {
  std::uint8_t r = 0;
  for (int i = 0; i < 8; ++i) {
    if (b & 1) r ^= a;
    const bool hi = a & 0x80;
    a = static_cast<std::uint8_t>(a << 1);
    if (hi) a ^= 0x1b;
    b >>= 1;
  }
  return r;
}
std::uint8_t sbox(std::uint8_t x) {
  std::uint8_t inv = 0;
  for (int c = 1; c < 256 && x; ++c)
    if (gmul(x, static_cast<std::uint8_t>(c)) == 1) inv = static_cast<std::uint8_t>(c);
  std::uint8_t s = 0x63;
  for (int i = 0; i < 8; ++i) {
    const int bit = ((inv >> i) ^ (inv >> ((i + 4) % 8)) ^ (inv >> ((i + 5) % 8)) ^ (inv >> ((i + 6) % 8)) ^
                     (inv >> ((i + 7) % 8))) & 1;
    s ^= static_cast<std::uint8_t>(bit << i);
  }
  return s;
}
std::vector<std::uint8_t> rijndael_ref(unsigned nk, unsigned nb, const std::uint8_t* key, const std::uint8_t* in) {
  const unsigned nr = (nk > nb ? nk : nb) + 6, words = nb * (nr + 1);
  std::vector<std::uint8_t> w(4 * words);
  std::memcpy(w.data(), key, 4 * nk);
  std::uint8_t rc = 1;
  for (unsigned i = nk; i < words; ++i) {
    std::uint8_t t[4];
    std::memcpy(t, &w[4 * (i - 1)], 4);
    if (i % nk == 0) {
      const std::uint8_t t0 = t[0];
      t[0] = static_cast<std::uint8_t>(sbox(t[1]) ^ rc);
      t[1] = sbox(t[2]);
      t[2] = sbox(t[3]);
      t[3] = sbox(t0);
      rc = gmul(rc, 2);
    } else if (nk > 6 && i % nk == 4) {
      for (auto& b : t) b = sbox(b);
    }
    for (unsigned b = 0; b < 4; ++b) w[4 * i + b] = static_cast<std::uint8_t>(w[4 * (i - nk) + b] ^ t[b]);
  }
  std::vector<std::uint8_t> s(in, in + 4 * nb);
  const unsigned off[4] = {0, 1, nb == 8 ? 3u : 2u, nb == 8 ? 4u : 3u};
  for (unsigned r = 0; r <= nr; ++r) {
    if (r > 0) {
      for (auto& b : s) b = sbox(b);
      std::vector<std::uint8_t> t(s.size());
      for (unsigned c = 0; c < nb; ++c)
        for (unsigned row = 0; row < 4; ++row) t[4 * c + row] = s[4 * ((c + off[row]) % nb) + row];
      s = t;
      if (r < nr)
        for (unsigned c = 0; c < nb; ++c) {
          std::uint8_t* a = &s[4 * c];
          const std::uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
          a[0] = static_cast<std::uint8_t>(gmul(a0, 2) ^ gmul(a1, 3) ^ a2 ^ a3);
          a[1] = static_cast<std::uint8_t>(a0 ^ gmul(a1, 2) ^ gmul(a2, 3) ^ a3);
          a[2] = static_cast<std::uint8_t>(a0 ^ a1 ^ gmul(a2, 2) ^ gmul(a3, 3));
          a[3] = static_cast<std::uint8_t>(gmul(a0, 3) ^ a1 ^ a2 ^ gmul(a3, 2));
        }
    }
    for (unsigned b = 0; b < 4 * nb; ++b) s[b] ^= w[4 * nb * r + b];
  }
  return s;
}

std::vector<std::uint8_t> random_bytes(std::mt19937_64& g, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(g());
  return v;
}

}  // namespace

TEST_CASE("AES-128 and AES-256: FIPS-197 appendix C", "[blocks]") {
  const auto pt = perk_test::hex("00112233445566778899aabbccddeeff");
  REQUIRE(aes_one(ct::aes128, perk_test::hex("000102030405060708090a0b0c0d0e0f"), pt) ==
          perk_test::hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
  REQUIRE(aes_one(ct::aes256, perk_test::hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"), pt) ==
          perk_test::hex("8ea2b7ca516745bfeafc49904b496089"));
}

TEST_CASE("Bit-plane Rijndael-256 equals the byte-wise definition", "[blocks]") {
  std::mt19937_64 g(1);
  for (int i = 0; i < 8; ++i) {
    const auto key = random_bytes(g, 32), pt = random_bytes(g, 32);
    REQUIRE(aes_one(ct::rijndael256, key, pt) == rijndael_ref(8, 8, key.data(), pt.data()));
  }
  const auto key = random_bytes(g, 16), pt = random_bytes(g, 16);
  REQUIRE(aes_one(ct::aes128, key, pt) == rijndael_ref(4, 4, key.data(), pt.data()));
}

TEST_CASE("AES PRF: the selected kernels equal the portable ones", "[blocks]") {
  const Kernels& port = tempo::perk::detail::portable_kernels();
  const Kernels* ni = tempo::perk::detail::ni_kernels();
  if (ni == nullptr) {
    WARN("no AES-NI/PCLMULQDQ on this CPU: only the portable kernels exist");
    return;
  }
  std::mt19937_64 g(2);
  for (unsigned level : {1u, 3u, 5u}) {
    INFO("level " << level);
    const unsigned lb = level == 1 ? 16 : level == 3 ? 24 : 32;
    for (std::size_t n : {1u, 3u, 4u, 9u}) {
      const auto seeds_bytes = random_bytes(g, n * lb);
      std::vector<const std::uint8_t*> seeds(n);
      for (std::size_t j = 0; j < n; ++j) seeds[j] = seeds_bytes.data() + j * lb;
      std::vector<std::uint32_t> tweaks(n);
      for (auto& t : tweaks) t = static_cast<std::uint32_t>(g());
      auto base1 = random_bytes(g, 32), base2 = random_bytes(g, 32);
      if (level == 3) std::fill(base1.begin() + 24, base1.end(), 0);
      std::vector<std::uint8_t> o1(n * 2 * lb), o2(n * 9 * lb), p1(o1.size()), p2(o2.size());
      const PrfStream s[2] = {{base1.data(), tweaks.data(), 2, o1.data(), 2 * lb},
                              {base2.data(), nullptr, 9, o2.data(), 9 * lb}};
      const PrfStream t[2] = {{base1.data(), tweaks.data(), 2, p1.data(), 2 * lb},
                              {base2.data(), nullptr, 9, p2.data(), 9 * lb}};
      ni->aes_prf(level, seeds.data(), n, s, 2);
      port.aes_prf(level, seeds.data(), n, t, 2);
      REQUIRE(o1 == p1);
      REQUIRE(o2 == p2);
      // and the definition: block b of key j = E(base ^ tweak at bytes 1..4 ^ b at byte 0)
      std::vector<std::uint8_t> key(32, 0), blk(base1.begin(), base1.begin() + (level == 1 ? 16 : 32));
      std::memcpy(key.data(), seeds[n - 1], lb);
      blk[0] ^= 1;
      for (unsigned k = 0; k < 4; ++k) blk[1 + k] ^= static_cast<std::uint8_t>(tweaks[n - 1] >> (8 * k));
      const auto ref = level == 1 ? rijndael_ref(4, 4, key.data(), blk.data()) : rijndael_ref(8, 8, key.data(), blk.data());
      REQUIRE(std::equal(ref.begin(), ref.begin() + lb, o1.begin() + std::ptrdiff_t((n - 1) * 2 * lb + lb)));
    }
  }
}

TEST_CASE("Tower products: the AVX-512 kernels equal the portable ones", "[blocks]") {
  using namespace tempo::perk::detail;
  const TowerMuls* wide = avx512_tower_muls();
  if (wide == nullptr) {
    WARN("skipped: this CPU has no AVX-512 BW with PCLMULQDQ");
    return;
  }
  const Kernels& port = portable_kernels();
  std::mt19937_64 g(11);
  for (int i = 0; i < 2000; ++i) {
    // random operands, then all-ones and single-coefficient ones (the largest sums and folds)
    std::uint16_t a[24], b[24], c[24], d[24];
    for (int j = 0; j < 24; ++j) {
      a[j] = static_cast<std::uint16_t>(i == 0 ? 0x7FF : i < 25 ? (j == i - 1) << 10 : g() & 0x7FF);
      b[j] = static_cast<std::uint16_t>(i < 25 ? 0x7FF : g() & 0x7FF);
    }
    port.tower_mul12(c, a, b);
    wide->mul12(d, a, b);
    REQUIRE(std::equal(c, c + 12, d));
    port.tower_mul18(c, a, b);
    wide->mul18(d, a, b);
    REQUIRE(std::equal(c, c + 18, d));
    port.tower_mul24(c, a, b);
    wide->mul24(d, a, b);
    REQUIRE(std::equal(c, c + 24, d));
    port.tower_mul12(c, a, b);
    wide->mul12(a, a, b);  // the output may alias an operand
    REQUIRE(std::equal(c, c + 12, a));
  }
}

TEST_CASE("Field products: PCLMULQDQ kernels equal the portable ones", "[blocks]") {
  using namespace tempo::perk::detail;
  const Kernels& port = portable_kernels();
  const Kernels* ni = ni_kernels();
  std::mt19937_64 g(3);
  // GF(2^11): x^11 = x^2 + 1
  REQUIRE(gf11_mul(1u << 10, 2) == 0x5);
  REQUIRE(gf11_mul(0x7FF, 1) == 0x7FF);
  for (int i = 0; i < 200; ++i) {
    std::uint16_t a[24], b[24], c[24], d[24];
    for (int j = 0; j < 24; ++j) {
      a[j] = static_cast<std::uint16_t>(g() & 0x7FF);
      b[j] = static_cast<std::uint16_t>(g() & 0x7FF);
    }
    // the tower: commutative, and Y * Y^(E-1) = Y^E = the modulus' low terms
    port.tower_mul12(c, a, b);
    port.tower_mul12(d, b, a);
    REQUIRE(std::equal(c, c + 12, d));
    if (ni != nullptr) {
      ni->tower_mul12(d, a, b);
      REQUIRE(std::equal(c, c + 12, d));
      port.tower_mul18(c, a, b);
      ni->tower_mul18(d, a, b);
      REQUIRE(std::equal(c, c + 18, d));
      port.tower_mul24(c, a, b);
      ni->tower_mul24(d, a, b);
      REQUIRE(std::equal(c, c + 24, d));
      std::uint64_t x[4], y[4], z1[4], z2[4];
      for (int j = 0; j < 4; ++j) x[j] = g(), y[j] = g();
      for (unsigned n : {2u, 3u, 4u}) {
        port.gf_lambda_mul(n, z1, x, y);
        ni->gf_lambda_mul(n, z2, x, y);
        REQUIRE(std::equal(z1, z1 + n, z2));
      }
      REQUIRE(port.gf64_mul(x[0], y[0]) == ni->gf64_mul(x[0], y[0]));
    }
  }
  std::uint16_t y[24] = {}, top[24] = {}, r[24];
  y[1] = 1;
  top[23] = 1;
  port.tower_mul24(r, y, top);  // Y^24 = Y^17 + Y^11 + Y + 1
  for (int j = 0; j < 24; ++j) REQUIRE(r[j] == ((j == 0 || j == 1 || j == 11 || j == 17) ? 1 : 0));
  // GF(2^128): x^127 * x = x^7 + x^2 + x + 1
  std::uint64_t u[2] = {0, 1ull << 63}, v[2] = {2, 0}, w[2];
  port.gf_lambda_mul(2, w, u, v);
  REQUIRE((w[0] == 0x87 && w[1] == 0));
  // GF(2^64): x^63 * x = x^4 + x^3 + x + 1
  REQUIRE(port.gf64_mul(1ull << 63, 2) == 0x1B);
}
