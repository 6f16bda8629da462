#include "../../common/bench_common.hpp"
#include "../../common/serial_task.hpp"
#include "fib.hpp"
#include "shapes.hpp"

namespace {
std::uint64_t fib(int n) { return n < 2 ? static_cast<std::uint64_t>(n) : fib(n - 1) + fib(n - 2); }

// tempo's two user shapes on a do-nothing SerialTask: the same source without the runtime.
template <std::uint64_t (*Fib)(tb::SerialTask&, int)>
void bench_serial_task(benchmark::State& s) {
  int n = tb::config().fib_n;
  tb::SerialTask t;
  for (auto _ : s) {
    benchmark::DoNotOptimize(n);
    if (!tb::check(s, Fib(t, n) == tb::fib::value(n), "fib")) break;
  }
  tb::ns_per(s, "ns_per_task", tb::fib::calls(n));
}

void reg(const tb::Config&) {
  tb::add("fib/serial_task", bench_serial_task<tb::fib::fib_byval>, false);
  tb::add("fib/serial_task_byref", bench_serial_task<tb::fib::fib_byref>, false);
  tb::add("fib/serial", [](benchmark::State& s) {
    int n = tb::config().fib_n;
    for (auto _ : s) {
      benchmark::DoNotOptimize(n);
      if (!tb::check(s, fib(n) == tb::fib::value(n), "fib")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::fib::calls(n));
  }, false);
}
TB_REGISTER(reg);
}  // namespace
