// The placement cost model (no timings asserted: only decisions and fitting).
#include <tempo/keccak/offload.hpp>
#include <tempo/gpu/cost_model.hpp>

#include "helpers.hpp"

using namespace tempo::gpu;

namespace {
WorkShape shape(double n, double len, double out = 32, double rate = 136) {
  WorkShape w;
  w.items = n;
  w.bytes = n * (len + out);
  w.work = n * (1 + (out > rate ? std::floor((out - 1) / rate) : 0)) + n * len / rate;
  return w;
}
}  // namespace

TEST_CASE("small batches stay on the CPU, large ones go to the GPU", "[gpu][cost]") {
  CostModel m(tempo::keccak::HashOp(tempo::keccak::Algorithm::shake256, 32).prior());
  CHECK(m.estimate(shape(1, 32), 16, 1).placement == Placement::cpu);
  CHECK(m.estimate(shape(100, 32), 16, 1).placement == Placement::cpu);
  const Estimate big = m.estimate(shape(1e8, 32), 16, 1);
  CHECK(big.placement != Placement::cpu);
  CHECK(big.gpu_ms < big.cpu_ms);
  CHECK(m.estimate(shape(1e8, 32), 16, 0).placement == Placement::cpu);  // no device
  CHECK_FALSE(m.estimate(shape(1e8, 32), 16, 0).describe().empty());
}

TEST_CASE("the split finishes no later than either side alone", "[gpu][cost]") {
  CostModel m(tempo::keccak::HashOp(tempo::keccak::Algorithm::shake256, 32).prior());
  for (double n : {1e3, 1e4, 1e5, 1e6, 1e7}) {
    for (double len : {32.0, 1024.0, 16384.0}) {
      const Estimate e = m.estimate(shape(n, len), 16, 1);
      CHECK(e.split_ms <= std::max(e.cpu_ms, e.gpu_ms) + 1e-9);
      CHECK(e.gpu_fraction >= 0.0);
      CHECK(e.gpu_fraction <= 1.0);
    }
  }
}

TEST_CASE("two devices halve the GPU's variable time", "[gpu][cost]") {
  CostModel m(tempo::keccak::HashOp(tempo::keccak::Algorithm::shake256, 32).prior());
  const Estimate one = m.estimate(shape(1e7, 32), 16, 1), two = m.estimate(shape(1e7, 32), 16, 2);
  const double fixed = m.gpu().fixed_ms();
  CHECK((two.gpu_ms - fixed) == Approx((one.gpu_ms - fixed) / 2).epsilon(1e-9));
}

TEST_CASE("calibration follows measured batches and stays finite", "[gpu][cost]") {
  CostModel m(tempo::keccak::HashOp(tempo::keccak::Algorithm::shake256, 32).prior());
  const double before = m.predict_cpu_core_ms(1e5, 1e6);
  // This machine's CPU is 3x slower than the prior: 50 observations say so.
  for (int i = 0; i < 50; ++i) {
    const double work = 1e3 * (1 + i % 7), bytes = work * 64;
    const LinearCost prior(0.002, 150e-6, 0.05e-6);
    m.observe_cpu(work, bytes, 3.0 * prior.predict(work, bytes));
  }
  const double after = m.predict_cpu_core_ms(1e5, 1e6);
  CHECK(after > 2.0 * before);
  CHECK(after < 4.0 * before);
  // Garbage observations are ignored.
  m.observe_gpu(1e6, 1e6, -1.0);
  m.observe_gpu(1e6, 1e6, std::nan(""));
  CHECK(std::isfinite(m.predict_gpu_ms(1e6, 1e6)));
  m.reset();
  CHECK(m.predict_cpu_core_ms(1e5, 1e6) == Approx(before));
}

TEST_CASE("a GPU that turns out slow pushes work back to the CPU", "[gpu][cost]") {
  CostModel m(tempo::keccak::HashOp(tempo::keccak::Algorithm::shake256, 32).prior());
  const WorkShape w = shape(2e5, 32);
  const Placement first = m.estimate(w, 16, 1).placement;
  for (int i = 0; i < 40; ++i) m.observe_gpu(2e5, 2e5 * 64, 500.0);  // 500 ms each: awful
  CHECK(m.estimate(w, 16, 1).placement == Placement::cpu);
  (void)first;
}
