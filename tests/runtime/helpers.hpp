// Shared pieces of the runtime tests: trees with known sums, fib.
#pragma once
#include <tempo/tempo.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace test {

struct Node {
  std::int64_t value;
  Node* left;
  Node* right;
};

// A tree whose shape is drawn from `rng`: `skew` in (0,1) is the expected
// share of the nodes that go to the left subtree (0.5 balanced, 0.95 a spine).
inline Node* build_tree(std::vector<Node>& nodes, std::size_t n, double skew, std::mt19937_64& rng) {
  if (n == 0) return nullptr;
  Node* me = &nodes.emplace_back(Node{static_cast<std::int64_t>(rng() % 1000), nullptr, nullptr});
  std::size_t rest = n - 1;
  std::binomial_distribution<std::size_t> pick(rest, skew);
  std::size_t left = rest ? pick(rng) : 0;
  me->left = build_tree(nodes, left, skew, rng);
  me->right = build_tree(nodes, rest - left, skew, rng);
  return me;
}

inline std::int64_t serial_sum(const Node* n) { return n ? n->value + serial_sum(n->left) + serial_sum(n->right) : 0; }

inline std::int64_t tempo_sum(tempo::Task& t, const Node* n) {
  if (n == nullptr) return 0;
  auto [a, b] = t.join([n](tempo::Task& t) { return tempo_sum(t, n->left); },
                       [n](tempo::Task& t) { return tempo_sum(t, n->right); });
  return n->value + a + b;
}

inline std::uint64_t fib(tempo::Task& t, unsigned n) {
  if (n < 2) return n;
  auto [a, b] = t.join([n](tempo::Task& t) { return fib(t, n - 1); }, [n](tempo::Task& t) { return fib(t, n - 2); });
  return a + b;
}

inline std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

// Repeats `work` on pools of `threads` threads until some job was run by a
// thread other than its owner (or gives up), so tests of the cross-thread path
// do not depend on one heartbeat's timing. Returns whether it happened.
template <class Work>
bool until_stolen(tempo::ThreadPool& pool, Work work, int attempts = 50) {
  for (int i = 0; i < attempts; ++i) {
    work();
    if (pool.stats().stolen > 0) return true;
  }
  return false;
}

inline tempo::Options opts(std::size_t threads, std::chrono::microseconds hb = std::chrono::microseconds{100}) {
  return tempo::Options{.threads = threads, .heartbeat = hb};
}

}  // namespace test
