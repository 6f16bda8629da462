// OpenMP worksharing loop with reduction(+), schedule(static).
#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "reduce.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("reduce/omp_for", [n = c.reduce_n](benchmark::State& s) {
    const auto& d = tb::reduce::data(n);
    const float* v = d.v.data();
    const int k = tb::threads_of(s);
    tb::omp_require_threads(k);
    const long len = static_cast<long>(n);
    for (auto _ : s) {
      benchmark::DoNotOptimize(v);
      double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum) num_threads(k)
      for (long i = 0; i < len; ++i) sum += v[i];
      if (!tb::check(s, sum == d.sum, "float sum")) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
