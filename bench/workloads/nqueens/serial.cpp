#include "../../common/bench_common.hpp"
#include "nqueens.hpp"

namespace {
void reg(const tb::Config&) {
  tb::add("nqueens/serial", [](benchmark::State& s) {
    const int n = tb::config().nqueens_n;
    const auto want = tb::nqueens::expected(n);
    for (auto _ : s) {
      auto b = tb::nqueens::start(n);
      benchmark::DoNotOptimize(b);
      if (!tb::check(s, tb::nqueens::count(b) == want, "nqueens solutions")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::nqueens::placements(n));
  }, false);
}
TB_REGISTER(reg);
}  // namespace
