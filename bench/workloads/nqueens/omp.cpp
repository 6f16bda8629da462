// OpenMP: one task per candidate column, taskwait per row (BOTS style).
#include <array>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "nqueens.hpp"

namespace {
using tb::nqueens::Board;

std::uint64_t solve(Board b) {
  if (b.complete()) return 1;
  std::array<std::uint64_t, 32> part{};
  int i = 0;
  for (std::uint32_t m = b.free(); m; m &= m - 1, ++i) {
    Board c = b.place(m & -m);
#pragma omp task shared(part) firstprivate(c, i)
    part[i] = solve(c);
  }
#pragma omp taskwait
  std::uint64_t s = 0;
  for (int j = 0; j < i; ++j) s += part[j];
  return s;
}

void reg(const tb::Config&) {
  tb::add("nqueens/omp_task", [](benchmark::State& s) {
    const int n = tb::config().nqueens_n;
    const auto want = tb::nqueens::expected(n);
    const int k = tb::threads_of(s);
    tb::omp_require_threads(k);
    for (auto _ : s) {
      std::uint64_t r = 0;
      tb::omp_run(k, [&] { r = solve(tb::nqueens::start(n)); });
      if (!tb::check(s, r == want, "nqueens solutions")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::nqueens::placements(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
