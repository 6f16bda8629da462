// tempo::faest benchmarks (Google Benchmark). Latency rows time every call and report the
// median and p99 in microseconds as counters (median_us, p99_us); batch rows report
// signatures (or verifications) per second as items_per_second and "sigs/s".
//
//   bench_faest --benchmark_filter=Single        one core: sign/verify latency (anchors: 128f
//                                                0.507 / 0.415 ms, 128s 3.76 / 2.88 ms, AVX2)
//   bench_faest --benchmark_filter=Forked        one signature, forks inside, 1..N threads
//   bench_faest --benchmark_filter=Batch         throughput of a batch on a pool of N threads
//   bench_faest --benchmark_filter=Gpu           batch-size curve 256..65536, sign and verify,
//                                                Backend::cpu vs cuda on all threads (cuda rows
//                                                are skipped with an error without a device)
//   TEMPO_FAEST_ISA=portable bench_faest         the constant-time portable instruction set
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <tempo/faest.hpp>
#include <tempo/gpu/backend.hpp>
#include <tempo/tempo.hpp>

#include "../common/latency.hpp"

using tempo::faest::Params;

namespace {

Params params_of(const benchmark::State& st) { return st.range(0) == 0 ? Params::faest_128f : Params::faest_128s; }

struct Fixture {
  Params p;
  tempo::faest::KeyPair kp;
  std::vector<std::uint8_t> msg = std::vector<std::uint8_t>(32, 0x42);
  std::array<std::uint8_t, 16> rho{};
  std::vector<std::uint8_t> sig;
  explicit Fixture(Params ps) : p(ps), kp(tempo::faest::keygen(ps)) {
    sig = tempo::faest::sign_deterministic(p, kp.secret_key, msg, rho);
  }
};

using bench_latency::pool_of;

// bench_latency::timed_loop, labelled with the set and the instruction set.
template <class F>
void timed_loop(benchmark::State& st, F&& f) {
  bench_latency::timed_loop(st, std::forward<F>(f));
  st.SetLabel(std::string(tempo::faest::name(params_of(st))) + " " + tempo::faest::cpu_isa_name());
}

// ---- one core, the plain API as a user writes it ----
void BM_Single_Sign(benchmark::State& st) {
  Fixture fx(params_of(st));
  timed_loop(st, [&] {
    auto sig = tempo::faest::sign_deterministic(fx.p, fx.kp.secret_key, fx.msg, fx.rho);
    benchmark::DoNotOptimize(sig.data());
  });
}
void BM_Single_Verify(benchmark::State& st) {
  Fixture fx(params_of(st));
  timed_loop(st, [&] {
    bool ok = tempo::faest::verify(fx.p, fx.kp.public_key, fx.msg, fx.sig);
    if (!ok) st.SkipWithError("verification failed");
    benchmark::DoNotOptimize(ok);
  });
}
void BM_Single_Keygen(benchmark::State& st) {
  timed_loop(st, [&] {
    auto kp = tempo::faest::keygen(params_of(st));
    benchmark::DoNotOptimize(kp.public_key.data());
  });
}

// ---- one signature, forks inside (the tau VOLE instances, tree levels, leaf hashes) ----
void BM_Forked_Sign(benchmark::State& st) {
  Fixture fx(params_of(st));
  auto& pool = pool_of(std::size_t(st.range(1)));
  timed_loop(st, [&] {
    auto sig = pool.run(
        [&](tempo::Task& t) { return tempo::faest::sign_deterministic(t, fx.p, fx.kp.secret_key, fx.msg, fx.rho); });
    benchmark::DoNotOptimize(sig.data());
  });
  st.counters["threads"] = double(st.range(1));
}
void BM_Forked_Verify(benchmark::State& st) {
  Fixture fx(params_of(st));
  auto& pool = pool_of(std::size_t(st.range(1)));
  timed_loop(st, [&] {
    bool ok = pool.run([&](tempo::Task& t) { return tempo::faest::verify(t, fx.p, fx.kp.public_key, fx.msg, fx.sig); });
    benchmark::DoNotOptimize(ok);
  });
  st.counters["threads"] = double(st.range(1));
}

// ---- batches on a pool ----
struct BatchData {
  std::vector<std::vector<std::uint8_t>> sks, pks, msgs, sigs;
  BatchData(Params p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      auto kp = tempo::faest::keygen(p);
      sks.push_back(kp.secret_key);
      pks.push_back(kp.public_key);
      msgs.emplace_back(32, std::uint8_t(i));
    }
  }
};
void batch_counters(benchmark::State& st, std::size_t n) {
  const auto items = std::int64_t(st.iterations()) * std::int64_t(n);
  st.SetItemsProcessed(items);
  st.counters["sigs/s"] = benchmark::Counter(double(items), benchmark::Counter::kIsRate);
  st.counters["threads"] = double(st.range(1));
  st.counters["batch"] = double(n);
}
void BM_Batch_Sign(benchmark::State& st) {
  const Params p = params_of(st);
  const std::size_t n = std::size_t(st.range(2));
  BatchData b(p, n);
  auto& pool = pool_of(std::size_t(st.range(1)));
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, p, b.sks, b.msgs, b.sigs, tempo::Backend::cpu); });
    benchmark::DoNotOptimize(b.sigs.data());
  }
  batch_counters(st, n);
  st.SetLabel(tempo::faest::name(p));
}
void BM_Batch_Verify(benchmark::State& st) {
  const Params p = params_of(st);
  const std::size_t n = std::size_t(st.range(2));
  BatchData b(p, n);
  auto& pool = pool_of(std::size_t(st.range(1)));
  pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, p, b.sks, b.msgs, b.sigs, tempo::Backend::cpu); });
  std::vector<bool> ok;
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tempo::faest::verify_batch(t, p, b.pks, b.msgs, b.sigs, ok, tempo::Backend::cpu); });
    if (std::count(ok.begin(), ok.end(), true) != std::ptrdiff_t(n)) st.SkipWithError("verification failed");
  }
  batch_counters(st, n);
  st.SetLabel(tempo::faest::name(p));
}

