#include <algorithm>

#include "../../common/bench_common.hpp"
#include "saxpy.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("saxpy/serial", [n = c.saxpy_n](benchmark::State& s) {
    tb::saxpy::Data d(n);
    std::vector<float> y(n);
    const float* x = d.x.data();
    float* out = y.data();
    for (auto _ : s) {
      for (std::size_t i = 0; i < n; ++i) out[i] = tb::saxpy::body(x[i]);
      benchmark::ClobberMemory();
      if (!d.check_and_reset(s, y)) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, false);
}
TB_REGISTER(reg);
}  // namespace
