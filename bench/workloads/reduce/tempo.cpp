#include <tempo/tempo.hpp>

#include <functional>

#include "../../common/bench_common.hpp"
#include "reduce.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("reduce/tempo", [n = c.reduce_n](benchmark::State& s) {
    const auto& d = tb::reduce::data(n);
    const float* v = d.v.data();
    tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
    for (auto _ : s) {
      benchmark::DoNotOptimize(v);
      double sum = pool.run([&](tempo::Task& t) {
        return tempo::parallel_reduce(
            t, std::size_t{0}, n, 0.0, [v](std::size_t i) { return static_cast<double>(v[i]); }, std::plus<double>{});
      });
      if (!tb::check(s, sum == d.sum, "float sum")) break;
    }
    tb::ns_per(s, "ns_per_elem", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
