// tempo_bench entry point: our size flags first, then Google Benchmark's.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <exception>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "bench_common.hpp"
#include "rss.hpp"

#if defined(TB_WITH_TBB)
#include <tbb/version.h>
#endif

namespace {

template <class T>
std::string join(const std::vector<T>& v) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += ',';
    if constexpr (std::is_same_v<T, std::string>)
      s += x;
    else
      s += std::to_string(x);
  }
  return s;
}

// Recorded in the JSON "context" so every result file says what produced it.
void add_context() {
  const tb::Config& c = tb::config();
  benchmark::AddCustomContext("openmp_runtime",
#if defined(TB_WITH_OMP) && defined(__GNUC__) && !defined(__clang__)
                              "GCC libgomp (gcc " __VERSION__ ")"
#elif defined(TB_WITH_OMP)
                              "unknown"
#else
                              "none (not built)"
#endif
  );
#if defined(TB_WITH_TBB)
  benchmark::AddCustomContext("onetbb_version", TBB_VERSION_STRING);
#endif
  benchmark::AddCustomContext("hardware_threads", std::to_string(std::thread::hardware_concurrency()));
  benchmark::AddCustomContext("threads", join(c.threads));
  benchmark::AddCustomContext("tree_nodes", join(c.tree_nodes));
  benchmark::AddCustomContext("tree_nodes_per_iter", std::to_string(c.tree_nodes_per_iter));
  benchmark::AddCustomContext("fib_n", std::to_string(c.fib_n));
  benchmark::AddCustomContext("nqueens_n", std::to_string(c.nqueens_n));
  benchmark::AddCustomContext("uts", join(c.uts_trees));
  benchmark::AddCustomContext("skynet_leaves", "1e" + std::to_string(c.skynet_leaves_log10));
  benchmark::AddCustomContext("mandel", std::to_string(c.mandel_size) + "x" + std::to_string(c.mandel_size) +
                                            " max " + std::to_string(c.mandel_iters));
  benchmark::AddCustomContext("reduce_n", std::to_string(c.reduce_n));
  benchmark::AddCustomContext("matmul_n", std::to_string(c.matmul_n));
  benchmark::AddCustomContext("saxpy_n", std::to_string(c.saxpy_n));
  if (c.skip_after_seconds > 0)
    benchmark::AddCustomContext("skip_after_seconds", std::to_string(c.skip_after_seconds));
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--help" || a == "-h") std::fputs(tb::flags_help().c_str(), stdout);
  }
  try {
    tb::RssRequest rss = tb::take_rss_flags(argc, argv);
    // Keep the full command line (our flags included) for the RSS children.
    std::vector<std::string> original(argv, argv + argc);
    tb::parse_flags(argc, argv);
    if (rss.active()) return tb::run_rss_sweep(rss, original);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  tb::register_all();
  add_context();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (tb::any_failed()) {
    std::fprintf(stderr, "tempo_bench: at least one benchmark failed its result check\n");
    return 1;
  }
  return 0;
}
