// Seeded random inputs at every size 16..65536: round trips, forward against the definition,
// multiply against the schoolbook product (all coefficients up to n = 1024, sampled above).
#include <catch2/catch.hpp>

#include <vector>

#include <tempo/ntt.hpp>

#include "reference.hpp"

using namespace ntt_test;
using tempo::ntt::Plan;

namespace {

// One prime per size class: the largest below 2^62 that is 1 mod 2^17 (fits every n),
// a 50-bit one (IFMA range), a 31-bit one, and 12289-like small ones where they exist.
const u64 kPrimes[] = {4611686018425815041ull, 1152921504606584833ull, 1125899903827969ull, 4293918721ull};

void check_plan(const Plan& p, u64 seed, int reps) {
  const std::size_t n = p.n();
  const u64 q = p.q();
  Rng r(seed);
  for (int rep = 0; rep < reps; ++rep) {
    auto a = random_poly(r, n, q), b = random_poly(r, n, q);
    if (rep == 0) std::fill(a.begin(), a.begin() + 8, q - 1);  // the largest values
    auto x = a;
    p.forward(x);
    for (int k = 0; k < 4; ++k) {
      const std::size_t i = r.below(n);
      REQUIRE(x[i] == ntt_coeff(a, i, q, p.psi()));
    }
    for (u64 v : x) REQUIRE(v < q);
    p.inverse(x);
    REQUIRE(x == a);
    std::vector<u64> out(n);
    tempo::ntt::multiply(p, a, b, out);
    if (n <= 1024) {
      REQUIRE(out == negacyclic(a, b, q));
    } else {
      for (int k = 0; k < 8; ++k) {
        const std::size_t i = r.below(n);
        REQUIRE(out[i] == negacyclic_coeff(a, b, i, q));
      }
    }
    // Aliasing: out == a.
    auto c = a;
    tempo::ntt::multiply(p, c, b, c);
    REQUIRE(c == out);
  }
}

}  // namespace

TEST_CASE("random inputs, every size and modulus class", "[random-sizes]") {
  const int reps = 2 * sweep();
  for (std::size_t n = 16; n <= 65536; n *= 2) {
    for (u64 q : kPrimes) {
      if (q % (2 * n) != 1) continue;
      INFO("n = " << n << ", q = " << q);
      check_plan(Plan(n, q), n * 31 + q, n <= 4096 ? reps : 1);
    }
  }
}

TEST_CASE("random inputs, presets", "[random]") {
  for (const char* name : {"MLDSA", "PN10QP27", "PN11QP54", "PN12QP60", "PN14QP60"}) {
    INFO(name);
    check_plan(Plan::preset(name), 7, 4 * sweep());
  }
}

TEST_CASE("pointwise and pointwise_add", "[random]") {
  const Plan p = Plan::preset("PN11QP54");
  Rng r(99);
  auto a = random_poly(r, p.n(), p.q()), b = random_poly(r, p.n(), p.q()), acc = random_poly(r, p.n(), p.q());
  auto out = a;
  p.pointwise(a, b, out);
  auto acc2 = acc;
  p.pointwise_add(a, b, acc2);
  for (std::size_t i = 0; i < p.n(); ++i) {
    REQUIRE(out[i] == mulmod(a[i], b[i], p.q()));
    REQUIRE(acc2[i] == (acc[i] + mulmod(a[i], b[i], p.q())) % p.q());
  }
}
