// Shared pieces of the runtime tests: trees with known sums, fib.
#pragma once
#include <tempo/tempo.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
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
  auto [a, b] = t.join([n](tempo::Task& w) { return tempo_sum(w, n->left); },
                       [n](tempo::Task& w) { return tempo_sum(w, n->right); });
  return n->value + a + b;
}

inline std::uint64_t fib(tempo::Task& t, unsigned n) {
  if (n < 2) return n;
  auto [a, b] = t.join([n](tempo::Task& w) { return fib(w, n - 1); }, [n](tempo::Task& w) { return fib(w, n - 2); });
  return a + b;
}

inline std::uint64_t fib_serial(unsigned n) { return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2); }

// Waits (yielding) until pred() holds or `limit` has passed; returns pred().
// Tests wait against a generous time bound, never a count of tries: on a
// loaded machine another thread may need a long while to be scheduled.
template <class Pred>
bool eventually(Pred pred, std::chrono::seconds limit = std::chrono::seconds(120)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return pred();
    std::this_thread::yield();
  }
  return true;
}

// t.join(fa, fb) with fb certain to run on another worker (pool of 2 or more
// threads, this the only run): the first branch hands fb over at once through
// the test hook SchedulerAccess::promote_all, then waits until fb has started
// elsewhere before running fa. `ran_elsewhere` tells the caller it did.
template <class FA, class FB>
auto join_stolen(tempo::Task& t, FA fa, FB fb, bool& ran_elsewhere) {
  std::atomic<bool> started{false};
  std::atomic<bool> elsewhere{false};
  const auto owner = std::this_thread::get_id();
  auto result = t.join(
      [&](tempo::Task& w) {
        tempo::detail::SchedulerAccess::promote_all(w);
        if (!eventually([&] { return started.load(); })) throw std::runtime_error("join_stolen: fb never started");
        return fa(w);
      },
      [&](tempo::Task& w) {
        elsewhere.store(std::this_thread::get_id() != owner);
        started.store(true);
        return fb(w);
      });
  ran_elsewhere = elsewhere.load();
  return result;
}

inline tempo::Options opts(std::size_t threads, std::chrono::microseconds hb = std::chrono::microseconds{100}) {
  return tempo::Options{.threads = threads, .heartbeat = hb};
}

}  // namespace test
