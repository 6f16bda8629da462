// NTT batches over the ranks (tempo::mpi::ntt, NttOp through mpi::run): byte-identical
// to Plan::forward / inverse / multiply in one process, and the root's checks.
#include <random>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/mpi/ntt.hpp>
#include <tempo/ntt.hpp>

#include "common.hpp"

using namespace tempo;

namespace {
std::vector<std::uint64_t> random_polys(const ntt::Plan& plan, std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> v(count * plan.n());
  for (auto& c : v) c = rng() % plan.q();
  return v;
}
}  // namespace

TEST_CASE("NTT batches over the ranks equal one process", "[mpi][ntt]") {
  const bool root = mpi_test::rank() == 0;
  for (const char* preset : {"PN10QP27", "PN11QP54"}) {
    const auto plan = ntt::Plan::preset(preset);
    const std::size_t count = 37;  // not a multiple of any rank count
    const auto a = random_polys(plan, count, 1), b = random_polys(plan, count, 2);
    std::vector<std::uint64_t> fwd = root ? a : std::vector<std::uint64_t>{};
    std::vector<std::uint64_t> prod(root ? a.size() : 0);
    mpi_test::pool().run([&](Task& t) {
      mpi::ntt::forward_batch(t, MPI_COMM_WORLD, plan, fwd);
      mpi::ntt::multiply_batch(t, MPI_COMM_WORLD, plan, root ? std::span<const std::uint64_t>(a) : std::span<const std::uint64_t>{},
                               root ? std::span<const std::uint64_t>(b) : std::span<const std::uint64_t>{}, prod);
    });
    std::vector<std::uint64_t> want = a, want_prod(a.size());
    if (root)
      for (std::size_t i = 0; i < count; ++i) {
        const std::size_t n = plan.n();
        plan.forward(std::span(want).subspan(i * n, n));
        ntt::multiply(plan, std::span(a).subspan(i * n, n), std::span(b).subspan(i * n, n),
                      std::span(want_prod).subspan(i * n, n));
      }
    if (root) {
      CHECK(fwd == want);
      CHECK(prod == want_prod);
    }
    mpi_test::pool().run([&](Task& t) { mpi::ntt::inverse_batch(t, MPI_COMM_WORLD, plan, fwd); });
    if (root) CHECK(fwd == a);
  }
}

TEST_CASE("a coefficient out of range is one error on every rank", "[mpi][ntt]") {
  const bool root = mpi_test::rank() == 0;
  const auto plan = ntt::Plan::preset("PN10QP27");
  auto polys = random_polys(plan, 3, 5);
  polys[plan.n() + 7] = plan.q();
  std::vector<std::uint64_t> mine = root ? polys : std::vector<std::uint64_t>{};
  mpi_test::pool().run([&](Task& t) {
    CHECK_THROWS_WITH(mpi::ntt::forward_batch(t, MPI_COMM_WORLD, plan, mine),
                      Catch::Contains("polynomial 1, coefficient 7"));
  });
}
