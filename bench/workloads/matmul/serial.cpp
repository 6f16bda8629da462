#include "../../common/bench_common.hpp"
#include "matmul.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("matmul/serial", [n = c.matmul_n](benchmark::State& s) {
    const auto& p = tb::matmul::problem(n);
    std::vector<double> out(p.want.size());
    for (auto _ : s) {
      tb::matmul::rows(p, out.data(), 0, n);
      s.PauseTiming();
      if (!tb::check(s, tb::matmul::matches(p, out), "matmul product")) break;
      s.ResumeTiming();
    }
    tb::ns_per(s, "ns_per_row", static_cast<double>(n));
  }, false);
}
TB_REGISTER(reg);
}  // namespace
