// The 32-bit coefficient layout (q < 2^31) against the 64-bit one on the CPU: Plan's
// single-polynomial forms and the batch entry points at every n, the same values; bad
// input (a value >= q, a plan whose q needs 64 bits, a bad length) rejected with nothing
// written. The device side of the layout is in test_gpu.cpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include <tempo/ntt.hpp>
#include <tempo/ntt/detail/cpu_paths.hpp>
#include <tempo/tempo.hpp>

#include "reference.hpp"

using namespace ntt_test;
using tempo::ntt::Plan;
using u32 = std::uint32_t;

namespace {
std::vector<u32> narrow(const std::vector<u64>& v) { return {v.begin(), v.end()}; }
}  // namespace

TEST_CASE("u32 layout equals the u64 one at every n", "[u32]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const auto cpu = tempo::Backend::cpu;
  // Lazy 32-bit kernels (q < 2^30), fully reduced ones (q < 2^31), and an ML-DSA-sized q.
  for (u64 q : {1073479681ull, 2147352577ull, 8380417ull}) {
    for (std::size_t n = 16; n <= 65536; n *= 2) {
      if ((q - 1) % (2 * n) != 0) continue;
      INFO("n = " << n << ", q = " << q);
      const Plan p(n, q);
      const std::size_t count = n >= 16384 ? 2 : 5;
      Rng r(n * 31 + q);
      auto a = random_poly(r, count * n, q), b = random_poly(r, count * n, q);
      std::fill(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), q - 1);
      std::vector<u64> f = a, m(count * n);
      pool.run([&](tempo::Task& t) {
        tempo::ntt::forward_batch(t, p, f, cpu);
        tempo::ntt::multiply_batch(t, p, a, b, m, cpu);
      });
      // Single polynomials, checked and unchecked.
      for (std::size_t i = 0; i < count; ++i) {
        std::vector<u32> x(a.begin() + static_cast<std::ptrdiff_t>(i * n), a.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
        const std::vector<u32> x0 = x;
        p.forward(std::span(x));
        REQUIRE(std::equal(x.begin(), x.end(), f.begin() + static_cast<std::ptrdiff_t>(i * n)));
        p.inverse(std::span(x));
        REQUIRE(x == x0);
        p.forward_unchecked(std::span(x));
        REQUIRE(std::equal(x.begin(), x.end(), f.begin() + static_cast<std::ptrdiff_t>(i * n)));
        p.inverse_unchecked(std::span(x));
        REQUIRE(x == x0);
      }
      // Batches, checked and unchecked, and multiply in place (out = a, out = b).
      auto x = narrow(a), a32 = narrow(a), b32 = narrow(b);
      std::vector<u32> m32(count * n);
      pool.run([&](tempo::Task& t) {
        tempo::ntt::forward_batch(t, p, std::span(x), cpu);
        CHECK(x == narrow(f));
        tempo::ntt::inverse_batch(t, p, std::span(x), cpu);
        CHECK(x == a32);
        tempo::ntt::forward_batch_unchecked(t, p, std::span(x), cpu);
        CHECK(x == narrow(f));
        tempo::ntt::inverse_batch_unchecked(t, p, std::span(x), cpu);
        CHECK(x == a32);
        tempo::ntt::multiply_batch(t, p, std::span<const u32>(a32), std::span<const u32>(b32), std::span(m32), cpu);
        CHECK(m32 == narrow(m));
        auto y = b32;
        tempo::ntt::multiply_batch_unchecked(t, p, std::span<const u32>(a32), std::span<const u32>(y), std::span(y), cpu);
        CHECK(y == narrow(m));
      });
    }
  }
}

// Paths with uint32 kernels of their own (avx512-w32: in place) and those that widen.
TEST_CASE("u32 single polynomials equal the u64 ones on every CPU path", "[u32]") {
  for (u64 q : {134215681ull, 2147352577ull}) {
    for (std::size_t n : {16u, 32u, 64u, 128u, 1024u, 8192u}) {
      if ((q - 1) % (2 * n) != 0) continue;
      const Plan base(n, q);
      for (std::string_view path : tempo::ntt::detail::cpu_paths(q)) {
        INFO("n = " << n << ", q = " << q << ", path " << path);
        const Plan p = tempo::ntt::detail::with_cpu_path(base, path);
        Rng r(n + q);
        const auto a = random_poly(r, n, q);
        std::vector<u64> f = a;
        p.forward(std::span(f));
        std::vector<u32> x = narrow(a);
        p.forward_unchecked(std::span(x));
        REQUIRE(x == narrow(f));
        p.inverse_unchecked(std::span(x));
        REQUIRE(x == narrow(a));
        p.forward(std::span(x));
        REQUIRE(x == narrow(f));
        p.inverse(std::span(x));
        REQUIRE(x == narrow(a));
        // A prefetch hint changes no value: small, unaligned, and larger than the kernel
        // takes (it prefetches at most 1 MiB), and an empty one.
        const std::vector<std::uint8_t> far((std::size_t{3} << 20) + 7, 0x5a);
        for (const Plan::Prefetch ahead : {Plan::Prefetch{far.data() + 3, 100000}, Plan::Prefetch{far.data(), far.size()},
                                           Plan::Prefetch{far.data() + 1, 1}, Plan::Prefetch{}}) {
          p.forward_unchecked(std::span(x), ahead);
          REQUIRE(x == narrow(f));
          p.inverse_unchecked(std::span(x), ahead);
          REQUIRE(x == narrow(a));
        }
        x[n - 1] = static_cast<u32>(q);
        const auto x0 = x;
        CHECK_THROWS_WITH(p.forward(std::span(x)), Catch::Contains("is not below q"));
        CHECK_THROWS_WITH(p.inverse(std::span(x)), Catch::Contains("is not below q"));
        CHECK(x == x0);
      }
    }
  }
}

