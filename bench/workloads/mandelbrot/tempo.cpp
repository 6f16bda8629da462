#include <tempo/tempo.hpp>

#include "../../common/bench_common.hpp"
#include "mandelbrot.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("mandelbrot/tempo", [p = tb::mandel::problem(c.mandel_size, c.mandel_iters)](benchmark::State& s) {
    const auto& want = tb::mandel::reference(p);
    std::vector<std::uint16_t> img(p.pixels());
    tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
    for (auto _ : s) {
      pool.run([&](tempo::Task& t) {
        tempo::parallel_for(t, std::size_t{0}, img.size(), [&](std::size_t i) { img[i] = tb::mandel::pixel(p, i); });
      });
      s.PauseTiming();
      if (!tb::check(s, tb::mandel::same(img, want), "mandelbrot image")) break;
      std::fill(img.begin(), img.end(), 0);
      s.ResumeTiming();
    }
    tb::ns_per(s, "ns_per_pixel", static_cast<double>(p.pixels()));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
