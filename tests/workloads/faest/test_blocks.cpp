// Building blocks, each on its own: AES (both backends, FIPS-197), the PRG and its tweak,
// SHAKE against tempo::keccak, GF(2^128)/GF(2^64)/leaf-hash arithmetic (PCLMULQDQ and
// portable against a bit-by-bit reference), keygen's rejection rule, the ISA choice.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <utility>

#include <tempo/keccak.hpp>
#include <tempo/faest.hpp>

#include "backend.hpp"
#include "kat.hpp"
#include "shake.hpp"

using namespace tempo::faest::detail;
using tempo::faest::Params;

namespace {

std::vector<const BackendOps*> backends() {
  std::vector<const BackendOps*> v{&portable_backend()};
  if (ni_backend() != nullptr) v.push_back(ni_backend());
  if (vaes_backend() != nullptr) v.push_back(vaes_backend());
  return v;
}

// Bit-by-bit references (the textbook definitions, nothing shared with the library).
gf128 ref_mul128(gf128 a, gf128 b) {
  gf128 r{};
  for (int i = 0; i < 128; ++i) {
    const unsigned bit = unsigned((i < 64 ? b.lo >> i : b.hi >> (i - 64)) & 1);
    if (bit) r ^= a;
    const std::uint64_t carry = a.hi >> 63;
    a.hi = (a.hi << 1) | (a.lo >> 63);
    a.lo = (a.lo << 1) ^ (carry ? 0x87 : 0);
  }
  return r;
}
std::uint64_t ref_mul64(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  for (int i = 0; i < 64; ++i) {
    if ((b >> i) & 1) r ^= a;
    a = (a << 1) ^ ((a >> 63) ? 0x1b : 0);
  }
  return r;
}
void ref_leaf_hash(std::uint8_t out[48], const std::uint8_t u[48], const std::uint8_t x[64]) {
  std::uint64_t a[6], r[6] = {};
  std::memcpy(a, u, 48);
  for (int i = 0; i < 128; ++i) {
    if (get_bit(x, std::size_t(i)))
      for (int w = 0; w < 6; ++w) r[w] ^= a[w];
    const std::uint64_t carry = a[5] >> 63;
    for (int w = 5; w > 0; --w) a[w] = (a[w] << 1) | (a[w - 1] >> 63);
    a[0] = (a[0] << 1) ^ (carry ? 0x100D : 0);  // x^384 = x^12 + x^3 + x^2 + 1
  }
  std::uint64_t t[6];
  std::memcpy(t, x + 16, 48);
  for (int w = 0; w < 6; ++w) r[w] ^= t[w];
  std::memcpy(out, r, 48);
}

}  // namespace

