// Every CPU kernel set this machine supports (portable, AVX2, AVX-512 forms) against the
// portable one, byte for byte, on seeded inputs, for each modulus class it accepts.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <tempo/ntt.hpp>
#include <tempo/ntt/detail/cpu_paths.hpp>

#include "reference.hpp"
#include "tables.hpp"

using namespace ntt_test;
namespace d = tempo::ntt::detail;

TEST_CASE("every CPU path equals the portable one", "[paths]") {
  // Each path's edges: 133857281 (below 2^27, 1 mod 2^15: the lazy 32-bit schedules up to
  // n = 16384), 268369921 and 1073643521 (q > 2^27: the 32-bit path's Harvey
  // schedule, not the lazy one), 2147352577 (above 2^30: its full schedule),
  // 2305843009211662337 (just below 2^61).
  const u64 primes[] = {8380417,          134215681,           133857281,  268369921,
                        1073643521,       2147352577,       1125899903827969ull, 18014398509404161ull,
                        2305843009211662337ull, 4611686018425815041ull};
  const int reps = 3 * sweep();
  for (u64 q : primes) {
    const auto kernels = d::kernels_for(q);
    for (std::size_t n = 16; n <= 16384; n *= 2) {
      if (q % (2 * n) != 1) continue;
      const u64 psi = d::minimal_root(n, q);
      const auto ref = d::build_tables(n, q, psi, d::portable_kernels());
      for (const d::Kernels* k : kernels) {
        INFO("kernel " << k->name << ", n = " << n << ", q = " << q);
        const auto t = d::build_tables(n, q, psi, *k);
        Rng r(n ^ q);
        for (int rep = 0; rep < reps; ++rep) {
          auto a = random_poly(r, n, q);
          if (rep == 0) std::fill(a.begin(), a.end(), q - 1);
          auto x = a, y = a;
          ref->kernels->forward(*ref, x.data());
          k->forward(*t, y.data());
          REQUIRE(x == y);
          ref->kernels->inverse(*ref, x.data());
          k->inverse(*t, y.data());
          REQUIRE(y == a);
          REQUIRE(x == y);
          // the checked forms: the same bytes, and on a value >= q false with a untouched
          auto z = a;
          REQUIRE(k->forward_checked(*t, z.data()));
          k->forward(*t, y.data());
          REQUIRE(z == y);
          REQUIRE(k->inverse_checked(*t, z.data()));
          REQUIRE(z == a);
          auto bad = a;
          bad[(static_cast<std::size_t>(rep) * 7919) % n] = q + static_cast<u64>(rep);
          const auto bad_copy = bad;
          REQUIRE_FALSE(k->forward_checked(*t, bad.data()));
          REQUIRE(bad == bad_copy);
          REQUIRE_FALSE(k->inverse_checked(*t, bad.data()));
          REQUIRE(bad == bad_copy);
          // pointwise products against the portable Barrett, plain and accumulating
          auto b = random_poly(r, n, q);
          if (rep == 0) std::fill(b.begin(), b.end(), q - 1);
          auto p1 = b, p2 = b, acc1 = a, acc2 = a;
          ref->kernels->pointwise(*ref, a.data(), b.data(), p1.data(), false);
          k->pointwise(*t, a.data(), b.data(), p2.data(), false);
          REQUIRE(p1 == p2);
          ref->kernels->pointwise(*ref, a.data(), b.data(), acc1.data(), true);
          k->pointwise(*t, a.data(), b.data(), acc2.data(), true);
          REQUIRE(acc1 == acc2);
          for (std::size_t i = 0; i < n; ++i) REQUIRE(p1[i] == mulmod(a[i], b[i], q));
        }
      }
    }
  }
  INFO("paths here: " << d::kernels_for(1).size());
  SUCCEED();
}

