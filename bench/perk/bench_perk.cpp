// tempo::perk benchmarks (Google Benchmark). Latency rows time every call and report the
// median and p99 in microseconds as counters (median_us, p99_us); batch rows report
// signatures (or verifications) per second as items_per_second and "sigs/s".
//
//   bench_perk --benchmark_filter=Single        one core, the plain API (sign with OS
//                                               randomness, verify): levels 1/3/5, fast and
//                                               short, aes_aes (args 0-5), aes_keccak
//                                               (6-11), keccak_keccak (12-17) (anchors, the
//                                               PERK team's AVX2 code: 1-fast 1.18 / 0.85 ms,
//                                               1-short 3.84 / 3.23 ms sign / verify)
//   bench_perk --benchmark_filter=Batch         throughput of sign_batch / verify_batch
//                                               (Backend::cpu) on a pool of N threads
//   bench_perk --benchmark_filter='cpu_(scaling|ceiling)'
//                                               the same batch on 1 thread and on all,
//                                               alternating, 5 rounds, and on plain threads
//                                               (cpu_ceiling; bench/scaling.py: the
//                                               median of the rounds' ratios)
//   bench_perk --benchmark_filter=Gpu           the GPU batch-size curve (1024..16384), sign
//                                               (Gpu_Sign) and verify (Gpu_Verify),
//                                               Backend::cpu vs cuda on all threads (cuda rows
//                                               are skipped with an error without a device)
//   TEMPO_PERK_ISA=portable bench_perk          the constant-time portable kernels
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <tempo/gpu/backend.hpp>
#include <tempo/perk.hpp>
#include <tempo/tempo.hpp>

#include "../common/latency.hpp"

using tempo::perk::Params;

namespace {

// The rows' first argument k: the aes_aes sets of each level and mode first (0-5, the rows
// the peers and the scripts use), then aes_keccak (6-11) and keccak_keccak (12-17), each in
// the same level/mode order. all_params() lists the sets in the enum's order, three
// symmetric choices per level and mode: set k is its entry 3 (k mod 6) + k / 6.
Params params_of(const benchmark::State& st) {
  const auto k = static_cast<std::size_t>(st.range(0));
  return tempo::perk::all_params()[3 * (k % 6) + k / 6];
}

struct Fixture {
  Params p;
  tempo::perk::KeyPair kp;
  std::vector<std::uint8_t> msg = std::vector<std::uint8_t>(32, 0x42);
  std::vector<std::uint8_t> sig;
  explicit Fixture(Params ps) : p(ps), kp(tempo::perk::keygen(ps)) { sig = tempo::perk::sign(p, kp.secret_key, msg); }
};

using bench_latency::pool_of;

// bench_latency::timed_loop, labelled with the set and the ISA.
template <class F>
void timed_loop(benchmark::State& st, F&& f) {
  bench_latency::timed_loop(st, std::forward<F>(f));
  st.SetLabel(std::string(tempo::perk::name(params_of(st))) + " " + tempo::perk::cpu_isa_name());
}

std::size_t cores() { return std::max<std::size_t>(1, std::thread::hardware_concurrency()); }

// ---- one core, the plain API as a user writes it ----
void BM_Single_Sign(benchmark::State& st) {
  Fixture fx(params_of(st));
  timed_loop(st, [&] {
    auto sig = tempo::perk::sign(fx.p, fx.kp.secret_key, fx.msg);
    benchmark::DoNotOptimize(sig.data());
  });
}
void BM_Single_Verify(benchmark::State& st) {
  Fixture fx(params_of(st));
  timed_loop(st, [&] {
    bool ok = tempo::perk::verify(fx.p, fx.kp.public_key, fx.msg, fx.sig);
    if (!ok) st.SkipWithError("verification failed");
    benchmark::DoNotOptimize(ok);
  });
}
void BM_Single_Keygen(benchmark::State& st) {
  timed_loop(st, [&] {
    auto kp = tempo::perk::keygen(params_of(st));
    benchmark::DoNotOptimize(kp.public_key.data());
  });
}

// ---- batches on a pool ----
struct BatchData {
  std::vector<std::vector<std::uint8_t>> sks, pks, msgs, sigs;
  BatchData(Params p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      auto kp = tempo::perk::keygen(p);
      sks.push_back(kp.secret_key);
      pks.push_back(kp.public_key);
      msgs.emplace_back(32, std::uint8_t(i));
    }
  }
};
void batch_counters(benchmark::State& st, std::size_t n, std::size_t threads) {
  const auto items = std::int64_t(st.iterations()) * std::int64_t(n);
  st.SetItemsProcessed(items);
  st.counters["sigs/s"] = benchmark::Counter(double(items), benchmark::Counter::kIsRate);
  st.counters["threads"] = double(threads);
  st.counters["batch"] = double(n);
  st.SetLabel(std::string(tempo::perk::name(params_of(st))) + " " + tempo::perk::cpu_isa_name());
}
// Args: {set, threads, batch size}.
void BM_Batch_Sign(benchmark::State& st) {
  const Params p = params_of(st);
  const std::size_t threads = std::size_t(st.range(1)), n = std::size_t(st.range(2));
  BatchData b(p, n);
  auto& pool = pool_of(threads);
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tempo::perk::sign_batch(t, p, b.sks, b.msgs, b.sigs, tempo::Backend::cpu); });
    benchmark::DoNotOptimize(b.sigs.data());
  }
  batch_counters(st, n, threads);
}
void BM_Batch_Verify(benchmark::State& st) {
  const Params p = params_of(st);
  const std::size_t threads = std::size_t(st.range(1)), n = std::size_t(st.range(2));
  BatchData b(p, n);
  auto& pool = pool_of(threads);
  pool.run([&](tempo::Task& t) { tempo::perk::sign_batch(t, p, b.sks, b.msgs, b.sigs, tempo::Backend::cpu); });
  std::vector<bool> ok;
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tempo::perk::verify_batch(t, p, b.pks, b.msgs, b.sigs, ok, tempo::Backend::cpu); });
    if (std::count(ok.begin(), ok.end(), true) != std::ptrdiff_t(n)) st.SkipWithError("verification failed");
  }
  batch_counters(st, n, threads);
}

