// Known answers from tests/data/ntt/make_kat.py (direct evaluation, schoolbook products,
// FIPS 204 Algorithm 41 for MLDSA).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <tempo/ntt.hpp>

using u64 = std::uint64_t;

namespace {
struct Case {
  std::string name;
  std::size_t n = 0;
  u64 q = 0, psi = 0;
  std::vector<u64> a, ntt, b, prod;
};

std::vector<Case> load() {
  std::ifstream in(std::string(TEMPO_NTT_DATA_DIR) + "/ntt_kat.txt");
  REQUIRE(in.good());
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string tag;
    s >> tag;
    if (tag == "case") {
      cases.emplace_back();
      s >> cases.back().name >> cases.back().n >> cases.back().q >> cases.back().psi;
      continue;
    }
    std::vector<u64> v;
    for (u64 x; s >> x;) v.push_back(x);
    Case& c = cases.back();
    (tag == "a" ? c.a : tag == "ntt" ? c.ntt : tag == "b" ? c.b : c.prod) = v;
  }
  return cases;
}
}  // namespace

TEST_CASE("known answers", "[kat]") {
  const auto cases = load();
  REQUIRE(cases.size() == 14);
  for (const Case& c : cases) {
    INFO(c.name);
    const bool preset = c.name.rfind("n", 0) != 0;
    const tempo::ntt::Plan plan = preset ? tempo::ntt::Plan::preset(c.name) : tempo::ntt::Plan(c.n, c.q);
    REQUIRE(plan.n() == c.n);
    REQUIRE(plan.q() == c.q);
    REQUIRE(plan.psi() == c.psi);
    std::vector<u64> x = c.a;
    plan.forward(x);
    CHECK(x == c.ntt);
    plan.inverse(x);
    CHECK(x == c.a);
    std::vector<u64> out(c.n);
    tempo::ntt::multiply(plan, c.a, c.b, out);
    CHECK(out == c.prod);
  }
}
