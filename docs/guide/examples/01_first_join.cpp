// Guide, part 1: a pool, a run, a join, a call.
#include <tempo/tempo.hpp>

#include <cstdio>
#include <vector>

struct Node {
  long value;
  const Node* left;
  const Node* right;
};

// Both halves run on this thread unless an idle worker takes the second one at a heartbeat.
long sum(tempo::Task& t, const Node* n) {
  if (n == nullptr) return 0;
  auto [a, b] = t.join([n](tempo::Task& w) { return sum(w, n->left); },
                       [n](tempo::Task& w) { return sum(w, n->right); });
  return n->value + a + b;
}

// A plain recursive call that may fork inside: t.call checks the heartbeat first.
long fib(tempo::Task& t, int n) {
  if (n < 2) return n;
  auto [a, b] = t.join([&](tempo::Task& w) { return fib(w, n - 1); },
                       [&](tempo::Task& w) { return fib(w, n - 2); });
  return a + b;
}

long twice_fib(tempo::Task& t, int n) { return 2 * t.call(fib, n); }

int main() {
  tempo::ThreadPool pool(tempo::Options{.threads = 4});  // 0 (the default): TEMPO_THREADS or every core

  const Node leaves[2] = {{1, nullptr, nullptr}, {2, nullptr, nullptr}};
  const Node root{3, &leaves[0], &leaves[1]};
  const long total = pool.run([&](tempo::Task& t) { return sum(t, &root); });

  // Branches that return nothing give tempo::unit in the pair.
  std::vector<int> v(2);
  pool.run([&](tempo::Task& t) {
    t.join([&](tempo::Task&) { v[0] = 1; }, [&](tempo::Task&) { v[1] = 2; });
  });

  const long f = pool.run([](tempo::Task& t) { return twice_fib(t, 20); });
  std::printf("sum %ld, v %d %d, 2 fib(20) %ld, threads %zu\n", total, v[0], v[1], f, pool.thread_count());
}
