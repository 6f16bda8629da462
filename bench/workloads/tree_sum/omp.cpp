// OpenMP tasks: task + taskwait at every node with two children, all
// repetitions inside one parallel region (one thread creates the root tasks).
#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "tree.hpp"

namespace {
using tb::tree::Node;

std::int64_t sum(const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    std::int64_t a = 0;
#pragma omp task shared(a) firstprivate(n)
    a = sum(n->left);
    std::int64_t b = sum(n->right);
#pragma omp taskwait
    return r + a + b;
  }
  if (n->left) r += sum(n->left);
  if (n->right) r += sum(n->right);
  return r;
}

void reg(const tb::Config& c) {
  for (std::size_t nodes : c.tree_nodes) {
    tb::add(tb::tree::name("omp_task", nodes), [nodes](benchmark::State& s) {
      const auto& tr = tb::tree::get(nodes);
      const std::size_t reps = tb::tree::reps(nodes, tb::config().tree_nodes_per_iter);
      const Node* root = tr.root();
      const int k = tb::threads_of(s);
      tb::omp_require_threads(k);
      for (auto _ : s) {
        std::int64_t total = 0;
        tb::omp_run(k, [&] {
          for (std::size_t r = 0; r < reps; ++r) {
            benchmark::DoNotOptimize(root);
            total += sum(root);
          }
        });
        if (!tb::check(s, total == tr.expected_sum() * static_cast<std::int64_t>(reps), "tree sum")) break;
      }
      tb::ns_per(s, "ns_per_node", static_cast<double>(nodes * reps));
    }, true);
    // The memory floor: the same nodes read once, in order, by a static
    // OpenMP loop (no recursion, no scheduler). A tree sum over a tree larger
    // than the caches cannot beat this at any thread count, so it bounds what
    // "speed-up over serial" can reach on the machine.
    tb::add(tb::tree::name("stream_omp", nodes), [nodes](benchmark::State& s) {
      const auto& tr = tb::tree::get(nodes);
      const std::size_t reps = tb::tree::reps(nodes, tb::config().tree_nodes_per_iter);
      const Node* first = tr.root();
      const auto count = static_cast<std::ptrdiff_t>(tr.size());
      const int k = tb::threads_of(s);
      tb::omp_require_threads(k);
      for (auto _ : s) {
        std::int64_t total = 0;
        for (std::size_t r = 0; r < reps; ++r) {
          benchmark::DoNotOptimize(first);
          std::int64_t acc = 0;
#pragma omp parallel for num_threads(k) schedule(static) reduction(+ : acc)
          for (std::ptrdiff_t i = 0; i < count; ++i) acc += first[i].value;
          total += acc;
        }
        if (!tb::check(s, total == tr.expected_sum() * static_cast<std::int64_t>(reps), "tree stream")) break;
      }
      tb::ns_per(s, "ns_per_node", static_cast<double>(nodes * reps));
    }, true);
  }
}
TB_REGISTER(reg);
}  // namespace
