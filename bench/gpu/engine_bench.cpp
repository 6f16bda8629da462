// The engine's own overhead, measured as users call it (Engine::run through the
// public API, ordinary memory), against the raw CUDA calls in the same run:
//   BM_raw_round_trip      64 B in, a copy kernel, 64 B out, stream synchronize (p50/p99 us)
//   BM_engine_round_trip   the same bytes through Engine::run with a user op (PolyEval p(x)=x)
//   BM_cpu_batch_1         Backend::cpu, one item of a user op: per-batch overhead (ns)
//   BM_cpu_batch_1e6 / BM_plain_loop_1e6   10^6 light items on one worker vs the plain loop
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

#include "poly_op.hpp"

namespace {
using namespace tempo;
using Clock = std::chrono::steady_clock;

// out = in + 1 per 64-bit word: a light, memory-bound op.
class Increment final : public gpu::BatchOp {
 public:
  std::string key() const override { return "bench/increment"; }
  std::size_t out_stride() const override { return 8; }
  void cpu(const gpu::Chunk& c) const override { increment(c.in[0].data, c.out, c.count); }
  static void increment(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t x;
      std::memcpy(&x, in + 8 * i, 8);
      ++x;
      std::memcpy(out + 8 * i, &x, 8);
    }
  }
};

void percentiles(benchmark::State& st, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  st.counters["p50_us"] = us[us.size() / 2];
  st.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
}

void BM_raw_round_trip(benchmark::State& st) {
  if (!gpu::available(tempo::Backend::cuda)) return st.SkipWithError("no CUDA device");
  gpu::Engine& e = gpu::Engine::shared();
  gpu::Engine::RawRoundTrip r;
  for (auto _ : st) r = e.raw_round_trip(64, 2000);
  st.counters["p50_us"] = r.p50_us;
  st.counters["p99_us"] = r.p99_us;
}

void BM_engine_round_trip(benchmark::State& st) {
  if (!gpu::available(tempo::Backend::cuda)) return st.SkipWithError("no CUDA device");
  gpu::Engine& e = gpu::Engine::shared();
  example::PolyEval op(e, {0, 1});  // p(x) = x: a copy
  std::vector<std::uint32_t> in(16, 7), out(16);
  auto b = [](std::vector<std::uint32_t>& v) { return std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(v.data()), 64); };
  ThreadPool pool(Options{.threads = 1});
  gpu::RunOptions opt;
  opt.backend = tempo::Backend::cuda;
  std::vector<double> us;
  pool.run([&](Task& t) {
    for (int i = 0; i < 10; ++i) e.run(t, op, {gpu::Operand::fixed(b(in), 4)}, b(out), opt);  // warm-up
    for (auto _ : st) {
      for (int i = 0; i < 2000; ++i) {
        const auto t0 = Clock::now();
        e.run(t, op, {gpu::Operand::fixed(b(in), 4)}, b(out), opt);
        us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
      }
    }
  });
  if (out[0] != 7) st.SkipWithError("wrong result");
  percentiles(st, us);
}

void BM_cpu_batch_1(benchmark::State& st) {
  gpu::Engine& e = gpu::Engine::shared();
  Increment op;
  std::vector<std::uint8_t> in(8), out(8);
  ThreadPool pool(Options{.threads = 1});
  gpu::RunOptions opt;
  opt.backend = tempo::Backend::cpu;
  pool.run([&](Task& t) {
    for (auto _ : st) benchmark::DoNotOptimize(e.run(t, op, {gpu::Operand::fixed(in, 8)}, out, opt).items);
  });
}

void BM_cpu_batch_1e6(benchmark::State& st) {
  gpu::Engine& e = gpu::Engine::shared();
  Increment op;
  std::vector<std::uint8_t> in(8 << 20), out(8 << 20);
  ThreadPool pool(Options{.threads = static_cast<std::size_t>(st.range(0))});
  gpu::RunOptions opt;
  opt.backend = tempo::Backend::cpu;
  pool.run([&](Task& t) {
    for (auto _ : st) e.run(t, op, {gpu::Operand::fixed(in, 8)}, out, opt);
  });
  st.SetItemsProcessed(st.iterations() * (1 << 20));
}

void BM_plain_loop_1e6(benchmark::State& st) {
  std::vector<std::uint8_t> in(8 << 20), out(8 << 20);
  const std::size_t threads = static_cast<std::size_t>(st.range(0));
  if (threads == 1) {
    for (auto _ : st) {
      Increment::increment(in.data(), out.data(), 1 << 20);
      benchmark::ClobberMemory();
    }
  } else {
    ThreadPool pool(Options{.threads = threads});
    pool.run([&](Task& t) {
      for (auto _ : st) {
        tempo::parallel_for(t, std::size_t{0}, std::size_t{1} << 20,
                            [&](std::size_t i) { Increment::increment(in.data() + 8 * i, out.data() + 8 * i, 1); });
        benchmark::ClobberMemory();
      }
    });
  }
  st.SetItemsProcessed(st.iterations() * (1 << 20));
}

}  // namespace

BENCHMARK(BM_raw_round_trip)->Iterations(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_engine_round_trip)->Iterations(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_cpu_batch_1)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_cpu_batch_1e6)->Arg(1)->Arg(16)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_plain_loop_1e6)->Arg(1)->Arg(16)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