// ---- the batch-size curve, CPU (all threads) against the GPU path ----
// Args: {params, batch size, backend: 0 cpu, 1 cuda}.
tempo::Backend backend_of(const benchmark::State& st) {
  return st.range(2) == 1 ? tempo::Backend::cuda : tempo::Backend::cpu;
}
BatchData& curve_data(Params p, std::size_t n) {  // shared by the rows of one size (keygen is slow)
  static std::vector<std::pair<std::pair<int, std::size_t>, std::unique_ptr<BatchData>>> cache;
  for (auto& [k, v] : cache)
    if (k.first == int(p) && k.second == n) return *v;
  cache.emplace_back(std::make_pair(int(p), n), std::make_unique<BatchData>(p, n));
  return *cache.back().second;
}
bool skip_without_device(benchmark::State& st) {
  if (backend_of(st) != tempo::Backend::cuda || tempo::gpu::available(tempo::Backend::cuda)) return false;
  st.SkipWithError("no CUDA device (or a build without CUDA)");
  return true;
}
void curve_counters(benchmark::State& st, std::size_t n) {
  const auto items = std::int64_t(st.iterations()) * std::int64_t(n);
  st.SetItemsProcessed(items);
  st.counters["sigs/s"] = benchmark::Counter(double(items), benchmark::Counter::kIsRate);
  st.counters["batch"] = double(n);
  st.counters["gpu"] = double(st.range(2));
  st.SetLabel(std::string(tempo::faest::name(params_of(st))) + (st.range(2) == 1 ? " gpu" : " cpu"));
}
// warm_up_note: each curve row runs one untimed batch of its own size and backend first, so
// the timed batches see what a signing service sees after its first batch: the engine's
// devices and streams started, its cost model calibrated, the GPU path's pinned slices in
// their pool (pinning a slice of 4,096 took 35-55 ms on the device host, an eighth of a
// 16,384 batch).
void BM_Gpu_Sign(benchmark::State& st) {
  if (skip_without_device(st)) return;
  const Params p = params_of(st);
  const std::size_t n = std::size_t(st.range(1));
  BatchData& b = curve_data(p, n);
  auto& pool = pool_of(std::thread::hardware_concurrency());
  auto once = [&] {
    pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, p, b.sks, b.msgs, b.sigs, backend_of(st)); });
  };
  once();  // untimed: see warm_up_note
  for (auto _ : st) {
    once();
    benchmark::DoNotOptimize(b.sigs.data());
  }
  curve_counters(st, n);
}
void BM_Gpu_Verify(benchmark::State& st) {
  if (skip_without_device(st)) return;
  const Params p = params_of(st);
  const std::size_t n = std::size_t(st.range(1));
  BatchData& b = curve_data(p, n);
  auto& pool = pool_of(std::thread::hardware_concurrency());
  if (b.sigs.size() != n)
    pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, p, b.sks, b.msgs, b.sigs, tempo::Backend::cpu); });
  std::vector<bool> ok;
  auto once = [&] {
    pool.run([&](tempo::Task& t) { tempo::faest::verify_batch(t, p, b.pks, b.msgs, b.sigs, ok, backend_of(st)); });
  };
  once();  // untimed: see warm_up_note
  for (auto _ : st) {
    once();
    if (std::count(ok.begin(), ok.end(), true) != std::ptrdiff_t(n)) st.SkipWithError("verification failed");
  }
  curve_counters(st, n);
}
void apply_curve(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {256, 1024, 4096, 16384, 65536})
    for (std::int64_t gpu : {0, 1}) b->Args({0, n, gpu});
  for (std::int64_t n : {256, 4096, 16384})
    for (std::int64_t gpu : {0, 1}) b->Args({1, n, gpu});
}

std::vector<std::int64_t> thread_counts() {
  const std::int64_t hw = std::max<std::int64_t>(1, std::int64_t(std::thread::hardware_concurrency()));
  std::vector<std::int64_t> v;
  for (std::int64_t t = 1; t < hw; t *= 2) v.push_back(t);
  v.push_back(hw);
  return v;
}

void apply_threads(benchmark::internal::Benchmark* b) {
  for (std::int64_t p : {0, 1})
    for (std::int64_t t : thread_counts()) b->Args({p, t});
}
void apply_batch(benchmark::internal::Benchmark* b) {
  for (std::int64_t t : thread_counts()) b->Args({0, t, 256});
  const auto ts = thread_counts();
  b->Args({1, ts.back(), 64});
}

}  // namespace

BENCHMARK(BM_Single_Sign)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Single_Verify)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Single_Keygen)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Forked_Sign)->Apply(apply_threads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Forked_Verify)->Apply(apply_threads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Batch_Sign)->Apply(apply_batch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Batch_Verify)->Apply(apply_batch)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK(BM_Gpu_Sign)->Apply(apply_curve)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_Gpu_Verify)->Apply(apply_curve)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

BENCHMARK_MAIN();