TEST_CASE("every CPU path at the largest q of the lazy 32-bit forward", "[paths]") {
  // avx512-w32's lazy forward runs while (2 log n + 1) q < 2^32: values may reach
  // (2 log n - 1) q before its last stage, which reduces them by a chain of conditional
  // subtractions. These are the largest such primes for n = 128, 256 (the chain of three),
  // 1024 and 2048 (four; 128 and 2048 also end the stages with len >= 16 in the small-stage
  // pass), so that no bound has slack left.
  const struct {
    std::size_t n;
    u64 q;
  } edges[] = {{128, 286329089}, {256, 252638209}, {1024, 204472321}, {2048, 186695681}};
  for (const auto& e : edges) {
    const u64 psi = d::minimal_root(e.n, e.q);
    const auto ref = d::build_tables(e.n, e.q, psi, d::portable_kernels());
    for (const d::Kernels* k : d::kernels_for(e.q)) {
      INFO("kernel " << k->name << ", n = " << e.n << ", q = " << e.q);
      const auto t = d::build_tables(e.n, e.q, psi, *k);
      Rng r(e.n + e.q);
      for (int rep = 0; rep < 2 + 3 * sweep(); ++rep) {
        auto a = random_poly(r, e.n, e.q);
        if (rep == 0) std::fill(a.begin(), a.end(), e.q - 1);
        if (rep == 1)
          for (std::size_t i = 0; i < e.n; ++i) a[i] = i % 2 ? e.q - 1 : 0;
        auto x = a, y = a;
        ref->kernels->forward(*ref, x.data());
        REQUIRE(k->forward_checked(*t, y.data()));
        REQUIRE(x == y);
        REQUIRE(k->inverse_checked(*t, y.data()));
        REQUIRE(y == a);
      }
    }
  }
}

TEST_CASE("every CPU path at every n to 65536, at the top of each 32-bit schedule", "[paths]") {
  // The largest primes = 1 mod 2^17 below 2^27 (avx512-w32's lazy inverse: sums reach
  // 32 q), 2^30 (Harvey) and 2^31 (full), so every n from 16 to 65536 runs: odd and even
  // counts of stages with len >= 16 (an odd count puts len 16 into the small-stage passes),
  // one and two blocks per step of the inverse's small-stage pass.
  for (const u64 q : {132120577ull, 1073479681ull, 2147352577ull}) {
    for (std::size_t n = 16; n <= 65536; n *= 2) {
      const u64 psi = d::minimal_root(n, q);
      const auto ref = d::build_tables(n, q, psi, d::portable_kernels());
      for (const d::Kernels* k : d::kernels_for(q)) {
        INFO("kernel " << k->name << ", n = " << n << ", q = " << q);
        const auto t = d::build_tables(n, q, psi, *k);
        Rng r(n * 3 + q);
        for (int rep = 0; rep < 2; ++rep) {
          auto a = random_poly(r, n, q);
          if (rep == 0) std::fill(a.begin(), a.end(), q - 1);
          auto x = a, y = a;
          ref->kernels->forward(*ref, x.data());
          REQUIRE(k->forward_checked(*t, y.data()));
          REQUIRE(x == y);
          ref->kernels->inverse(*ref, x.data());
          REQUIRE(k->inverse_checked(*t, y.data()));
          REQUIRE(x == a);
          REQUIRE(y == a);
          auto bad = a;
          bad[rep == 0 ? n - 1 : (n * 5) / 7] = q;
          const auto bad_copy = bad;
          REQUIRE_FALSE(k->forward_checked(*t, bad.data()));
          REQUIRE(bad == bad_copy);
          REQUIRE_FALSE(k->inverse_checked(*t, bad.data()));
          REQUIRE(bad == bad_copy);
        }
      }
    }
  }
}

TEST_CASE("detail::with_cpu_path: every path by name, the same transform", "[paths]") {
  for (const char* preset : {"MLDSA", "PN10QP27", "PN11QP54", "PN12QP60"}) {
    const tempo::ntt::Plan plan = tempo::ntt::Plan::preset(preset);
    const auto paths = d::cpu_paths(plan.q());
    REQUIRE(!paths.empty());
    CHECK(paths.back() == "portable");
    Rng r(plan.n());
    const auto a = random_poly(r, plan.n(), plan.q());
    auto want = a;
    plan.forward(want);
    for (std::string_view path : paths) {
      INFO(preset << " on " << path);
      const tempo::ntt::Plan p = d::with_cpu_path(plan, path);
      CHECK(p.cpu_path() == path);
      CHECK(p.psi() == plan.psi());
      auto x = a;
      p.forward(x);
      CHECK(x == want);
      p.inverse(x);
      CHECK(x == a);
    }
  }
  // A path this q cannot use (the 32-bit kernels need q < 2^30) is named in the error.
  const tempo::ntt::Plan big = tempo::ntt::Plan::preset("PN12QP60");
  CHECK_THROWS_WITH(d::with_cpu_path(big, "avx2-q30"), Catch::Contains("no CPU path \"avx2-q30\"") &&
                                                           Catch::Contains("portable"));
  CHECK_THROWS_AS(d::with_cpu_path(big, "sse9"), std::invalid_argument);
}

