// The main demo: Spice's binary-tree sum on this machine's cores, tempo against
// plain serial recursion, oneTBB and OpenMP tasks (when built with them).
// Usage: tree_sum_demo [--nodes=N] [--reps=R] [--threads=1,2,4,...] | --help
// Bad arguments: one line on stderr, exit 2. Rows are printed as they finish.
#include <tempo/tempo.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <new>
#include <stdexcept>
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

constexpr std::size_t kMaxNodes = 1'000'000'000;  // 24 GB of nodes
constexpr std::size_t kMaxReps = 1'000'000'000;

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: tree_sum_demo [--nodes=N] [--reps=R] [--threads=T1,T2,...]\n"
               "  Sums a balanced binary tree of N nodes (default 10000000, 1 to %zu) R times per\n"
               "  sample (default: enough for 2 million nodes per sample), serially and in parallel with\n"
               "  tempo, oneTBB and OpenMP (when built with them), at each thread count T (1 to %zu;\n"
               "  default 1, 2, 4, ... up to twice the hardware threads). Prints ns per node, the\n"
               "  median of 5 samples, and the speed-up over serial recursion.\n",
               kMaxNodes, tempo::max_threads);
}

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A plain decimal integer in [lo, hi]: no sign, no spaces, no suffix.
std::size_t parse_count(const std::string& name, const std::string& text, std::size_t lo, std::size_t hi) {
  bool ok = !text.empty() && text.size() <= 19;
  std::size_t v = 0;
  for (const char c : text) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) v = v * 10 + static_cast<std::size_t>(c - '0');
  }
  if (!ok || v < lo || v > hi)
    throw UsageError(name + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                     ", got '" + text + "'");
  return v;
}

std::vector<std::size_t> parse_threads(const std::string& s) {
  std::vector<std::size_t> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t comma = s.find(',', pos);
    out.push_back(parse_count("--threads: each thread count", s.substr(pos, comma - pos), 1, tempo::max_threads));
    if (comma == std::string::npos) return out;
    pos = comma + 1;
  }
}

}  // namespace

int main(int argc, char** argv) try {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row appears as it finishes, piped or not
  std::size_t nodes = 10'000'000, reps = 0;
  const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::size_t> threads;
  for (std::size_t k = 1; k <= 2 * hw; k *= 2) threads.push_back(k);
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(0, eq), value = eq == std::string::npos ? "" : a.substr(eq + 1);
      if (a == "--help" || a == "-h") {
        usage(stdout);
        return 0;
      }
      if (name != "--nodes" && name != "--reps" && name != "--threads") throw UsageError("unknown argument '" + a + "'");
      if (eq == std::string::npos) throw UsageError(name + " needs a value: " + name + "=...");
      if (name == "--nodes") nodes = parse_count("--nodes", value, 1, kMaxNodes);
      else if (name == "--reps") reps = parse_count("--reps", value, 1, kMaxReps);
      else threads = parse_threads(value);
    }
    if (reps == 0) reps = std::max<std::size_t>(1, 2'000'000 / nodes);  // small trees: summed many times per call
    // The checked total n(n-1)/2 x reps must fit an int64.
    const double total = static_cast<double>(nodes) * static_cast<double>(nodes - 1) / 2 * static_cast<double>(reps);
    if (total >= 9e18)
      throw UsageError("--nodes=" + std::to_string(nodes) + " with --reps=" + std::to_string(reps) +
                       ": the checked sum would overflow; use fewer reps");
  } catch (const UsageError& e) {
    std::fprintf(stderr, "tree_sum_demo: %s (--help for usage)\n", e.what());
    return 2;
  }
  std::vector<Node> pool;
  try {
    pool.resize(nodes);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "tree_sum_demo: cannot allocate %zu nodes (%zu MiB); try a smaller --nodes\n", nodes,
                 nodes * sizeof(Node) >> 20);
    return 1;
  }
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
  const double heartbeat_us = std::chrono::duration<double, std::micro>(tempo::Options{}.heartbeat).count();
  std::printf("tree sum: %zu nodes, summed %zu time%s per sample, on %zu hardware threads\n", nodes, reps,
              reps == 1 ? "" : "s", hw);
  std::printf(
      "Every parallel variant forks at every node, with no cutoff. A tempo fork is a few stores and stays on\n"
      "its thread unless a heartbeat (every %.0f us) finds an idle one; oneTBB's parallel_invoke and OpenMP's\n"
      "tasks create a task per fork, so their rows show that per-task cost, not what they reach with a\n"
      "cutoff (stop forking below a few thousand nodes). ns per node: median of 5 samples.\n\n",
      heartbeat_us);
  std::printf("%-26s %8s %10s %9s\n", "variant", "threads", "ns/node", "speed-up");
  const double serial = ns_per_node([&] { return repeat([&] { return sum_serial(root); }); }, expected, per_call);
  std::printf("%-26s %8s %10.3f %9.2f\n", "serial recursion", "1", serial, 1.0);
  bool oversubscribed = false;
  const auto row = [&](const char* name, std::size_t k, double v) {
    oversubscribed = oversubscribed || k > hw;
    std::printf("%-26s %8zu %10.3f %9.2f%s\n", name, k, v, serial / v, k > hw ? "  (oversubscribed)" : "");
  };
  for (std::size_t k : threads) {
    tempo::ThreadPool tp(tempo::Options{.threads = k});
    double v = ns_per_node([&] { return tp.run([&](tempo::Task& t) { return repeat([&] { return sum_tempo(t, root); }); }); },
                           expected, per_call);
    row("tempo join", k, v);
    v = ns_per_node([&] { return tp.run([&](tempo::Task& t) { return repeat([&] { return sum_tempo_ref(t, root); }); }); },
                    expected, per_call);
    row("tempo join, [&] + t.call", k, v);
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
    row("oneTBB parallel_invoke", k, v);
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
    row("OpenMP tasks (libgomp)", k, v);
    omp_slow = v * per_call > slow_ns;
  }
#endif
  if (oversubscribed)
    std::printf("\n(oversubscribed): more threads than the %zu hardware threads here; they take turns on the\n"
                "cores, so these rows show the cost of sharing cores, not a speed-up.\n",
                hw);
  const double tree_us = serial * static_cast<double>(nodes) / 1000;
  if (tree_us < 2 * heartbeat_us)
    std::printf("\nA small tree: one sum takes about %.1f us serially, less than two heartbeats (%.0f us each), so\n"
                "tempo almost never hands part of it to another thread and more threads cannot help; each node\n"
                "pays for a fork (a few ns) against about %.1f ns of work, hence speed-ups below 1. Parallelise\n"
                "over many small trees instead (a tempo::parallel_for over them), or leave them serial.\n",
                tree_us, heartbeat_us, serial);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tree_sum_demo: error: %s\n", e.what());
  return 1;
}
