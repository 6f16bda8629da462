#include "../../common/bench_common.hpp"
#include "fib.hpp"

namespace {
std::uint64_t fib(int n) { return n < 2 ? static_cast<std::uint64_t>(n) : fib(n - 1) + fib(n - 2); }

void reg(const tb::Config&) {
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
