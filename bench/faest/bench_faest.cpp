// tempo::faest benchmarks (Google Benchmark). Latency rows time every call and report the
// median and p99 in microseconds as counters (median_us, p99_us); batch rows report
// signatures (or verifications) per second as items_per_second and "sigs/s".
//
//   bench_faest --benchmark_filter=Single        one core: sign/verify latency (anchors: 128f
//                                                0.507 / 0.415 ms, 128s 3.76 / 2.88 ms, AVX2)
//   bench_faest --benchmark_filter=Forked        one signature, forks inside, 1..N threads
//   bench_faest --benchmark_filter=Batch         throughput of a batch on a pool of N threads
//   TEMPO_FAEST_BACKEND=portable bench_faest     the constant-time portable backend
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <tempo/faest.hpp>
#include <tempo/tempo.hpp>

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
    sig = tempo::faest::sign(p, kp.secret_key, msg, rho);
  }
};

// Times each call of f; reports median and p99 (microseconds).
template <class F>
void timed_loop(benchmark::State& st, F&& f) {
  std::vector<double> us;
  for (auto _ : st) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  if (!us.empty()) {
    st.counters["median_us"] = us[us.size() / 2];
    st.counters["p99_us"] = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  }
  st.SetLabel(std::string(tempo::faest::name(params_of(st))) + " " + tempo::faest::cpu_backend_name());
}

tempo::ThreadPool& pool_of(std::size_t threads) {
  static std::vector<std::unique_ptr<tempo::ThreadPool>> pools(257);
  auto& p = pools.at(threads);
  if (!p) p = std::make_unique<tempo::ThreadPool>(tempo::Options{.threads = threads});
  return *p;
}

// ---- one core, the plain API as a user writes it ----
void BM_Single_Sign(benchmark::State& st) {
  Fixture fx(params_of(st));
  timed_loop(st, [&] {
    auto sig = tempo::faest::sign(fx.p, fx.kp.secret_key, fx.msg, fx.rho);
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
    auto sig = pool.run([&](tempo::Task& t) { return tempo::faest::sign(t, fx.p, fx.kp.secret_key, fx.msg, fx.rho); });
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
    pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, p, b.sks, b.msgs, b.sigs); });
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
  pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, p, b.sks, b.msgs, b.sigs); });
  std::vector<bool> ok;
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tempo::faest::verify_batch(t, p, b.pks, b.msgs, b.sigs, ok); });
    if (std::count(ok.begin(), ok.end(), true) != std::ptrdiff_t(n)) st.SkipWithError("verification failed");
  }
  batch_counters(st, n);
  st.SetLabel(tempo::faest::name(p));
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

BENCHMARK_MAIN();
