// Shared plumbing for tempo_bench: problem-size flags, the thread sweep, and a
// registry so each workload/implementation file registers its own benchmarks
// after the flags are parsed (sizes must be selectable without recompiling).
#pragma once
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tb {

// Problem sizes and the thread sweep. Defaults are small so a local run ends in
// about a minute; scripts/device/runtime.sh --suite passes the full sizes.
struct Config {
  std::vector<int> threads{1, 2, 4, 8, 16, 32};
  std::vector<std::size_t> tree_nodes{1000, 1000000};
  std::size_t tree_nodes_per_iter = 2000000;  // 1000 nodes -> summed 2000 times
  int fib_n = 27;
  int nqueens_n = 12;
  std::vector<std::string> uts_trees{"T1", "T3"};
  int skynet_leaves_log10 = 6;  // 10^6 leaves
  int mandel_size = 512;        // square image, pixels per side
  int mandel_iters = 1000;
  std::size_t reduce_n = 100000000;
  int matmul_n = 512;
  std::size_t saxpy_n = 1u << 20;
  // Time cap for the device run: once one thread count of a swept variant
  // takes longer than this (seconds, setup included, per iteration), its
  // higher thread counts are reported as skipped instead of run. 0 = off.
  double skip_after_seconds = 0;
};

const Config& config();

// Parses and removes our --flags from argv (before benchmark::Initialize sees
// them). Throws std::invalid_argument naming the flag on a bad value.
void parse_flags(int& argc, char** argv);
std::string flags_help();

// Each implementation file adds one function that registers its benchmarks.
using Registrar = void (*)(const Config&);
bool add_registrar(Registrar r);
void register_all();

// Registers `name` with UseRealTime; `fn` gets the state. With `sweep` the
// benchmark gets one Arg per configured thread count (named "threads").
benchmark::internal::Benchmark* add(const std::string& name,
                                    std::function<void(benchmark::State&)> fn, bool sweep);

// Thread count of a swept benchmark.
inline int threads_of(const benchmark::State& s) { return static_cast<int>(s.range(0)); }

// Sets counter `name` to nanoseconds per unit, given `units` per iteration.
// Uses the benchmark's own (real) time, so paused check time is excluded.
inline void ns_per(benchmark::State& s, const char* name, double units) {
  s.counters[name] = benchmark::Counter(units * 1e-9, benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
}

// Reports a wrong result; returns false so loops can `if (!check(...)) break;`.
// Any failure also makes tempo_bench exit with status 1 (Google Benchmark
// itself exits 0 after SkipWithError), so the CTest smoke run catches it.
bool check(benchmark::State& s, bool ok, const std::string& what);
bool any_failed();

// Keeps a value alive against the optimiser without a memory clobber.
template <class T>
inline void keep(const T& v) {
  benchmark::DoNotOptimize(v);
}

}  // namespace tb

// One registrar per translation unit: TB_REGISTER(fn) with fn(const Config&).
#define TB_CONCAT2(a, b) a##b
#define TB_CONCAT(a, b) TB_CONCAT2(a, b)
#define TB_REGISTER(fn) \
  static const bool TB_CONCAT(tb_registered_, __LINE__) = ::tb::add_registrar(fn)
