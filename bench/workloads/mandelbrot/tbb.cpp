// oneTBB parallel_for with the default (auto) partitioner.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "mandelbrot.hpp"

namespace {
void reg(const tb::Config& c) {
  tb::add("mandelbrot/tbb", [p = tb::mandel::problem(c.mandel_size, c.mandel_iters)](benchmark::State& s) {
    const auto& want = tb::mandel::reference(p);
    std::vector<std::uint16_t> img(p.pixels());
    tb::TbbEnv env(tb::threads_of(s));
    for (auto _ : s) {
      env.run([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, img.size()), [&](const auto& r) {
          for (std::size_t i = r.begin(); i != r.end(); ++i) img[i] = tb::mandel::pixel(p, i);
        });
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