std::vector<std::int64_t> thread_counts() {
  const auto hw = std::int64_t(cores());
  std::vector<std::int64_t> v;
  for (std::int64_t t = 1; t < hw; t *= 2) v.push_back(t);
  v.push_back(hw);
  return v;
}
void apply_batch(benchmark::internal::Benchmark* b) {
  for (std::int64_t t : thread_counts()) b->Args({0, t, 256});  // perk-1-fast-aes_aes on 1..N threads
  const std::int64_t all = thread_counts().back();
  for (std::int64_t set : {1, 2, 3, 4, 5}) b->Args({set, all, 64});  // the other sets on all threads
}

// ---- the scaling target's ratio: the same sign_batch (Backend::cpu, count signatures) on
// 1 thread and on all, registered alternately round by round so that the host's drifting
// clock falls on both sides; each row is the median of its samples (at least 3, about 1 s).
// cpu_ceiling rows, in the same rounds: the same signatures on plain threads, no runtime,
// each thread signing its share with the single-signature call: what the cores give when
// they all sign at once (shared caches, the all-core clock), the bound of the pool's rate.
template <class Sample>
void median_sample(benchmark::State& st, std::size_t count, Sample&& sample_us) {
  for (auto _ : st) {
    const double first = sample_us();  // warm-up: the pool's threads, the engine, page faults
    const int reps = std::max(3, std::min(20, int(1e6 / std::max(first, 1.0))));
    std::vector<double> s(std::size_t(reps), 0.0);
    for (auto& x : s) x = sample_us();
    std::sort(s.begin(), s.end());
    const double med = s[s.size() / 2];
    st.SetIterationTime(med * 1e-6);
    st.counters["median_us"] = med;
    st.counters["reps"] = reps;
    st.counters["sigs_per_s"] = double(count) / (med * 1e-6);
  }
}

