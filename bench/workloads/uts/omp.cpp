// OpenMP: one task per child, taskwait per node.
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
  std::vector<Result> part(static_cast<std::size_t>(k));
  Result* out = part.data();
  const Params* pp = &p;
  const Node* np = &n;
  for (int i = 0; i < k; ++i) {
#pragma omp task firstprivate(i, out, pp, np)
    out[i] = visit(*pp, child(*np, i));
  }
#pragma omp taskwait
  for (const auto& x : part) r += x;
  return r;
}

void reg(const tb::Config& c) {
  for (const auto& tree : c.uts_trees) {
    const Params& p = params(tree);
    tb::add("uts_" + tree + "/omp_task", [&p](benchmark::State& s) {
      const Result& want = reference(p);
      const int k = tb::threads_of(s);
      tb::omp_require_threads(k);
      for (auto _ : s) {
        Result r;
        tb::omp_run(k, [&] { r = visit(p, root(p)); });
        if (!tb::check(s, r == want, "uts " + p.name + ": " + describe(r))) break;
      }
      tb::ns_per(s, "ns_per_node", static_cast<double>(want.nodes));
    }, true);
  }
}
TB_REGISTER(reg);
}  // namespace
