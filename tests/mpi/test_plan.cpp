// The root's cutting, without MPI traffic.
#include <catch2/catch.hpp>

#include "../../mpi/src/plan.hpp"

using tempo::mpi::detail::cut;

TEST_CASE("cuts of equal items are by count", "[mpi][plan]") {
  CHECK(cut(10, 4, true, {}) == std::vector<std::uint64_t>{0, 2, 5, 7, 10});
  CHECK(cut(0, 3, true, {}) == std::vector<std::uint64_t>{0, 0, 0, 0});
  CHECK(cut(2, 4, true, {}) == std::vector<std::uint64_t>{0, 0, 1, 1, 2});
}

TEST_CASE("cuts follow work", "[mpi][plan]") {
  // Item 0 weighs as much as the 9 others together.
  auto w = [](std::size_t i) { return i == 0 ? 9.0 : 1.0; };
  const auto c = cut(10, 2, false, w);
  CHECK(c == std::vector<std::uint64_t>{0, 1, 10});
  // Cuts never decrease and cover everything, whatever the weights.
  auto w2 = [](std::size_t i) { return double((i * 7919) % 13) + 0.5; };
  const auto d = cut(1000, 16, false, w2);
  CHECK(d.front() == 0);
  CHECK(d.back() == 1000);
  for (std::size_t j = 1; j < d.size(); ++j) CHECK(d[j] >= d[j - 1]);
}
