#include <tempo/tempo.hpp>

#include "../../common/bench_common.hpp"
#include "matmul.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("matmul/tempo", [n = c.matmul_n](benchmark::State& s) {
    const auto& p = tb::matmul::problem(n);
    std::vector<double> out(p.want.size());
    double* o = out.data();
    tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
    for (auto _ : s) {
      pool.run([&](tempo::Task& t) {
        tempo::parallel_for(t, std::size_t{0}, static_cast<std::size_t>(p.blocks()), tempo::grain{1},
                            [&p, o](std::size_t b) { tb::matmul::block(p, o, static_cast<int>(b)); });
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
