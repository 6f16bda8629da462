// tempo: the candidate columns of a row are split in halves with join until one
// is left, so every placement is a fork point (as with rayon::join).
#include <tempo/tempo.hpp>

#include "../../common/bench_common.hpp"
#include "nqueens.hpp"

namespace {
using tb::nqueens::Board;

std::uint64_t solve(tempo::Task& t, Board b);

std::uint64_t branch(tempo::Task& t, Board b, std::uint32_t cand) {
  if ((cand & (cand - 1)) == 0) return t.call(solve, b.place(cand));
  std::uint32_t lo = tb::nqueens::low_half(cand);
  auto [x, y] = t.join([&](tempo::Task& t) { return branch(t, b, lo); },
                       [&](tempo::Task& t) { return branch(t, b, cand ^ lo); });
  return x + y;
}

std::uint64_t solve(tempo::Task& t, Board b) {
  if (b.complete()) return 1;
  std::uint32_t cand = b.free();
  return cand ? branch(t, b, cand) : 0;
}

void reg(const tb::Config&) {
  tb::add("nqueens/tempo", [](benchmark::State& s) {
    const int n = tb::config().nqueens_n;
    const auto want = tb::nqueens::expected(n);
    tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
    for (auto _ : s) {
      auto r = pool.run([n](tempo::Task& t) { return solve(t, tb::nqueens::start(n)); });
      if (!tb::check(s, r == want, "nqueens solutions")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::nqueens::placements(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
