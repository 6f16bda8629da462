// The plain loop parallel_reduce is held to (at most +2% at 1 thread).
#include "../../common/bench_common.hpp"
#include "reduce.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("reduce/serial", [n = c.reduce_n](benchmark::State& s) {
    const auto& d = tb::reduce::data(n);
    const float* v = d.v.data();
    for (auto _ : s) {
      benchmark::DoNotOptimize(v);
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i) sum += v[i];
      if (!tb::check(s, sum == d.sum, "float sum")) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, false);
}
TB_REGISTER(reg);
}  // namespace
