#include <tempo/tempo.hpp>

#include "../../common/bench_common.hpp"
#include "fib.hpp"
#include "shapes.hpp"

namespace {
// The same with the low-level tempo::Fork in the caller's frame.
std::uint64_t fib_fork(tempo::Task& t, int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto right = [n](tempo::Task& t) { return t.call(fib_fork, n - 2); };
  tempo::Fork fork(t, right);
  std::uint64_t a = t.call(fib_fork, n - 1);
  if (auto* b = fork.join(t)) return a + *b;
  return a + right(t);
}

template <std::uint64_t (*Fib)(tempo::Task&, int)>
void bench(benchmark::State& s) {
  int n = tb::config().fib_n;
  tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
  for (auto _ : s) {
    benchmark::DoNotOptimize(n);
    auto r = pool.run([n](tempo::Task& t) { return Fib(t, n); });
    if (!tb::check(s, r == tb::fib::value(n), "fib")) break;
  }
  tb::ns_per(s, "ns_per_task", tb::fib::calls(n));
}

void reg(const tb::Config&) {
  tb::add("fib/tempo", bench<tb::fib::fib_byval>, true);
  tb::add("fib/tempo_byref", bench<tb::fib::fib_byref>, true);
  tb::add("fib/tempo_fork", bench<fib_fork>, true);
}
TB_REGISTER(reg);
}  // namespace
