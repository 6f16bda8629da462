// Batch entry points on the pool (and on the engine's auto placement): the same bytes as
// the single-polynomial API; errors name the polynomial and coefficient.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include <tempo/ntt.hpp>
#include <tempo/tempo.hpp>

#include "reference.hpp"

using namespace ntt_test;
using tempo::ntt::Plan;
namespace gpu = tempo::gpu;

TEST_CASE("batches equal the single-polynomial API", "[batch]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 3});
  for (const char* name : {"MLDSA", "PN10QP27", "PN11QP54", "PN12QP60"}) {
    INFO(name);
    const Plan p = Plan::preset(name);
    const std::size_t n = p.n();
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
      INFO("count = " << count);
      Rng r(count * 77 + n);
      std::vector<u64> a(count * n), b(count * n);
      for (auto& x : a) x = r.below(p.q());
      for (auto& x : b) x = r.below(p.q());
      std::vector<u64> fa = a, prod(count * n), want_f = a, want_prod(count * n);
      for (std::size_t i = 0; i < count; ++i) {
        p.forward(std::span(want_f).subspan(i * n, n));
        tempo::ntt::multiply(p, std::span(a).subspan(i * n, n), std::span(b).subspan(i * n, n),
                             std::span(want_prod).subspan(i * n, n));
      }
      for (tempo::Backend be : {tempo::Backend::cpu, tempo::Backend::auto_select}) {
        fa = a;
        pool.run([&](tempo::Task& t) { tempo::ntt::forward_batch(t, p, fa, be); });
        REQUIRE(fa == want_f);
        pool.run([&](tempo::Task& t) { tempo::ntt::inverse_batch(t, p, fa, be); });
        REQUIRE(fa == a);
        pool.run([&](tempo::Task& t) { tempo::ntt::multiply_batch(t, p, a, b, prod, be); });
        REQUIRE(prod == want_prod);
        // out aliasing b (the engine only allows aliasing input 0; the API swaps)
        auto b2 = b;
        pool.run([&](tempo::Task& t) { tempo::ntt::multiply_batch(t, p, a, b2, b2, be); });
        REQUIRE(b2 == want_prod);
      }
    }
  }
}

TEST_CASE("batch errors", "[batch]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Plan p = Plan::preset("MLDSA");
  std::vector<u64> a(3 * 256, 5), b(3 * 256, 1), out(3 * 256);
  a[2 * 256 + 9] = 8380417;
  auto msg = [&](auto&& f) -> std::string {
    try {
      pool.run([&](tempo::Task& t) { f(t); });
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK_THAT(msg([&](tempo::Task& t) { tempo::ntt::forward_batch(t, p, a); }),
             Catch::Contains("forward_batch: polys[521] (polynomial 2, coefficient 9) = 8380417"));
  CHECK_THAT(msg([&](tempo::Task& t) { tempo::ntt::multiply_batch(t, p, b, a, out); }),
             Catch::Contains("multiply_batch: b[521]"));
  CHECK_THAT(msg([&](tempo::Task& t) { tempo::ntt::inverse_batch(t, p, std::span(b).first(100)); }),
             Catch::Contains("not a multiple of n = 256"));
  CHECK_THAT(msg([&](tempo::Task& t) { tempo::ntt::multiply_batch(t, p, b, std::span(b).first(512), out); }),
             Catch::Contains("same size"));
  CHECK(msg([&](tempo::Task& t) { tempo::ntt::forward_batch_unchecked(t, p, a); }).empty());
}

// The pool's batches check each polynomial inside its transform; a failed check must
// still leave the whole batch as it was (the polynomials done before it are transformed
// back), wherever the bad value sits and however the pool splits the work.
TEST_CASE("a failed batch check leaves the batch unchanged", "[batch]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 4});
  for (const char* name : {"MLDSA", "PN10QP27", "PN11QP54"}) {
    const Plan p = Plan::preset(name);
    const std::size_t n = p.n(), count = 257;
    Rng r(n);
    std::vector<u64> polys(count * n);
    for (auto& v : polys) v = r.below(p.q());
    for (std::size_t bad : {std::size_t{0}, std::size_t{1}, count / 2, count - 1}) {
      for (bool inverse : {false, true}) {
        INFO(name << ", bad polynomial " << bad << (inverse ? ", inverse" : ", forward"));
        auto x = polys;
        x[bad * n + n / 3] = p.q() + bad;
        const auto before = x;
        std::string what;
        try {
          pool.run([&](tempo::Task& t) {
            inverse ? tempo::ntt::inverse_batch(t, p, x, tempo::Backend::cpu)
                    : tempo::ntt::forward_batch(t, p, x, tempo::Backend::cpu);
          });
        } catch (const std::invalid_argument& e) {
          what = e.what();
        }
        CHECK_THAT(what, Catch::Contains("(polynomial " + std::to_string(bad) + ", coefficient " +
                                         std::to_string(n / 3) + ")"));
        CHECK(x == before);
      }
    }
  }
}