TEST_CASE("u32 layout: bad input is rejected with nothing written", "[u32]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Plan p = Plan::preset("PN10QP27");
  const std::size_t n = p.n(), count = 6;
  Rng r(3);
  const auto a = narrow(random_poly(r, count * n, p.q())), b = narrow(random_poly(r, count * n, p.q()));
  for (auto backend : {tempo::Backend::cpu, tempo::Backend::auto_select}) {
    auto x = a;
    x[4 * n + 17] = static_cast<u32>(p.q());  // polynomial 4, coefficient 17
    const auto x0 = x;
    pool.run([&](tempo::Task& t) {
      CHECK_THROWS_WITH(tempo::ntt::forward_batch(t, p, std::span(x), backend),
                        Catch::Contains("polys[4113] (polynomial 4, coefficient 17) = 134215681 is not below q"));
      CHECK(x == x0);
      CHECK_THROWS_AS(tempo::ntt::inverse_batch(t, p, std::span(x), backend), std::invalid_argument);
      CHECK(x == x0);
      std::vector<u32> out(count * n, 7);
      CHECK_THROWS_WITH(tempo::ntt::multiply_batch(t, p, std::span<const u32>(a), std::span<const u32>(x),
                                                   std::span(out), backend),
                        Catch::Contains("b[4113]"));
      CHECK(out == std::vector<u32>(count * n, 7));
      std::vector<u32> odd(n + 1);
      CHECK_THROWS_WITH(tempo::ntt::forward_batch(t, p, std::span(odd), backend), Catch::Contains("not a multiple of n"));
    });
  }
  std::vector<u32> one(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n));
  one[5] = 0xffffffffu;
  const auto one0 = one;
  CHECK_THROWS_WITH(p.forward(std::span(one)), Catch::Contains("a[5] = 4294967295 is not below q"));
  CHECK(one == one0);
  CHECK_THROWS_AS(p.inverse(std::span(one)), std::invalid_argument);
  CHECK(one == one0);
  std::vector<u32> short_poly(n - 1);
  CHECK_THROWS_WITH(p.forward_unchecked(std::span(short_poly)), Catch::Contains("the plan's n is 1024"));

  // q >= 2^31 does not fit the layout: every u32 entry point refuses before touching data.
  const Plan wide = Plan::preset("PN11QP54");
  std::vector<u32> w(wide.n(), 1);
  const auto w0 = w;
  CHECK_THROWS_WITH(wide.forward(std::span(w)), Catch::Contains("32-bit coefficients need q < 2^31"));
  CHECK_THROWS_AS(wide.inverse_unchecked(std::span(w)), std::invalid_argument);
  CHECK_THROWS_WITH(tempo::ntt::NttOp(wide, tempo::ntt::OpKind::forward, tempo::ntt::Layout::u32),
                    Catch::Contains("32-bit coefficients need q < 2^31"));
  pool.run([&](tempo::Task& t) {
    CHECK_THROWS_WITH(tempo::ntt::forward_batch(t, wide, std::span(w)), Catch::Contains("forward_batch: 32-bit"));
    std::vector<u32> o(wide.n());
    CHECK_THROWS_WITH(tempo::ntt::multiply_batch_unchecked(t, wide, std::span<const u32>(w), std::span<const u32>(w),
                                                           std::span(o)),
                      Catch::Contains("multiply_batch: 32-bit"));
  });
  CHECK(w == w0);
  // The largest q the layout takes: just below 2^31.
  CHECK_NOTHROW(tempo::ntt::NttOp(Plan(1024, 2147352577ull), tempo::ntt::OpKind::inverse, tempo::ntt::Layout::u32));
}

TEST_CASE("u32 NttOp: items of n * 4 bytes, a key of its own", "[u32]") {
  const Plan p = Plan::preset("MLDSA");
  const tempo::ntt::NttOp w64(p, tempo::ntt::OpKind::forward), w32(p, tempo::ntt::OpKind::forward, tempo::ntt::Layout::u32);
  CHECK(w64.out_stride() == 256 * 8);
  CHECK(w32.out_stride() == 256 * 4);
  CHECK(w32.layout() == tempo::ntt::Layout::u32);
  CHECK(w32.key() != w64.key());
  CHECK(w32.work(1024) == w64.work(2048));  // the same butterflies over half the bytes
}
