// tempo_overhead: the runtime's cost on user-shaped code, as paired ratios.
//
// Each sample times the same source twice, back to back: once on tempo::Task
// (through ThreadPool::run) and once on tb::SerialTask (the do-nothing Task;
// bench/common/serial_task.hpp), alternating which goes first. The ratio of
// each pair cancels the slow drifts of a shared machine (the device host's
// per-core speed moves by up to 1.5x within a minute, which made medians of
// separately timed runs disagree by 40%); the report is the median of the
// pairs' ratios with their 10th and 90th percentiles.
//
// Cases: the 1,023-node tree summed repeatedly (both shapes of
// tree_sum/shapes.hpp) at every thread count, the 100M-node tree at 1 thread
// (against SerialTask) and at the largest thread count (against plain serial
// recursion: the speed-up), and fib at 1 thread in ns per call (the plain
// recursion beside it: on SerialTask GCC folds fib's repeated pure calls).
//
//   tempo_overhead [--threads=1,2,4,8,16] [--pairs=21] [--big_nodes=100000000] [--fib_n=30]
// Prints JSON on stdout.
#include <tempo/tempo.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "cli.hpp"
#include "../common/serial_task.hpp"
#include "../workloads/fib/fib.hpp"
#include "../workloads/fib/shapes.hpp"
#include "../workloads/tree_sum/shapes.hpp"
#include "../workloads/tree_sum/tree.hpp"

namespace {
using tb::cli::fail;
using tb::cli::parse_num;
using tb::cli::quantile;
using tb::tree::Node;
using Clock = std::chrono::steady_clock;

struct Case {
  std::string name;
  std::string base;
  std::vector<double> ratios, tempo_ns, base_ns;  // ns per unit
  tb::cli::PerRun per_run;  // tempo runs, warm-up included
};

// A run's time: f's own report if it returns one (ns; it leaves set-up out),
// else the wall time around it.
template <class F>
double time_ns(F& f) {
  if constexpr (std::is_same_v<decltype(f()), double>) {
    return f();
  } else {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  }
}

// pairs x (tempo, base), alternating which runs first; units per sample.
template <class TempoRun, class BaseRun>
Case paired(std::string name, std::string base, int pairs, double units, TempoRun tempo_run, BaseRun base_run) {
  Case c{std::move(name), std::move(base), {}, {}, {}};
  tempo_run();  // warm-up: pages, caches, the pool's threads
  base_run();
  for (int p = 0; p < pairs; ++p) {
    double t, b;
    if (p % 2 == 0) {
      t = time_ns(tempo_run);
      b = time_ns(base_run);
    } else {
      b = time_ns(base_run);
      t = time_ns(tempo_run);
    }
    c.tempo_ns.push_back(t / units);
    c.base_ns.push_back(b / units);
    c.ratios.push_back(t / b);
  }
  return c;
}

template <std::int64_t (*OnTempo)(tempo::Task&, const Node*), std::int64_t (*OnSerial)(tb::SerialTask&, const Node*)>
Case tree_case(const std::string& name, tempo::ThreadPool& pool, const tb::tree::Tree& tr, std::size_t reps,
               int pairs, bool against_plain, std::int64_t (*plain)(const Node*)) {
  const Node* root = tr.root();
  const std::int64_t want = tr.expected_sum() * static_cast<std::int64_t>(reps);
  auto tempo_run = [&] {
    std::int64_t got = pool.run([&](tempo::Task& t) {
      std::int64_t acc = 0;
      for (std::size_t r = 0; r < reps; ++r) {
        const Node* n = root;
        asm volatile("" : "+r"(n));  // no hoisting of the pure sum out of the loop
        acc += OnTempo(t, n);
      }
      return acc;
    });
    if (got != want) fail(name + ": wrong sum on tempo");
  };
  auto base_run = [&] {
    tb::SerialTask st;
    std::int64_t acc = 0;
    for (std::size_t r = 0; r < reps; ++r) {
      const Node* n = root;
      asm volatile("" : "+r"(n));
      acc += against_plain ? plain(n) : OnSerial(st, n);
    }
    if (acc != want) fail(name + ": wrong sum on the baseline");
  };
  const tempo::Stats before = pool.stats();
  Case c = paired(name, against_plain ? "serial" : "serial_task", pairs, static_cast<double>(tr.size() * reps),
                  tempo_run, base_run);
  c.per_run = tb::cli::per_run(before, pool.stats(), pairs + 1);
  return c;
}

std::int64_t plain_sum(const Node* n) {
  std::int64_t r = n->value;
  if (n->left) r += plain_sum(n->left);
  if (n->right) r += plain_sum(n->right);
  return r;
}
std::uint64_t plain_fib(int n) { return n < 2 ? static_cast<std::uint64_t>(n) : plain_fib(n - 1) + plain_fib(n - 2); }

// What the host allows the 16-thread tree, without any runtime or fork: the
// tree cut into at least `pieces` subtrees (the nodes above the cut are summed
// first, on the caller), summed by k threads made before the clock starts and
// released by one futex wake, each piece by plain recursion.
//  - static: thread i takes pieces i, i+k, ... (k pieces: perfect balance on
//    paper; the slowest core decides);
//  - dynamic: threads take the next piece from a shared counter (16 per
//    thread: balance without a scheduler's costs).
// tempo's speed-up over plain serial is bounded by the dynamic figure.
std::int64_t split_sum(const Node* root, std::size_t k, std::size_t pieces, bool dynamic, double& last_ns) {
  std::vector<const Node*> cut{root};
  std::int64_t above = 0;
  while (cut.size() < pieces) {
    std::vector<const Node*> next;
    for (const Node* n : cut) {
      above += n->value;
      if (n->left) next.push_back(n->left);
      if (n->right) next.push_back(n->right);
    }
    if (next.empty()) break;
    cut = std::move(next);
  }
  std::vector<std::int64_t> part(k * 8, 0);  // one cache line apart
  std::atomic<bool> go{false};
  std::atomic<std::size_t> next_piece{0};
  std::vector<std::thread> threads;
  threads.reserve(k);
  for (std::size_t i = 0; i < k; ++i)
    threads.emplace_back([&, i] {
      go.wait(false, std::memory_order_acquire);
      std::int64_t s = 0;
      if (dynamic) {
        for (std::size_t j; (j = next_piece.fetch_add(1, std::memory_order_relaxed)) < cut.size();) s += plain_sum(cut[j]);
      } else {
        for (std::size_t j = i; j < cut.size(); j += k) s += plain_sum(cut[j]);
      }
      part[i * 8] = s;
    });
  std::int64_t total = above;
  const auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  go.notify_all();
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < k; ++i) total += part[i * 8];
  last_ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
  return total;
}

