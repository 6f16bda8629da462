// OpenMP worksharing loop over row blocks, schedule(dynamic, 1).
#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "matmul.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("matmul/omp_for", [n = c.matmul_n](benchmark::State& s) {
    const auto& p = tb::matmul::problem(n);
    std::vector<double> out(p.want.size());
    double* o = out.data();
    const int k = tb::threads_of(s);
    tb::omp_require_threads(k);
    const int blocks = p.blocks();
    for (auto _ : s) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(k)
      for (int b = 0; b < blocks; ++b) tb::matmul::block(p, o, b);
      s.PauseTiming();
      if (!tb::check(s, tb::matmul::matches(p, out), "matmul product")) break;
      s.ResumeTiming();
    }
    tb::ns_per(s, "ns_per_row", static_cast<double>(n));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
