// Plan construction: parameter errors, presets, the chosen roots.
#include <catch2/catch.hpp>

#include <cstdlib>
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

TEST_CASE("preset names are case-insensitive; a bad one lists the presets", "[plan]") {
  for (const char* name : {"mldsa", "MlDsA", "MLDSA"}) {
    INFO(name);
    const Plan p = Plan::preset(name);
    CHECK(p.n() == 256);
    CHECK(p.psi() == 1753);
  }
  CHECK(Plan::preset("pn10qp27").q() == 134215681);
  CHECK(Plan::preset("Pn14Qp60").n() == 16384);
  CHECK_THAT(error_of([] { Plan::preset("mldsa44"); }),
             Catch::Contains("unknown preset \"mldsa44\"") &&
                 Catch::Contains("MLDSA, PN10QP27, PN11QP54, PN12QP60, PN14QP60"));
  CHECK_THAT(error_of([] { Plan::preset(""); }), Catch::Contains("unknown preset \"\""));
}

TEST_CASE("TEMPO_NTT_ISA caps the CPU path; a bad value is an error naming it", "[plan]") {
  const char* before = std::getenv("TEMPO_NTT_ISA");
  const std::string saved = before ? before : "";
  ::setenv("TEMPO_NTT_ISA", "avx3", 1);
  CHECK_THAT(error_of([] { Plan(256, 8380417); }),
             Catch::Contains("TEMPO_NTT_ISA='avx3' is not accepted") &&
                 Catch::Contains("(expected one of: portable, avx2, avx512, auto)"));
  ::setenv("TEMPO_NTT_ISA", "cpu", 1);  // the old variable's habit: not an instruction set
  CHECK_THROWS_AS(Plan(1024, 134215681), std::invalid_argument);
  ::setenv("TEMPO_NTT_ISA", "Portable", 1);
  CHECK(Plan(256, 8380417).cpu_path() == "portable");
  ::setenv("TEMPO_NTT_ISA", "AVX2", 1);
  CHECK_FALSE(Plan(256, 8380417).cpu_path().starts_with("avx512"));
  ::setenv("TEMPO_NTT_ISA", "", 1);  // empty: the default, the widest the CPU has
  const Plan widest(256, 8380417);
  ::setenv("TEMPO_NTT_ISA", "auto", 1);
  CHECK(Plan(256, 8380417).cpu_path() == widest.cpu_path());
  if (before) ::setenv("TEMPO_NTT_ISA", saved.c_str(), 1);
  else ::unsetenv("TEMPO_NTT_ISA");
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