// Every pair's ratio in run order: a drift or a two-mode distribution shows here.
std::string join_ratios(const std::vector<double>& v) {
  std::string s;
  char buf[32];
  for (double r : v) {
    std::snprintf(buf, sizeof buf, "%s%.3f", s.empty() ? "" : ", ", r);
    s += buf;
  }
  return s;
}

std::vector<std::size_t> parse_list(const char* s) {
  std::vector<std::size_t> v;
  for (const char* p = s; *p;) {
    char* end;
    const unsigned long long x = std::strtoull(p, &end, 10);
    if (end == p || x == 0 || x > 4096) fail(std::string("bad thread list '") + s + "'");
    v.push_back(static_cast<std::size_t>(x));
    p = *end == ',' ? end + 1 : end;
    if (*end != ',' && *end != '\0') fail(std::string("bad thread list '") + s + "'");
  }
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  tb::cli::program = "tempo_overhead";
  std::vector<std::size_t> threads{1, 2, 4, 8, 16};
  int pairs = 21, fib_n = 30;
  std::size_t big_nodes = 100'000'000;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!std::strncmp(a, "--threads=", 10)) threads = parse_list(a + 10);
    else if (!std::strncmp(a, "--pairs=", 8)) pairs = static_cast<int>(parse_num(a + 8, 1, 100000, "--pairs"));
    else if (!std::strncmp(a, "--big_nodes=", 12)) big_nodes = static_cast<std::size_t>(parse_num(a + 12, 0, 1L << 31, "--big_nodes"));
    else if (!std::strncmp(a, "--fib_n=", 8)) fib_n = static_cast<int>(parse_num(a + 8, 2, 45, "--fib_n"));
    else fail(std::string("unknown argument '") + a + "' (--threads=, --pairs=, --big_nodes=, --fib_n=)");
  }
  std::vector<Case> cases;
  const auto& small = tb::tree::get(1023);
  for (std::size_t k : threads) {
    tempo::ThreadPool pool(tempo::Options{.threads = k});
    const std::string tk = "/threads:" + std::to_string(k);
    cases.push_back(tree_case<tb::tree::sum_byval, tb::tree::sum_byval>("tree1023/byval" + tk, pool, small, 2000,
                                                                        pairs, false, plain_sum));
    cases.push_back(tree_case<tb::tree::sum_byref, tb::tree::sum_byref>("tree1023/byref" + tk, pool, small, 2000,
                                                                        pairs, false, plain_sum));
  }
  {
    tempo::ThreadPool pool(tempo::Options{.threads = 1});
    const int n = fib_n;
    const std::uint64_t want = tb::fib::value(n);
    for (int shape = 0; shape < 2; ++shape) {
      auto tempo_run = [&] {
        volatile int m = n;
        const std::uint64_t got = pool.run([&](tempo::Task& t) {
          return shape == 0 ? tb::fib::fib_byval(t, m) : tb::fib::fib_byref(t, m);
        });
        if (got != want) fail("fib: wrong value on tempo");
      };
      auto base_run = [&] {
        volatile int m = n;
        if (plain_fib(m) != want) fail("fib: wrong value on the baseline");
      };
      const tempo::Stats before = pool.stats();
      cases.push_back(paired(std::string("fib/") + (shape == 0 ? "byval" : "byref") + "/threads:1", "serial", pairs,
                             tb::fib::calls(n), tempo_run, base_run));
      cases.back().per_run = tb::cli::per_run(before, pool.stats(), pairs + 1);
    }
  }
  if (big_nodes > 0) {
    const auto& big = tb::tree::get(big_nodes);
    const int big_pairs = std::max(3, pairs / 3);
    const std::string nn = "tree" + std::to_string(big_nodes);
    {
      tempo::ThreadPool pool(tempo::Options{.threads = 1});
      cases.push_back(tree_case<tb::tree::sum_byval, tb::tree::sum_byval>(nn + "/byval/threads:1", pool, big, 1,
                                                                          big_pairs, false, plain_sum));
      cases.push_back(tree_case<tb::tree::sum_byref, tb::tree::sum_byref>(nn + "/byref/threads:1", pool, big, 1,
                                                                          big_pairs, false, plain_sum));
    }
    const std::size_t top = *std::max_element(threads.begin(), threads.end());
    if (top > 1) {
      tempo::ThreadPool pool(tempo::Options{.threads = top});
      const std::string tk = "/threads:" + std::to_string(top);
      cases.push_back(tree_case<tb::tree::sum_byval, tb::tree::sum_byval>(nn + "/byval" + tk, pool, big, 1,
                                                                          big_pairs, true, plain_sum));
      cases.push_back(tree_case<tb::tree::sum_byref, tb::tree::sum_byref>(nn + "/byref" + tk, pool, big, 1,
                                                                          big_pairs, true, plain_sum));
    }
    if (top > 1) {
      // What the host allows, beside tempo's speed-up (split_sum).
      const Node* root = big.root();
      const std::int64_t want = big.expected_sum();
      auto plain_run = [&] {
        const Node* n = root;
        asm volatile("" : "+r"(n));
        if (plain_sum(n) != want) fail("plain serial: wrong sum");
      };
      for (const bool dynamic : {false, true}) {
        auto split_run = [&]() -> double {
          double ns = 0;
          if (split_sum(root, top, dynamic ? 16 * top : top, dynamic, ns) != want) fail("split: wrong sum");
          return ns;
        };
        cases.push_back(paired(nn + (dynamic ? "/dynamic_split" : "/static_split") + "/threads:" + std::to_string(top),
                               "serial", big_pairs, static_cast<double>(big.size()), split_run, plain_run));
      }
    }
  }
  std::printf("{\n \"what\": \"tempo time / baseline time, paired samples (median, p10, p90); ns per node or call\",\n");
  std::printf(" \"pairs\": %d,\n \"cases\": [\n", pairs);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    std::printf("  {\"name\": \"%s\", \"baseline\": \"%s\", \"ratio_median\": %.4f, \"ratio_p10\": %.4f, "
                "\"ratio_p90\": %.4f, \"tempo_ns_median\": %.4f, \"baseline_ns_median\": %.4f, \"samples\": %zu, "
                "\"per_run\": {\"promoted\": %.1f, \"stolen\": %.1f, \"sleeps\": %.1f, \"heartbeats\": %.1f}, \"ratios\": [%s]}%s\n",
                c.name.c_str(), c.base.c_str(), quantile(c.ratios, 0.5), quantile(c.ratios, 0.1),
                quantile(c.ratios, 0.9), quantile(c.tempo_ns, 0.5), quantile(c.base_ns, 0.5), c.ratios.size(),
                c.per_run.promoted, c.per_run.stolen, c.per_run.sleeps, c.per_run.heartbeats,
                join_ratios(c.ratios).c_str(),
                i + 1 < cases.size() ? "," : "");
  }
  std::printf(" ]\n}\n");
}
