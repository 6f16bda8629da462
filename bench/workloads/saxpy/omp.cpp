// OpenMP worksharing loop, schedule(static): the natural choice for a uniform body.
#include <algorithm>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "saxpy.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("saxpy/omp_for", [n = c.saxpy_n](benchmark::State& s) {
    tb::saxpy::Data d(n);
    std::vector<float> y(n);
    const float* x = d.x.data();
    float* out = y.data();
    const int k = tb::threads_of(s);
    tb::omp_require_threads(k);
    const long len = static_cast<long>(n);
    for (auto _ : s) {
#pragma omp parallel for schedule(static) num_threads(k)
      for (long i = 0; i < len; ++i) out[i] = tb::saxpy::body(x[i]);
      benchmark::ClobberMemory();
      if (!d.check_and_reset(s, y)) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
