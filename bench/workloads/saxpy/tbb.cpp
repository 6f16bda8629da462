#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "saxpy.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("saxpy/tbb", [n = c.saxpy_n](benchmark::State& s) {
    tb::saxpy::Data d(n);
    std::vector<float> y(n);
    const float* x = d.x.data();
    float* out = y.data();
    tb::TbbEnv env(tb::threads_of(s));
    for (auto _ : s) {
      env.run([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n), [x, out](const tbb::blocked_range<std::size_t>& r) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) out[i] = tb::saxpy::body(x[i]);
        });
      });
      benchmark::ClobberMemory();
      if (!d.check_and_reset(s, y)) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
