#include "../../common/bench_common.hpp"
#include "mandelbrot.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("mandelbrot/serial", [p = tb::mandel::problem(c.mandel_size, c.mandel_iters)](benchmark::State& s) {
    const auto& want = tb::mandel::reference(p);
    std::vector<std::uint16_t> img(p.pixels());
    for (auto _ : s) {
      for (std::size_t i = 0; i < img.size(); ++i) img[i] = tb::mandel::pixel(p, i);
      s.PauseTiming();
      bool ok = tb::check(s, tb::mandel::same(img, want), "mandelbrot image");
      if (!ok) break;
      std::fill(img.begin(), img.end(), 0);
      s.ResumeTiming();
    }
    tb::ns_per(s, "ns_per_pixel", static_cast<double>(p.pixels()));
  }, false);
}
TB_REGISTER(reg);
}  // namespace
