// oneTBB: one task_group per row, one task per candidate column (BOTS style).
#include <tbb/task_group.h>

#include <array>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "nqueens.hpp"

namespace {
using tb::nqueens::Board;

std::uint64_t solve(Board b) {
  if (b.complete()) return 1;
  std::array<std::uint64_t, 32> part{};
  tbb::task_group g;
  int i = 0;
  for (std::uint32_t m = b.free(); m; m &= m - 1, ++i) {
    Board c = b.place(m & -m);
    g.run([c, &part, i] { part[i] = solve(c); });
  }
  g.wait();
  std::uint64_t s = 0;
  for (int j = 0; j < i; ++j) s += part[j];
  return s;
}

void reg(const tb::Config&) {
  tb::add("nqueens/tbb_task_group", [](benchmark::State& s) {
    const int n = tb::config().nqueens_n;
    const auto want = tb::nqueens::expected(n);
    tb::TbbEnv env(tb::threads_of(s));
    for (auto _ : s) {
      auto r = env.run([n] { return solve(tb::nqueens::start(n)); });
      if (!tb::check(s, r == want, "nqueens solutions")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::nqueens::placements(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
