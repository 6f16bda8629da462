// The main demo: Spice's binary-tree sum on this machine's cores, tempo against
// plain serial recursion, oneTBB and OpenMP tasks (when built with them).
// Usage: tree_sum_demo [--nodes=N] [--reps=R] [--threads=1,2,4,...]
#include <tempo/tempo.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#if defined(DEMO_WITH_TBB)
#include <tbb/global_control.h>
#include <tbb/parallel_invoke.h>
#include <tbb/task_arena.h>
#endif
#if defined(DEMO_WITH_OMP)
#include <omp.h>
#endif

namespace {

struct Node {
  std::int64_t value;
  Node* left;
  Node* right;
};

// Perfectly balanced, pre-order in one array; values are the in-order index.
Node* build(std::vector<Node>& nodes, std::size_t& next, std::int64_t lo, std::int64_t hi) {
  if (lo >= hi) return nullptr;
  std::int64_t mid = lo + (hi - lo) / 2;
  Node* n = &nodes[next++];
  n->value = mid;
  n->left = build(nodes, next, lo, mid);
  n->right = build(nodes, next, mid + 1, hi);
  return n;
}

std::int64_t sum_serial(const Node* n) {
  std::int64_t r = n->value;
  if (n->left) r += sum_serial(n->left);
  if (n->right) r += sum_serial(n->right);
  return r;
}

std::int64_t sum_tempo(tempo::Task& t, const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    auto [a, b] = t.join([n](tempo::Task& w) { return sum_tempo(w, n->left); },
                         [n](tempo::Task& w) { return sum_tempo(w, n->right); });
    return r + a + b;
  }
  if (n->left) r += sum_tempo(t, n->left);
  if (n->right) r += sum_tempo(t, n->right);
  return r;
}

// The same as most C++ code would write it: [&] branches, t.call for calls.
std::int64_t sum_tempo_ref(tempo::Task& t, const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    auto [a, b] = t.join([&](tempo::Task& w) { return sum_tempo_ref(w, n->left); },
                         [&](tempo::Task& w) { return sum_tempo_ref(w, n->right); });
    return r + a + b;
  }
  if (n->left) r += t.call(sum_tempo_ref, n->left);
  if (n->right) r += t.call(sum_tempo_ref, n->right);
  return r;
}

#if defined(DEMO_WITH_TBB)
std::int64_t sum_tbb(const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    std::int64_t a = 0, b = 0;
    tbb::parallel_invoke([&] { a = sum_tbb(n->left); }, [&] { b = sum_tbb(n->right); });
    return r + a + b;
  }
  if (n->left) r += sum_tbb(n->left);
  if (n->right) r += sum_tbb(n->right);
  return r;
}
#endif

#if defined(DEMO_WITH_OMP)
std::int64_t sum_omp(const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    std::int64_t a = 0, b = 0;
#pragma omp task shared(a)
    a = sum_omp(n->left);
    b = sum_omp(n->right);
#pragma omp taskwait
    return r + a + b;
  }
  if (n->left) r += sum_omp(n->left);
  if (n->right) r += sum_omp(n->right);
  return r;
}
#endif

