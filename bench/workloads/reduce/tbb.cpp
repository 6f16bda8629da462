#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <functional>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "reduce.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("reduce/tbb", [n = c.reduce_n](benchmark::State& s) {
    const auto& d = tb::reduce::data(n);
    const float* v = d.v.data();
    tb::TbbEnv env(tb::threads_of(s));
    for (auto _ : s) {
      benchmark::DoNotOptimize(v);
      double sum = env.run([&] {
        return tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(0, n), 0.0,
            [v](const tbb::blocked_range<std::size_t>& r, double acc) {
              for (std::size_t i = r.begin(); i != r.end(); ++i) acc += v[i];
              return acc;
            },
            std::plus<double>{});
      });
      if (!tb::check(s, sum == d.sum, "float sum")) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
