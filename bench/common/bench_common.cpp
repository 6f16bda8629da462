#include "bench_common.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace tb {
namespace {

std::atomic<bool> g_failed{false};

Config& mutable_config() {
  static Config c;
  return c;
}

// Function-local so registration order across translation units is safe.
std::vector<Registrar>& registrars() {
  static std::vector<Registrar> r;
  return r;
}

template <class T>
T parse_number(std::string_view flag, std::string_view text) {
  T v{};
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || p != text.data() + text.size())
    throw std::invalid_argument("tempo_bench: --" + std::string(flag) + ": '" + std::string(text) +
                                "' is not a valid number");
  return v;
}

template <class T>
std::vector<T> parse_list(std::string_view flag, std::string_view text) {
  std::vector<T> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    auto item = text.substr(0, comma);
    if constexpr (std::is_same_v<T, std::string>)
      out.emplace_back(item);
    else
      out.push_back(parse_number<T>(flag, item));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (out.empty())
    throw std::invalid_argument("tempo_bench: --" + std::string(flag) + " needs at least one value");
  return out;
}

template <class T>
void require_positive(std::string_view flag, T v) {
  if (!(v > 0))
    throw std::invalid_argument("tempo_bench: --" + std::string(flag) + " must be positive");
}

}  // namespace

const Config& config() { return mutable_config(); }

std::string flags_help() {
  return "tempo_bench flags (besides Google Benchmark's):\n"
         "  --threads=1,2,4,8,16,32   thread sweep for every parallel variant\n"
         "  --tree_nodes=1000,1000000 tree sizes (nodes) for tree_sum\n"
         "  --tree_nodes_per_iter=N   small trees are summed N/nodes times per iteration (2000000)\n"
         "  --fib_n=27                fib(n), a fork at every call\n"
         "  --nqueens_n=12            board size (14 is the standard benchmark)\n"
         "  --uts=T1,T3               UTS trees: T1, T3 (published counts checked), T1XS, T3XS (small)\n"
         "  --skynet_log10=6          skynet with 10^k leaves\n"
         "  --mandel_size=512         Mandelbrot image side (pixels)\n"
         "  --mandel_iters=1000       Mandelbrot iteration cap\n"
         "  --reduce_n=100000000      floats summed by parallel_reduce\n"
         "  --matmul_n=512            matrix side for matmul (multiple of 16)\n"
         "  --saxpy_n=1048576         elements of the light parallel_for body\n"
         "  --skip_after_seconds=S    skip a variant's higher thread counts once one takes > S s\n"
         "  --rss_sweep=REGEX         run each matching benchmark in its own child process\n"
         "  --rss_out=FILE            ... and write the children's peak RSS as JSON to FILE\n";
}

void parse_flags(int& argc, char** argv) {
  Config& c = mutable_config();
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto eq = a.find('=');
    if (a.substr(0, 2) != "--" || eq == std::string_view::npos) {
      argv[out++] = argv[i];
      continue;
    }
    auto name = a.substr(2, eq - 2);
    auto val = a.substr(eq + 1);
    if (name == "threads") {
      c.threads = parse_list<int>(name, val);
      for (int t : c.threads) require_positive(name, t);
    } else if (name == "tree_nodes") {
      c.tree_nodes = parse_list<std::size_t>(name, val);
      for (auto n : c.tree_nodes) require_positive(name, n);
    } else if (name == "tree_nodes_per_iter") {
      c.tree_nodes_per_iter = parse_number<std::size_t>(name, val);
    } else if (name == "fib_n") {
      c.fib_n = parse_number<int>(name, val);
      if (c.fib_n < 1 || c.fib_n > 45) throw std::invalid_argument("tempo_bench: --fib_n must be in 1..45");
    } else if (name == "nqueens_n") {
      c.nqueens_n = parse_number<int>(name, val);
      if (c.nqueens_n < 1 || c.nqueens_n > 16)
        throw std::invalid_argument("tempo_bench: --nqueens_n must be in 1..16 (known solution counts)");
    } else if (name == "uts") {
      c.uts_trees = parse_list<std::string>(name, val);
    } else if (name == "skynet_log10") {
      c.skynet_leaves_log10 = parse_number<int>(name, val);
      if (c.skynet_leaves_log10 < 1 || c.skynet_leaves_log10 > 8)
        throw std::invalid_argument("tempo_bench: --skynet_log10 must be in 1..8");
    } else if (name == "mandel_size") {
      c.mandel_size = parse_number<int>(name, val);
      require_positive(name, c.mandel_size);
    } else if (name == "mandel_iters") {
      c.mandel_iters = parse_number<int>(name, val);
      require_positive(name, c.mandel_iters);
    } else if (name == "reduce_n") {
      c.reduce_n = parse_number<std::size_t>(name, val);
      require_positive(name, c.reduce_n);
    } else if (name == "matmul_n") {
      c.matmul_n = parse_number<int>(name, val);
      if (c.matmul_n <= 0 || c.matmul_n % 16 != 0)
        throw std::invalid_argument("tempo_bench: --matmul_n must be a positive multiple of 16");
    } else if (name == "skip_after_seconds") {
      c.skip_after_seconds = parse_number<double>(name, val);
      if (c.skip_after_seconds < 0) throw std::invalid_argument("tempo_bench: --skip_after_seconds must be >= 0");
    } else if (name == "saxpy_n") {
      c.saxpy_n = parse_number<std::size_t>(name, val);
      require_positive(name, c.saxpy_n);
    } else {
      argv[out++] = argv[i];  // Google Benchmark's flag, or rss flags (main handles them)
    }
  }
  argc = out;
  argv[argc] = nullptr;
}

bool add_registrar(Registrar r) {
  registrars().push_back(r);
  return true;
}

void register_all() {
  for (Registrar r : registrars()) r(config());
}

// Variants that went over --skip_after_seconds (benchmarks run one at a time
// on the main thread, so no lock is needed).
std::set<std::string>& too_slow() {
  static std::set<std::string> s;
  return s;
}

benchmark::internal::Benchmark* add(const std::string& name,
                                    std::function<void(benchmark::State&)> fn, bool sweep) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [fn = std::move(fn), name](benchmark::State& s) {
    const double cap = config().skip_after_seconds;
    if (cap > 0 && too_slow().count(name)) {
      s.SkipWithError(("skipped: a lower thread count took over " + std::to_string(cap) +
                       " s per iteration (--skip_after_seconds)")
                          .c_str());
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    try {
      fn(s);
    } catch (const std::exception& e) {
      g_failed = true;
      s.SkipWithError(e.what());
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (cap > 0 && secs / static_cast<double>(std::max<benchmark::IterationCount>(1, s.iterations())) > cap)
      too_slow().insert(name);
  });
  b->UseRealTime();
  if (sweep) {
    b->ArgName("threads");
    for (int t : config().threads) b->Arg(t);
  }
  return b;
}

bool check(benchmark::State& s, bool ok, const std::string& what) {
  if (!ok) {
    g_failed = true;
    s.SkipWithError(("wrong result: " + what).c_str());
  }
  return ok;
}

bool any_failed() { return g_failed; }

}  // namespace tb
