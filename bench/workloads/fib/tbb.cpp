#include <tbb/parallel_invoke.h>
#include <tbb/task_group.h>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "fib.hpp"

namespace {
std::uint64_t fib_invoke(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0, b = 0;
  tbb::parallel_invoke([&] { a = fib_invoke(n - 1); }, [&] { b = fib_invoke(n - 2); });
  return a + b;
}

std::uint64_t fib_group(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  std::uint64_t a = 0;
  tbb::task_group g;
  g.run([&] { a = fib_group(n - 1); });
  std::uint64_t b = fib_group(n - 2);
  g.wait();
  return a + b;
}

template <std::uint64_t (*Fib)(int)>
void bench(benchmark::State& s) {
  int n = tb::config().fib_n;
  tb::TbbEnv env(tb::threads_of(s));
  for (auto _ : s) {
    benchmark::DoNotOptimize(n);
    auto r = env.run([n] { return Fib(n); });
    if (!tb::check(s, r == tb::fib::value(n), "fib")) break;
  }
  tb::ns_per(s, "ns_per_task", tb::fib::calls(n));
}

void reg(const tb::Config&) {
  tb::add("fib/tbb_invoke", bench<fib_invoke>, true);
  tb::add("fib/tbb_task_group", bench<fib_group>, true);
}
TB_REGISTER(reg);
}  // namespace
