// Plain serial recursion: the baseline every variant is compared with; and
// tempo's two user shapes compiled on a do-nothing SerialTask (the runtime's
// cost is tempo_X / serial_task_X).
#include "../../common/bench_common.hpp"
#include "../../common/serial_task.hpp"
#include "shapes.hpp"
#include "tree.hpp"

namespace {
using tb::tree::Node;

std::int64_t sum(const Node* n) {
  std::int64_t r = n->value;
  if (n->left) r += sum(n->left);
  if (n->right) r += sum(n->right);
  return r;
}

template <std::int64_t (*Sum)(tb::SerialTask&, const Node*)>
void bench_serial_task(benchmark::State& s, std::size_t nodes) {
  const auto& tr = tb::tree::get(nodes);
  const std::size_t reps = tb::tree::reps(nodes, tb::config().tree_nodes_per_iter);
  const Node* root = tr.root();
  tb::SerialTask t;
  for (auto _ : s) {
    std::int64_t total = 0;
    for (std::size_t r = 0; r < reps; ++r) {
      benchmark::DoNotOptimize(root);
      total += Sum(t, root);
    }
    if (!tb::check(s, total == tr.expected_sum() * static_cast<std::int64_t>(reps), "tree sum")) break;
  }
  tb::ns_per(s, "ns_per_node", static_cast<double>(nodes * reps));
}

void reg(const tb::Config& c) {
  for (std::size_t nodes : c.tree_nodes) {
    tb::add(tb::tree::name("serial_task", nodes),
            [nodes](benchmark::State& s) { bench_serial_task<tb::tree::sum_byval>(s, nodes); }, false);
    tb::add(tb::tree::name("serial_task_byref", nodes),
            [nodes](benchmark::State& s) { bench_serial_task<tb::tree::sum_byref>(s, nodes); }, false);
    tb::add(tb::tree::name("serial", nodes), [nodes](benchmark::State& s) {
      const auto& tr = tb::tree::get(nodes);
      const std::size_t reps = tb::tree::reps(nodes, tb::config().tree_nodes_per_iter);
      const Node* root = tr.root();
      for (auto _ : s) {
        std::int64_t total = 0;
        for (std::size_t r = 0; r < reps; ++r) {
          benchmark::DoNotOptimize(root);  // sum() is pure: stop GCC hoisting it out of the loop
          total += sum(root);
        }
        if (!tb::check(s, total == tr.expected_sum() * static_cast<std::int64_t>(reps), "tree sum")) break;
      }
      tb::ns_per(s, "ns_per_node", static_cast<double>(nodes * reps));
    }, false);
  }
}
TB_REGISTER(reg);
}  // namespace
