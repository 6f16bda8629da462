// tempo: a node's children are split in halves with join, so every child is
// a fork point; the heartbeat decides which forks become parallel.
#include <tempo/tempo.hpp>

#include "../../common/bench_common.hpp"
#include "uts.hpp"

namespace {
using namespace tb::uts;

Result visit(tempo::Task& t, const Params* p, Node n);

Result children(tempo::Task& t, const Params* p, const Node& n, int lo, int hi) {
  if (hi - lo == 1) return t.call(visit, p, child(n, lo));
  int mid = lo + (hi - lo) / 2;
  auto [a, b] = t.join([&](tempo::Task& t) { return children(t, p, n, lo, mid); },
                       [&](tempo::Task& t) { return children(t, p, n, mid, hi); });
  return a + b;
}

Result visit(tempo::Task& t, const Params* p, Node n) {
  int k = num_children(*p, n);
  Result r = leaf_or_inner(n, k);
  if (k > 0) r += children(t, p, n, 0, k);
  return r;
}

void reg(const tb::Config& c) {
  for (const auto& tree : c.uts_trees) {
    const Params& p = params(tree);
    tb::add("uts_" + tree + "/tempo", [&p](benchmark::State& s) {
      const Result& want = reference(p);
      tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
      for (auto _ : s) {
        Result r = pool.run([&p](tempo::Task& t) { return visit(t, &p, root(p)); });
        if (!tb::check(s, r == want, "uts " + p.name + ": " + describe(r))) break;
      }
      tb::ns_per(s, "ns_per_node", static_cast<double>(want.nodes));
    }, true);
  }
}
TB_REGISTER(reg);
}  // namespace
