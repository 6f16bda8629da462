#include "../../common/bench_common.hpp"
#include "uts.hpp"

namespace {
using namespace tb::uts;

Result visit(const Params& p, const Node& n) {
  int k = num_children(p, n);
  Result r = leaf_or_inner(n, k);
  for (int i = 0; i < k; ++i) r += visit(p, child(n, i));
  return r;
}

void reg(const tb::Config& c) {
  for (const auto& tree : c.uts_trees) {
    const Params& p = params(tree);  // unknown names fail at startup
    tb::add("uts_" + tree + "/serial", [&p](benchmark::State& s) {
      const Result& want = reference(p);
      for (auto _ : s) {
        Result r = visit(p, root(p));
        if (!tb::check(s, r == want, "uts " + p.name + ": " + describe(r))) break;
      }
      tb::ns_per(s, "ns_per_node", static_cast<double>(want.nodes));
    }, false);
  }
}
TB_REGISTER(reg);
}  // namespace
