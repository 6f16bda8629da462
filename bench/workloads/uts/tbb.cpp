// oneTBB: one task_group per node, one task per child.
#include <tbb/task_group.h>

#include <vector>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "uts.hpp"

namespace {
using namespace tb::uts;

Result visit(const Params& p, const Node& n) {
  int k = num_children(p, n);
  Result r = leaf_or_inner(n, k);
  if (k == 0) return r;
  // The binomial root has 2000 children; others at most 100.
  std::vector<Result> part(static_cast<std::size_t>(k));
  tbb::task_group g;
  for (int i = 0; i < k; ++i) g.run([&p, &n, &part, i] { part[i] = visit(p, child(n, i)); });
  g.wait();
  for (const auto& x : part) r += x;
  return r;
}

void reg(const tb::Config& c) {
  for (const auto& tree : c.uts_trees) {
    const Params& p = params(tree);
    tb::add("uts_" + tree + "/tbb_task_group", [&p](benchmark::State& s) {
      const Result& want = reference(p);
      tb::TbbEnv env(tb::threads_of(s));
      for (auto _ : s) {
        Result r = env.run([&p] { return visit(p, root(p)); });
        if (!tb::check(s, r == want, "uts " + p.name + ": " + describe(r))) break;
      }
      tb::ns_per(s, "ns_per_node", static_cast<double>(want.nodes));
    }, true);
  }
}
TB_REGISTER(reg);
}  // namespace