TEST_CASE("AES-128 and AES-256, portable constant-time path: FIPS-197 C.1/C.3", "[blocks]") {
  std::uint8_t key[32], pt[16], rk[240], block[16];
  for (int i = 0; i < 32; ++i) key[i] = std::uint8_t(i);
  for (int i = 0; i < 16; ++i) pt[i] = std::uint8_t(0x11 * i);
  ct::expand_keys(ct::aes128, key, 1, rk);
  std::memcpy(block, pt, 16);
  ct::encrypt_blocks(ct::aes128, rk, 176, block, 1);
  CHECK(std::vector<std::uint8_t>(block, block + 16) == faest_test::hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
  ct::expand_keys(ct::aes256, key, 1, rk);
  std::memcpy(block, pt, 16);
  ct::encrypt_blocks(ct::aes256, rk, 240, block, 1);
  CHECK(std::vector<std::uint8_t>(block, block + 16) == faest_test::hex("8ea2b7ca516745bfeafc49904b496089"));
  // The S-box at all 256 inputs: spot values of FIPS-197 Figure 7.
  std::uint8_t all[256];
  for (int i = 0; i < 256; ++i) all[i] = std::uint8_t(i);
  ct::sub_bytes(all, 256);
  CHECK(all[0x00] == 0x63);
  CHECK(all[0x01] == 0x7c);
  CHECK(all[0x53] == 0xed);
  CHECK(all[0xff] == 0x16);
}

TEST_CASE("PRG: AES-128-CTR with the tweak in the top word, both backends agree", "[blocks]") {
  std::uint8_t key[16], iv[16];
  for (int i = 0; i < 16; ++i) key[i] = std::uint8_t(i), iv[i] = std::uint8_t(0x11 * i);
  for (const auto* b : backends()) {
    INFO(b->name);
    std::uint8_t out[16];
    b->prg(key, 1, iv, nullptr, 0, out, 16);  // one block, tweak 0: plain AES of the iv
    CHECK(std::vector<std::uint8_t>(out, out + 16) == faest_test::hex("69c4e0d86a7b0430d8cdb78070b4c55a"));
  }
  // Many keys, odd lengths, per-key tweaks: every backend equals a block-by-block reference.
  std::mt19937_64 rng(7);
  for (std::size_t outlen : {16u, 32u, 64u, 210u, 5u}) {
    const std::size_t n = 19;
    std::vector<std::uint8_t> keys(16 * n), ref(n * outlen), got(n * outlen);
    std::vector<std::uint32_t> tw(n);
    for (auto& k : keys) k = std::uint8_t(rng());
    for (auto& t : tw) t = std::uint32_t(rng());
    iv[0] = 0xfe, iv[1] = iv[2] = iv[3] = 0xff;  // the 32-bit counter wraps without carry
    for (std::size_t i = 0; i < n; ++i) {
      std::uint8_t rk[176];
      ct::expand_keys(ct::aes128, keys.data() + 16 * i, 1, rk);
      std::uint8_t ctr[16];
      tweak_iv(ctr, iv, tw[i]);
      for (std::size_t b = 0; b * 16 < outlen; ++b) {
        std::uint8_t blk[16];
        std::memcpy(blk, ctr, 16);
        put_le32(blk, get_le32(ctr) + std::uint32_t(b));
        ct::encrypt_blocks(ct::aes128, rk, 176, blk, 1);
        std::memcpy(ref.data() + i * outlen + 16 * b, blk, std::min<std::size_t>(16, outlen - 16 * b));
      }
    }
    for (const auto* b : backends()) {
      INFO(b->name << " outlen " << outlen);
      b->prg(keys.data(), n, iv, tw.data(), 0, got.data(), outlen);
      CHECK(got == ref);
    }
  }
}

TEST_CASE("SHAKE128 sponge on tempo::keccak's permutation equals tempo::keccak::shake128", "[blocks]") {
  std::mt19937_64 rng(3);
  for (std::size_t len : {0u, 1u, 167u, 168u, 169u, 500u}) {
    std::vector<std::uint8_t> msg(len), a(400), b(400);
    for (auto& x : msg) x = std::uint8_t(rng());
    tempo::keccak::shake128(msg, a);
    auto s = tempo::voleith::Sponge::shake128();
    s.absorb(msg.data(), msg.size() / 2);
    s.absorb(msg.data() + msg.size() / 2, msg.size() - msg.size() / 2);
    s.finalize();
    s.squeeze(b.data(), 100);
    s.squeeze(b.data() + 100, 300);
    CHECK(a == b);
  }
}

TEST_CASE("GF(2^128), GF(2^64) and the GF(2^384) leaf hash: both backends equal bitwise references", "[blocks]") {
  std::mt19937_64 rng(11);
  for (int it = 0; it < 300; ++it) {
    const gf128 a{rng(), rng()}, b{rng(), rng()};
    const std::uint64_t x = rng(), y = rng();
    std::uint8_t u[48], v[64], want[48], got[48];
    for (auto& c : u) c = std::uint8_t(rng());
    for (auto& c : v) c = std::uint8_t(rng());
    ref_leaf_hash(want, u, v);
    for (const auto* be : backends()) {
      INFO(be->name);
      REQUIRE(be->mul(a, b) == ref_mul128(a, b));
      REQUIRE(be->mul64(x, y) == ref_mul64(x, y));
      be->leaf_hash(got, u, v);
      REQUIRE(std::memcmp(got, want, 48) == 0);
    }
  }
  const gf128 ones{~0ull, ~0ull};
  for (const auto* be : backends()) CHECK(be->mul(ones, ones) == ref_mul128(ones, ones));
}

TEST_CASE("Keygen's rejection rule: keys with both low bits set are redrawn and refused", "[blocks]") {
  int calls = 0;
  auto rnd = [&](std::span<std::uint8_t> out) {
    for (auto& b : out) b = std::uint8_t(calls < 2 ? 0xff : 0x42);  // first two keys are rejected
    ++calls;
  };
  const auto kp = tempo::faest::keygen(Params::faest_128f, rnd);
  CHECK(calls == 4);  // 2 rejected keys, 1 accepted, 1 OWF input
  CHECK(kp.secret_key[16] == 0x42);
  std::vector<std::uint8_t> bad = kp.secret_key;
  bad[16] |= 3;
  const std::uint8_t msg[1] = {0};
  CHECK_THROWS_AS(tempo::faest::sign_deterministic(Params::faest_128f, bad, msg, std::span<const std::uint8_t>()),
                  std::invalid_argument);
}

TEST_CASE("TEMPO_FAEST_ISA caps the instruction set, case-insensitively; another value is an error", "[blocks]") {
  const char* set = std::getenv("TEMPO_FAEST_ISA");
  struct Restore {  // the portable ctest entry sets it for the whole run
    std::string value;
    bool was_set;
    ~Restore() { was_set ? setenv("TEMPO_FAEST_ISA", value.c_str(), 1) : unsetenv("TEMPO_FAEST_ISA"); }
  } restore{set != nullptr ? set : "", set != nullptr};
  const std::string portable = portable_backend().name;
  const std::string ni = ni_backend() != nullptr ? ni_backend()->name : portable;
  const std::string fastest = vaes_backend() != nullptr ? vaes_backend()->name : ni;
  const std::pair<const char*, std::string> cases[] = {
      {"Portable", portable}, {"AESNI", ni}, {"vaes", fastest}, {"", fastest}};
  for (const auto& [value, want] : cases) {
    INFO("TEMPO_FAEST_ISA=" << value);
    setenv("TEMPO_FAEST_ISA", value, 1);
    CHECK(tempo::faest::cpu_isa_name() == want);
  }
  unsetenv("TEMPO_FAEST_ISA");
  CHECK(tempo::faest::cpu_isa_name() == fastest);
  setenv("TEMPO_FAEST_ISA", "avx9", 1);
  try {
    tempo::faest::cpu_isa_name();
    FAIL("TEMPO_FAEST_ISA=avx9 was accepted");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("TEMPO_FAEST_ISA") != std::string::npos);
  }
  const auto kp = tempo::faest::keygen(Params::faest_128f);
  const std::uint8_t msg[1] = {0};
  CHECK_THROWS_AS(tempo::faest::sign(Params::faest_128f, kp.secret_key, msg), std::invalid_argument);
}
