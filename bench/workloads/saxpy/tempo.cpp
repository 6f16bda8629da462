#include <tempo/tempo.hpp>

#include <algorithm>

#include "../../common/bench_common.hpp"
#include "saxpy.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("saxpy/tempo", [n = c.saxpy_n](benchmark::State& s) {
    tb::saxpy::Data d(n);
    std::vector<float> y(n);
    const float* x = d.x.data();
    float* out = y.data();
    tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
    for (auto _ : s) {
      pool.run([&](tempo::Task& t) {
        tempo::parallel_for(t, std::size_t{0}, n, [x, out](std::size_t i) { out[i] = tb::saxpy::body(x[i]); });
      });
      benchmark::ClobberMemory();
      if (!d.check_and_reset(s, y)) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