// The checked entry points on every path: the same bytes as the raw kernel, and a value
// >= q anywhere (first, middle or last, where the fused checks' first passes read it at
// different points) throws and leaves the array exactly as it was. Moduli 1 mod 8192 (so
// every n below): each 32-bit path's, IFMA's and the three-product form's largest, and one
// below 2^62 (the exact quotient).
TEST_CASE("checked transforms on every path: the raw kernel's result, or a throw with a untouched", "[paths]") {
  const u64 primes[] = {8380417, 1073692673, 2147377153, 1125899906826241ull, 2305843009213554689ull,
                        4611686018427322369ull};
  for (u64 q : primes) {
    for (std::size_t n : {16, 64, 1024, 2048, 4096}) {
      const tempo::ntt::Plan plan(n, q);
      for (std::string_view path : d::cpu_paths(q)) {
        INFO("path " << path << ", n = " << n << ", q = " << q);
        const tempo::ntt::Plan p = d::with_cpu_path(plan, path);
        Rng r(n * 31 + q);
        for (int rep = 0; rep < 2 + 2 * sweep(); ++rep) {
          auto a = random_poly(r, n, q);
          if (rep == 0) std::fill(a.begin(), a.end(), q - 1);
          if (rep == 1) std::fill(a.begin(), a.end(), u64{0});
          auto x = a, y = a;
          p.forward(x);
          p.forward_unchecked(y);
          REQUIRE(x == y);
          p.inverse(x);
          p.inverse_unchecked(y);
          REQUIRE(x == y);
          REQUIRE(x == a);
          const u64 bad_values[] = {q, q + 1 + static_cast<u64>(rep), ~u64{0}};
          for (std::size_t i : {std::size_t{0}, n / 2 + 3, n - 1})
            for (u64 v : bad_values) {
              auto b = a;
              b[i] = v;
              const auto copy = b;
              const std::string at = "a[" + std::to_string(i) + "] = " + std::to_string(v);
              REQUIRE_THROWS_WITH(p.forward(b), Catch::Contains(at));
              REQUIRE(b == copy);
              REQUIRE_THROWS_WITH(p.inverse(b), Catch::Contains(at));
              REQUIRE(b == copy);
            }
        }
      }
    }
  }
}

// The fused checks keep per-thread scratch: several threads at once, each through sizes
// that grow and shrink it, get the single-threaded results (and TSan sees no sharing).
TEST_CASE("checked transforms on several threads at once", "[paths]") {
  const u64 q = 1125899906826241ull;
  for (std::string_view path : d::cpu_paths(q)) {
    INFO("path " << path);
    std::vector<tempo::ntt::Plan> plans;
    std::vector<std::vector<u64>> inputs, want;
    for (std::size_t n : {64, 4096, 1024, 16, 2048}) {
      plans.push_back(d::with_cpu_path(tempo::ntt::Plan(n, q), path));
      Rng r(n);
      inputs.push_back(random_poly(r, n, q));
      want.push_back(inputs.back());
      plans.back().forward_unchecked(want.back());
    }
    std::vector<int> ok(4, 0);
    std::vector<std::thread> threads;
    for (std::size_t th = 0; th < ok.size(); ++th)
      threads.emplace_back([&, th] {
        bool good = true;
        for (int round = 0; round < 20; ++round)
          for (std::size_t k = 0; k < plans.size(); ++k) {
            const std::size_t j = (k + th) % plans.size();
            auto x = inputs[j];
            plans[j].forward(x);
            good = good && x == want[j];
            plans[j].inverse(x);
            good = good && x == inputs[j];
          }
        ok[th] = good ? 1 : 0;
      });
    for (auto& t : threads) t.join();
    for (int v : ok) CHECK(v == 1);
  }
}
