// oneTBB: parallel_invoke at every node, and task_group (run one child, do the
// other inline, wait) at every node. Both inside one arena of k threads.
#include <tbb/parallel_invoke.h>
#include <tbb/task_group.h>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "tree.hpp"

namespace {
using tb::tree::Node;

std::int64_t sum_invoke(const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    std::int64_t a = 0, b = 0;
    tbb::parallel_invoke([&] { a = sum_invoke(n->left); }, [&] { b = sum_invoke(n->right); });
    return r + a + b;
  }
  if (n->left) r += sum_invoke(n->left);
  if (n->right) r += sum_invoke(n->right);
  return r;
}

std::int64_t sum_group(const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    std::int64_t a = 0;
    tbb::task_group g;
    g.run([&] { a = sum_group(n->left); });
    std::int64_t b = sum_group(n->right);
    g.wait();
    return r + a + b;
  }
  if (n->left) r += sum_group(n->left);
  if (n->right) r += sum_group(n->right);
  return r;
}

template <std::int64_t (*Sum)(const Node*)>
void bench(benchmark::State& s, std::size_t nodes) {
  const auto& tr = tb::tree::get(nodes);
  const std::size_t reps = tb::tree::reps(nodes, tb::config().tree_nodes_per_iter);
  const Node* root = tr.root();
  tb::TbbEnv env(tb::threads_of(s));
  for (auto _ : s) {
    std::int64_t total = env.run([&] {
      std::int64_t acc = 0;
      for (std::size_t r = 0; r < reps; ++r) {
        benchmark::DoNotOptimize(root);
        acc += Sum(root);
      }
      return acc;
    });
    if (!tb::check(s, total == tr.expected_sum() * static_cast<std::int64_t>(reps), "tree sum")) break;
  }
  tb::ns_per(s, "ns_per_node", static_cast<double>(nodes * reps));
}

void reg(const tb::Config& c) {
  for (std::size_t nodes : c.tree_nodes) {
    tb::add(tb::tree::name("tbb_invoke", nodes), [nodes](benchmark::State& s) { bench<sum_invoke>(s, nodes); }, true);
    tb::add(tb::tree::name("tbb_task_group", nodes), [nodes](benchmark::State& s) { bench<sum_group>(s, nodes); },
            true);
  }
}
TB_REGISTER(reg);
}  // namespace
