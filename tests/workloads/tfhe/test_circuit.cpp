// ADD / MUL circuits: plain evaluation against integer arithmetic for many widths (256 bits
// included), gate counts and depths, and encrypted evaluation on small widths.
#include <catch2/catch.hpp>

#include <random>

#include "helpers.hpp"

using namespace tempo::tfhe;
using tfhe_test::seed;

namespace {

using Limbs = std::vector<std::uint64_t>;

Limbs add_ref(const Limbs& x, const Limbs& y) {
  Limbs r(x.size());
  unsigned __int128 carry = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const unsigned __int128 s = static_cast<unsigned __int128>(x[i]) + y[i] + carry;
    r[i] = static_cast<std::uint64_t>(s);
    carry = s >> 64;
  }
  return r;
}

Limbs mul_ref(const Limbs& x, const Limbs& y) {  // low limbs only
  Limbs r(x.size(), 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    unsigned __int128 carry = 0;
    for (std::size_t j = 0; i + j < x.size(); ++j) {
      const unsigned __int128 t = static_cast<unsigned __int128>(x[i]) * y[j] + r[i + j] + carry;
      r[i + j] = static_cast<std::uint64_t>(t);
      carry = t >> 64;
    }
  }
  return r;
}

void mask_to(Limbs& v, std::size_t bits) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::size_t lo = 64 * i;
    if (lo >= bits) v[i] = 0;
    else if (bits - lo < 64) v[i] &= (std::uint64_t{1} << (bits - lo)) - 1;
  }
}

std::vector<bool> to_bits(const Limbs& x, const Limbs& y, std::size_t bits) {
  std::vector<bool> in;
  for (std::size_t i = 0; i < bits; ++i) in.push_back((x[i / 64] >> (i % 64)) & 1u);
  for (std::size_t i = 0; i < bits; ++i) in.push_back((y[i / 64] >> (i % 64)) & 1u);
  return in;
}

Limbs from_bits(const std::vector<bool>& b) {
  Limbs r((b.size() + 63) / 64, 0);
  for (std::size_t i = 0; i < b.size(); ++i)
    if (b[i]) r[i / 64] |= std::uint64_t{1} << (i % 64);
  return r;
}

}  // namespace

TEST_CASE("adder and multiplier circuits equal integer arithmetic", "[circuit]") {
  std::mt19937_64 rng(42);
  for (std::size_t bits : {1, 2, 3, 5, 8, 13, 16, 31, 64, 100, 256}) {
    const Circuit add_c = Circuit::adder(bits);
    const Circuit mul_c = Circuit::multiplier(bits);
    const int reps = bits == 256 ? 20 : 50;
    for (int r = 0; r < reps; ++r) {
      Limbs x((bits + 63) / 64), y(x.size());
      for (auto& v : x) v = rng();
      for (auto& v : y) v = rng();
      if (r == 0) { for (auto& v : x) v = ~0ULL; for (auto& v : y) v = ~0ULL; }  // all carries
      mask_to(x, bits);
      mask_to(y, bits);
      Limbs want_add = add_ref(x, y), want_mul = mul_ref(x, y);
      mask_to(want_add, bits);
      mask_to(want_mul, bits);
      INFO("bits " << bits << " rep " << r);
      REQUIRE(from_bits(add_c.eval_plain(to_bits(x, y, bits))) == want_add);
      REQUIRE(from_bits(mul_c.eval_plain(to_bits(x, y, bits))) == want_mul);
    }
  }
}

TEST_CASE("256-bit circuits: gate counts and depths", "[circuit]") {
  const Circuit a = Circuit::adder(256), m = Circuit::multiplier(256);
  WARN("ADD-256: " << a.gate_count() << " bootstraps, depth " << a.depth() << "; MUL-256: " << m.gate_count()
                   << " bootstraps, depth " << m.depth());
  CHECK(a.depth() <= 10);          // g/p, log2(256) prefix levels, sum
  CHECK(a.gate_count() < 3000);
  CHECK(m.depth() <= 26);
  CHECK(m.gate_count() < 110000);
}

TEST_CASE("encrypted ADD and MUL on small widths (TOY256)", "[circuit][encrypted]") {
  const Keys& k = tfhe_test::keys("TOY256", 0);
  std::mt19937_64 rng(7);
  const int reps = tfhe_test::full() ? 6 : 2;
  for (int r = 0; r < reps; ++r) {
    const std::size_t bits = r % 2 == 0 ? 8 : 5;
    Limbs x{rng()}, y{rng()};
    mask_to(x, bits);
    mask_to(y, bits);
    const EncryptedUint ex = encrypt_uint_deterministic(k.secret, x, bits, seed(50, static_cast<std::uint64_t>(r)));
    const EncryptedUint ey = encrypt_uint_deterministic(k.secret, y, bits, seed(51, static_cast<std::uint64_t>(r)));
    const auto [s, p] = tfhe_test::pool().run([&](tempo::Task& t) {
      return std::pair{add(t, k.evaluation, ex, ey, tempo::Backend::cpu), mul(t, k.evaluation, ex, ey, tempo::Backend::cpu)};
    });
    Limbs want_add = add_ref(x, y), want_mul = mul_ref(x, y);
    mask_to(want_add, bits);
    mask_to(want_mul, bits);
    INFO("bits " << bits << " x " << x[0] << " y " << y[0]);
    CHECK(decrypt_uint(k.secret, s) == want_add);
    CHECK(decrypt_uint(k.secret, p) == want_mul);
    // Levels go through the batch path: TEMPO_BACKEND's placement gives the same bytes.
    const EncryptedUint s_env = tfhe_test::pool().run([&](tempo::Task& t) { return add(t, k.evaluation, ex, ey); });
    CHECK(s_env.bits == s.bits);
  }
  const EncryptedUint e8 = encrypt_uint(k.secret, Limbs{1}, 8), e4 = encrypt_uint(k.secret, Limbs{1}, 4);
  CHECK_THROWS_AS(tfhe_test::pool().run([&](tempo::Task& t) { return add(t, k.evaluation, e8, e4); }), std::invalid_argument);
}

TEST_CASE("encrypted 256-bit ADD (PN10QP27)", "[circuit][encrypted][slow][full]") {
  if (!tfhe_test::full()) {
    SUCCEED("TEMPO_TFHE_FULL=1 runs the encrypted 256-bit ADD");
    return;
  }
  const Keys& k = tfhe_test::keys("PN10QP27", 0);
  std::mt19937_64 rng(9);
  Limbs x{rng(), rng(), rng(), rng()}, y{rng(), rng(), rng(), rng()};
  const EncryptedUint ex = encrypt_uint(k.secret, x, 256), ey = encrypt_uint(k.secret, y, 256);
  const EncryptedUint s = tfhe_test::pool().run([&](tempo::Task& t) { return add(t, k.evaluation, ex, ey); });
  CHECK(decrypt_uint(k.secret, s) == add_ref(x, y));
}
