// OpenMP worksharing loop, schedule(dynamic, 64): the usual choice for an
// irregular loop (static would leave threads idle on the costly rows).
#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "mandelbrot.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("mandelbrot/omp_for", [p = tb::mandel::problem(c.mandel_size, c.mandel_iters)](benchmark::State& s) {
    const auto& want = tb::mandel::reference(p);
    std::vector<std::uint16_t> img(p.pixels());
    const int k = tb::threads_of(s);
    tb::omp_require_threads(k);
    const long n = static_cast<long>(img.size());
    std::uint16_t* out = img.data();
    for (auto _ : s) {
#pragma omp parallel for schedule(dynamic, 64) num_threads(k)
      for (long i = 0; i < n; ++i) out[i] = tb::mandel::pixel(p, static_cast<std::size_t>(i));
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
