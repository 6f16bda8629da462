#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "matmul.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("matmul/tbb", [n = c.matmul_n](benchmark::State& s) {
    const auto& p = tb::matmul::problem(n);
    std::vector<double> out(p.want.size());
    double* o = out.data();
    tb::TbbEnv env(tb::threads_of(s));
    for (auto _ : s) {
      env.run([&] {
        tbb::parallel_for(tbb::blocked_range<int>(0, p.blocks()), [&p, o](const tbb::blocked_range<int>& r) {
          for (int b = r.begin(); b != r.end(); ++b) tb::matmul::block(p, o, b);
        });
      });
      s.PauseTiming();
      if (!tb::check(s, tb::matmul::matches(p, out), "matmul product")) break;
      s.ResumeTiming();
    }
    tb::ns_per(s, "ns_per_row", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
