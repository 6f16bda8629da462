// tempo: a join at every node with two children in both user shapes
// (shapes.hpp: by value, and [&] with t.call), and the same with the
// low-level tempo::Fork in the caller's frame (Spice's exact shape).
#include <tempo/tempo.hpp>

#include "../../common/bench_common.hpp"
#include "shapes.hpp"
#include "tree.hpp"

namespace {
using tb::tree::Node;

std::int64_t sum_fork(tempo::Task& t, const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    auto right = [n](tempo::Task& t) { return t.call(sum_fork, n->right); };
    tempo::Fork fork(t, right);
    r += t.call(sum_fork, n->left);
    if (auto* b = fork.join(t))
      r += *b;  // another worker took the right half
    else
      r += right(t);
    return r;
  }
  if (n->left) r += t.call(sum_fork, n->left);
  if (n->right) r += t.call(sum_fork, n->right);
  return r;
}

template <std::int64_t (*Sum)(tempo::Task&, const Node*)>
void bench(benchmark::State& s, std::size_t nodes) {
  const auto& tr = tb::tree::get(nodes);
  const std::size_t reps = tb::tree::reps(nodes, tb::config().tree_nodes_per_iter);
  const Node* root = tr.root();
  tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
  for (auto _ : s) {
    // All repetitions inside one run(), as in the published anchors.
    std::int64_t total = pool.run([&](tempo::Task& t) {
      std::int64_t acc = 0;
      for (std::size_t r = 0; r < reps; ++r) {
        benchmark::DoNotOptimize(root);
        acc += Sum(t, root);
      }
      return acc;
    });
    if (!tb::check(s, total == tr.expected_sum() * static_cast<std::int64_t>(reps), "tree sum")) break;
  }
  tb::ns_per(s, "ns_per_node", static_cast<double>(nodes * reps));
}

void reg(const tb::Config& c) {
  for (std::size_t nodes : c.tree_nodes) {
    tb::add(tb::tree::name("tempo", nodes), [nodes](benchmark::State& s) { bench<tb::tree::sum_byval>(s, nodes); },
            true);
    tb::add(tb::tree::name("tempo_byref", nodes), [nodes](benchmark::State& s) { bench<tb::tree::sum_byref>(s, nodes); },
            true);
    tb::add(tb::tree::name("tempo_fork", nodes), [nodes](benchmark::State& s) { bench<sum_fork>(s, nodes); }, true);
  }
}
TB_REGISTER(reg);
}  // namespace