// Median over `samples` timings of `reps` sums; aborts on a wrong result.
double ns_per_node(const std::function<std::int64_t()>& run_reps, std::int64_t expected, double nodes_per_call) {
  std::vector<double> t;
  for (int s = 0; s < 5; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    std::int64_t got = run_reps();
    auto t1 = std::chrono::steady_clock::now();
    if (got != expected) {
      std::fprintf(stderr, "wrong sum: %lld, expected %lld\n", static_cast<long long>(got), static_cast<long long>(expected));
      std::exit(1);
    }
    t.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / nodes_per_call);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::vector<std::size_t> parse_list(const std::string& s) {
  std::vector<std::size_t> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t comma = s.find(',', pos);
    out.push_back(std::stoul(s.substr(pos, comma - pos)));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t nodes = 10'000'000, reps = 0;
  std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::size_t> threads;
  for (std::size_t k = 1; k <= 2 * hw; k *= 2) threads.push_back(k);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    try {
      if (a.rfind("--nodes=", 0) == 0) nodes = std::stoul(a.substr(8));
      else if (a.rfind("--reps=", 0) == 0) reps = std::stoul(a.substr(7));
      else if (a.rfind("--threads=", 0) == 0) threads = parse_list(a.substr(10));
      else throw std::invalid_argument(a);
    } catch (const std::exception&) {
      std::fprintf(stderr, "usage: %s [--nodes=N] [--reps=R] [--threads=1,2,4]\n  bad argument: %s\n", argv[0], a.c_str());
      return 2;
    }
  }
  if (nodes == 0) nodes = 1;
  if (reps == 0) reps = std::max<std::size_t>(1, 2'000'000 / nodes);  // small trees: summed many times per call
  std::vector<Node> pool(nodes);
  std::size_t next = 0;
  const Node* root = build(pool, next, 0, static_cast<std::int64_t>(nodes));
  const std::int64_t n = static_cast<std::int64_t>(nodes);
  const std::int64_t expected = n * (n - 1) / 2 * static_cast<std::int64_t>(reps);
  const double per_call = static_cast<double>(nodes) * static_cast<double>(reps);

  auto repeat = [&](auto&& one) {
    std::int64_t acc = 0;
    for (std::size_t r = 0; r < reps; ++r) acc += one();
    return acc;
  };
  const double serial = ns_per_node([&] { return repeat([&] { return sum_serial(root); }); }, expected, per_call);
  std::printf("tree sum, %zu nodes x %zu, %zu hardware threads; ns per node (median of 5), speed-up vs serial\n", nodes,
              reps, hw);
  std::printf("%-26s %8s %10s %9s\n", "variant", "threads", "ns/node", "speed-up");
  std::printf("%-26s %8s %10.3f %9.2f\n", "serial recursion", "1", serial, 1.0);
  for (std::size_t k : threads) {
    tempo::ThreadPool tp(tempo::Options{.threads = k});
    double v = ns_per_node([&] { return tp.run([&](tempo::Task& t) { return repeat([&] { return sum_tempo(t, root); }); }); },
                           expected, per_call);
    std::printf("%-26s %8zu %10.3f %9.2f\n", "tempo join", k, v, serial / v);
    v = ns_per_node([&] { return tp.run([&](tempo::Task& t) { return repeat([&] { return sum_tempo_ref(t, root); }); }); },
                    expected, per_call);
    std::printf("%-26s %8zu %10.3f %9.2f\n", "tempo join, [&] + t.call", k, v, serial / v);
  }
  // Baselines whose one call already takes over a second are not run at
  // higher thread counts (libgomp's tasks slow down as threads are added).
  [[maybe_unused]] const double slow_ns = 1e9;
  [[maybe_unused]] auto skipped = [&](const char* name, std::size_t k) {
    std::printf("%-26s %8zu %10s %9s\n", name, k, "skipped", "(slow)");
  };
#if defined(DEMO_WITH_TBB)
  bool tbb_slow = false;
  for (std::size_t k : threads) {
    if (tbb_slow) {
      skipped("oneTBB parallel_invoke", k);
      continue;
    }
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, k);
    tbb::task_arena arena(static_cast<int>(k));
    double v = ns_per_node([&] { return arena.execute([&] { return repeat([&] { return sum_tbb(root); }); }); }, expected,
                           per_call);
    std::printf("%-26s %8zu %10.3f %9.2f\n", "oneTBB parallel_invoke", k, v, serial / v);
    tbb_slow = v * per_call > slow_ns;
  }
#endif
#if defined(DEMO_WITH_OMP)
  bool omp_slow = false;
  for (std::size_t k : threads) {
    if (omp_slow) {
      skipped("OpenMP tasks (libgomp)", k);
      continue;
    }
    double v = ns_per_node([&] {
      std::int64_t total = 0;
#pragma omp parallel num_threads(static_cast<int>(k))
#pragma omp single
      total = repeat([&] { return sum_omp(root); });
      return total;
    }, expected, per_call);
    std::printf("%-26s %8zu %10.3f %9.2f\n", "OpenMP tasks (libgomp)", k, v, serial / v);
    omp_slow = v * per_call > slow_ns;
  }
#endif
  return 0;
}