void reg_cpu_scaling(Params p, std::size_t threads, std::size_t count, int round, bool ceiling) {
  const std::string name = std::string(ceiling ? "cpu_ceiling/" : "cpu_scaling/") + tempo::perk::name(p) +
                           "/round:" + std::to_string(round) + "/threads:" + std::to_string(threads) +
                           "/count:" + std::to_string(count);
  benchmark::RegisterBenchmark(name.c_str(), [p, threads, count, ceiling](benchmark::State& st) {
    BatchData b(p, count);
    b.sigs.resize(count);
    auto& pool = pool_of(threads);
    median_sample(st, count, [&] {
      const auto t0 = std::chrono::steady_clock::now();
      if (ceiling) {
        std::vector<std::thread> ts;
        for (std::size_t w = 0; w < threads; ++w)
          ts.emplace_back([&, w] {
            for (std::size_t i = count * w / threads; i < count * (w + 1) / threads; ++i)
              b.sigs[i] = tempo::perk::sign(p, b.sks[i], b.msgs[i]);
          });
        for (auto& t : ts) t.join();
      } else {
        pool.run([&](tempo::Task& t) { tempo::perk::sign_batch(t, p, b.sks, b.msgs, b.sigs, tempo::Backend::cpu); });
      }
      return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    });
    st.counters["threads"] = double(threads);
    st.SetLabel(std::string(tempo::perk::name(p)) + " " + tempo::perk::cpu_isa_name());
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
}

}  // namespace

// ---- the GPU batch-size curve: sign_batch on all threads, Backend::cpu against cuda ----
// Args: {set, batch size, gpu}. 64 keys cycle over the batch (keygen is not what is timed);
// every item has its own message. cuda rows are skipped with an error without a device.
struct CurveData {
  std::vector<std::vector<std::uint8_t>> sks, pks, msgs, sigs;
  CurveData(Params p, std::size_t n) {
    std::vector<tempo::perk::KeyPair> keys;
    for (std::size_t i = 0; i < 64; ++i) keys.push_back(tempo::perk::keygen(p));
    for (std::size_t i = 0; i < n; ++i) {
      sks.push_back(keys[i % keys.size()].secret_key);
      pks.push_back(keys[i % keys.size()].public_key);
      msgs.emplace_back(32, std::uint8_t(i));
      for (std::size_t j = 0; j < 4; ++j) msgs.back()[j] = std::uint8_t(i >> (8 * j));
    }
  }
};
// The curve rows' backend (range 2: 1 = cuda).
tempo::Backend curve_backend(const benchmark::State& st) {
  return st.range(2) != 0 ? tempo::Backend::cuda : tempo::Backend::cpu;
}
void BM_Gpu_Sign(benchmark::State& st) {
  const Params p = params_of(st);
  const std::size_t n = std::size_t(st.range(1));
  const tempo::Backend backend = curve_backend(st);
  if (backend == tempo::Backend::cuda && !tempo::gpu::available(backend)) return st.SkipWithError("no CUDA device");
  CurveData b(p, n);
  auto& pool = pool_of(cores());
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tempo::perk::sign_batch(t, p, b.sks, b.msgs, b.sigs, backend); });
    benchmark::DoNotOptimize(b.sigs.data());
  }
  batch_counters(st, n, cores());
  st.counters["gpu"] = double(st.range(2));
}
// The same curve for verification: the batch signed once on the CPU, then verified.
void BM_Gpu_Verify(benchmark::State& st) {
  const Params p = params_of(st);
  const std::size_t n = std::size_t(st.range(1));
  const tempo::Backend backend = curve_backend(st);
  if (backend == tempo::Backend::cuda && !tempo::gpu::available(backend)) return st.SkipWithError("no CUDA device");
  CurveData b(p, n);
  auto& pool = pool_of(cores());
  pool.run([&](tempo::Task& t) { tempo::perk::sign_batch(t, p, b.sks, b.msgs, b.sigs, tempo::Backend::cpu); });
  std::vector<bool> ok;
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tempo::perk::verify_batch(t, p, b.pks, b.msgs, b.sigs, ok, backend); });
    if (std::count(ok.begin(), ok.end(), true) != std::ptrdiff_t(n)) st.SkipWithError("verification failed");
  }
  batch_counters(st, n, cores());
  st.counters["gpu"] = double(st.range(2));
}
void apply_curve(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {1024, 4096, 16384})
    for (std::int64_t gpu : {0, 1}) b->Args({0, n, gpu});  // perk-1-fast-aes_aes
  for (std::int64_t set : {2, 4})                           // perk-3-fast, perk-5-fast
    for (std::int64_t n : {1024, 4096})
      for (std::int64_t gpu : {0, 1}) b->Args({set, n, gpu});
}

BENCHMARK(BM_Single_Sign)->DenseRange(0, 17)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Single_Verify)->DenseRange(0, 17)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Single_Keygen)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Batch_Sign)->Apply(apply_batch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Batch_Verify)->Apply(apply_batch)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gpu_Sign)->Apply(apply_curve)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_Gpu_Verify)->Apply(apply_curve)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  // 1-fast and 1-short: 16 signatures per thread of the all-core pool, the same batch on one.
  const std::size_t all = cores();
  for (Params p : {Params::perk_1_fast_aes_aes, Params::perk_1_short_aes_aes})
    for (int round = 0; round < 5; ++round) {
      for (std::size_t threads : {std::size_t{1}, all}) reg_cpu_scaling(p, threads, 16 * all, round, false);
      reg_cpu_scaling(p, all, 16 * all, round, true);
    }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
