// Plan construction: parameter errors, presets, the chosen roots.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include <tempo/ntt.hpp>

#include "reference.hpp"

using tempo::ntt::Plan;

static std::string error_of(auto&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("bad parameters name the problem", "[plan]") {
  CHECK_THAT(error_of([] { Plan(1000, 12289); }), Catch::Contains("n = 1000") && Catch::Contains("power of two"));
  CHECK_THAT(error_of([] { Plan(8, 17); }), Catch::Contains("n = 8"));
  CHECK_THAT(error_of([] { Plan(131072, 786433); }), Catch::Contains("n = 131072"));
  CHECK_THAT(error_of([] { Plan(16, 12289 * 3); }), Catch::Contains("1 mod 2n"));
  CHECK_THAT(error_of([] { Plan(16, 33 * 32 + 1); }), Catch::Contains("not prime"));  // 1057 = 7 * 151
  CHECK_THAT(error_of([] { Plan(16, (std::uint64_t{1} << 62) + 1); }), Catch::Contains("2^62"));
  CHECK_THAT(error_of([] { Plan(256, 8380417, 2); }), Catch::Contains("psi = 2"));
  CHECK_THAT(error_of([] { Plan::preset("PN99"); }), Catch::Contains("unknown preset \"PN99\""));
}

TEST_CASE("presets", "[plan]") {
  const Plan m = Plan::preset("MLDSA");
  CHECK(m.n() == 256);
  CHECK(m.q() == 8380417);
  CHECK(m.psi() == 1753);
  CHECK(Plan(256, 8380417).psi() == 1753);  // 1753 is the smallest 512th root, so both agree
  const Plan a = Plan::preset("PN10QP27");
  CHECK(a.n() == 1024);
  CHECK(a.q() == 134215681);
  const Plan b = Plan::preset("PN11QP54");
  CHECK(b.n() == 2048);
  CHECK(b.q() == 18014398509404161ull);
  CHECK(Plan::preset("PN12QP60").n() == 4096);
  CHECK(Plan::preset("PN14QP60").n() == 16384);
  for (const Plan* p : {&m, &a, &b}) {
    CHECK(ntt_test::powmod(p->psi(), p->n(), p->q()) == p->q() - 1);
    CHECK(ntt_test::mulmod(p->n_inv(), p->n(), p->q()) == 1);
  }
}

TEST_CASE("bad spans name the index and value", "[plan]") {
  const Plan p = Plan::preset("MLDSA");
  std::vector<std::uint64_t> a(256, 1), b(256, 2), out(256);
  CHECK_THAT(error_of([&] { p.forward(std::span(a).first(255)); }),
             Catch::Contains("forward") && Catch::Contains("255 coefficients") && Catch::Contains("n is 256"));
  a[17] = 8380417;
  CHECK_THAT(error_of([&] { p.forward(a); }), Catch::Contains("a[17] = 8380417") && Catch::Contains("q = 8380417"));
  CHECK_THAT(error_of([&] { p.inverse(a); }), Catch::Contains("inverse: a[17]"));
  CHECK_THAT(error_of([&] { tempo::ntt::multiply(p, b, a, out); }), Catch::Contains("multiply: b[17]"));
  CHECK_THAT(error_of([&] { p.pointwise(b, a, out); }), Catch::Contains("pointwise: b[17]"));
  CHECK_THAT(error_of([&] { p.pointwise_add(b, b, a); }), Catch::Contains("pointwise_add: acc[17]"));
  CHECK_NOTHROW(p.forward_unchecked(a));  // documented: no value scan
}

TEST_CASE("a given root other than the smallest", "[plan]") {
  const std::uint64_t q = 8380417, psi3 = ntt_test::powmod(1753, 3, q);  // also a primitive 512th root
  const Plan p(256, q, psi3);
  CHECK(p.psi() == psi3);
  ntt_test::Rng r(3);
  auto a = ntt_test::random_poly(r, 256, q), b = ntt_test::random_poly(r, 256, q);
  auto x = a;
  p.forward(x);
  CHECK(x[0] == ntt_test::ntt_coeff(a, 0, q, psi3));
  p.inverse(x);
  CHECK(x == a);
  std::vector<std::uint64_t> out(256);
  tempo::ntt::multiply(p, a, b, out);
  CHECK(out == ntt_test::negacyclic(a, b, q));
}
