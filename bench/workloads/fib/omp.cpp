#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "fib.hpp"

namespace {
std::uint64_t fib(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0;
#pragma omp task shared(a) firstprivate(n)
  a = fib(n - 1);
  std::uint64_t b = fib(n - 2);
#pragma omp taskwait
  return a + b;
}

void reg(const tb::Config&) {
  tb::add("fib/omp_task", [](benchmark::State& s) {
    int n = tb::config().fib_n;
    const int k = tb::threads_of(s);
    tb::omp_require_threads(k);
    for (auto _ : s) {
      benchmark::DoNotOptimize(n);
      std::uint64_t r = 0;
      tb::omp_run(k, [&] { r = fib(n); });
      if (!tb::check(s, r == tb::fib::value(n), "fib")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::fib::calls(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
