// tempo::ntt benchmarks (Google Benchmark). Every row keeps Lux's method: warm-up calls
// discarded, then `--ntt_reps` (200) timed calls; the row's time is the median and the
// counters carry median_us, p99_us (and NTT/s where throughput matters). Rows:
//   cpu/<case>/<path>/<fwd|inv>        one core, one polynomial, each CPU kernel set
//   cpu_api/<case>/<fwd|inv|mul>       the same through the public API, as users write it
//   cpu_batch/<case>/threads:T/<backend>   forward_batch on a pool of T threads
//   cpu_loop/<case>/threads:T          a user's own tempo::parallel_for over plan.forward
//   gpu_floor                          empty kernel launch + synchronize
//   gpu_kernel/<case>/<op>/count:C     resident data, CUDA-event kernel time and host time
//                                      (<case>_u32: the data in the 32-bit layout, q < 2^31)
//   gpu_batch/<case>/count:C/<mem>     forward_batch(Backend::cuda), host to host
//   gpu_resident/<case>/count:C        Engine::run_resident forward on a DeviceBatch
//                                      (<case>_u32: NttOp with Layout::u32, n * 4-byte items)
// Each row checks its result against the CPU and fails (SkipWithError) on a mismatch.
//
//   bench_ntt --benchmark_out=ntt.json --benchmark_out_format=json
//   bench_ntt --ntt_quick=1        tiny sizes and reps (CI smoke)
//
// Against Intel HEXL: ntt_peer.cpp beside this file times tempo with the method of HEXL's
// own driver; scripts/device/ntt_peers.sh runs both on one pinned core (peer_ratios.py).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <tempo/ntt.hpp>
#include <tempo/ntt/detail/cpu_paths.hpp>
#include <tempo/tempo.hpp>

#if defined(BENCH_NTT_CUDA)
#include <tempo/ntt/detail/kernels.hpp>

#include "ntt_kernel_time.hpp"
#endif

namespace ntt = tempo::ntt;
namespace gpu = tempo::gpu;
namespace d = tempo::ntt::detail;
using u64 = std::uint64_t;
using Clock = std::chrono::steady_clock;

namespace {

int g_reps = 200, g_warm = 20;
bool g_quick = false;

struct Case {
  std::string name;
  ntt::Plan plan;
};

std::vector<Case> cases() {
  const u64 q60 = 1152921504606584833ull;  // largest prime < 2^60 that is 1 mod 2^17
  const u64 q50 = 1125899903827969ull;      // largest prime < 2^50 that is 1 mod 2^17 (IFMA range)
  std::vector<Case> v{{"MLDSA", ntt::Plan::preset("MLDSA")},
                      {"PN10QP27", ntt::Plan::preset("PN10QP27")},
                      {"PN11QP54", ntt::Plan::preset("PN11QP54")},
                      {"n1024_q50", ntt::Plan(1024, q50)},
                      {"n2048_q50", ntt::Plan(2048, q50)},
                      {"n1024_q60", ntt::Plan(1024, q60)},
                      {"n2048_q60", ntt::Plan(2048, q60)},
                      {"n4096_q60", ntt::Plan(4096, q60)},
                      {"n16384_q60", ntt::Plan(16384, q60)}};
  return v;
}

std::vector<u64> random_polys(std::size_t count, const ntt::Plan& p, u64 seed) {
  std::vector<u64> v(count * p.n());
  u64 s = seed * 0x9e3779b97f4a7c15ull + 1;
  for (auto& x : v) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    x = static_cast<u64>((static_cast<unsigned __int128>(s) * p.q()) >> 64);
  }
  return v;
}

double percentile(std::vector<double> v, double f) {
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(f * static_cast<double>(v.size())));
  return v[i];
}

// Lux's method on one row: warm-ups, then reps samples (us) of f(); row time = median.
// Calls over 5 ms (large batches) take fewer samples: about 1 s of them, at least 10.
void lux(benchmark::State& st, const std::function<double()>& sample_us, double items_per_call) {
  for (auto _ : st) {
    double first = 0;
    for (int i = 0; i < g_warm; ++i) {
      first = sample_us();
      if (first > 5000 && i >= 1) break;
    }
    int reps = g_reps;
    if (first > 5000) reps = std::max(10, std::min(g_reps, static_cast<int>(1e6 / first)));
    std::vector<double> s(static_cast<std::size_t>(reps));
    for (auto& x : s) x = sample_us();
    const double med = percentile(s, 0.5), p99 = percentile(s, 0.99);
    st.SetIterationTime(med * 1e-6);
    st.counters["median_us"] = med;
    st.counters["p99_us"] = p99;
    st.counters["reps"] = reps;
    if (items_per_call > 0) st.counters["ntt_per_s"] = items_per_call / (med * 1e-6);
  }
}

template <class F>
double time_us(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

tempo::ThreadPool& pool(std::size_t threads) {
  static std::vector<std::unique_ptr<tempo::ThreadPool>> pools(1024);
  auto& p = pools[threads];
  if (!p) p = std::make_unique<tempo::ThreadPool>(tempo::Options{.threads = threads});
  return *p;
}

// ---- one core, one polynomial, a given kernel set
void reg_cpu(const Case& c) {
  for (const std::string_view path : d::cpu_paths(c.plan.q())) {
    for (int inv = 0; inv < 2; ++inv) {
      const std::string name = "cpu/" + c.name + "/" + std::string(path) + (inv ? "/inv" : "/fwd");
      benchmark::RegisterBenchmark(name.c_str(), [c, path, inv](benchmark::State& st) {
        const ntt::Plan on_path = d::with_cpu_path(c.plan, path);
        auto a = random_polys(1, c.plan, 1), want = a;
        inv ? c.plan.inverse(want) : c.plan.forward(want);
        auto x = a;
        lux(st, [&] {
          std::copy(a.begin(), a.end(), x.begin());
          return time_us([&] { inv ? on_path.inverse_unchecked(x) : on_path.forward_unchecked(x); });
        }, 1);
        if (x != want) st.SkipWithError("wrong result");
      })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
    }
  }
}

// ---- the public API as a user writes it
void reg_cpu_api(const Case& c) {
  for (const char* op : {"fwd", "inv", "mul"}) {
    const std::string name = "cpu_api/" + c.name + "/" + op;
    benchmark::RegisterBenchmark(name.c_str(), [c, op = std::string(op)](benchmark::State& st) {
      const ntt::Plan& plan = c.plan;
      std::vector<std::uint64_t> a = random_polys(1, plan, 2), b = random_polys(1, plan, 3), out(plan.n());
      std::vector<std::uint64_t> x = a;
      lux(st, [&] {
        if (op == "mul") return time_us([&] { ntt::multiply(plan, a, b, out); });
        std::copy(a.begin(), a.end(), x.begin());
        return time_us([&] { op == "fwd" ? plan.forward(x) : plan.inverse(x); });
      }, 1);
      st.SetLabel(std::string(plan.cpu_path()));
    })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  }
}

// ---- batches on the pool
void reg_cpu_batch(const Case& c, std::size_t threads, std::size_t count) {
  for (tempo::Backend be : {tempo::Backend::cpu, tempo::Backend::auto_select}) {
    const std::string name = "cpu_batch/" + c.name + "/threads:" + std::to_string(threads) + "/count:" +
                             std::to_string(count) + "/" + std::string(tempo::backend_name(be));
    benchmark::RegisterBenchmark(name.c_str(), [c, threads, count, be](benchmark::State& st) {
      auto a = random_polys(count, c.plan, 4), x = a;
      tempo::ThreadPool& p = pool(threads);
      lux(st, [&] {
        std::copy(a.begin(), a.end(), x.begin());
        return time_us([&] { p.run([&](tempo::Task& t) { ntt::forward_batch(t, c.plan, x, be); }); });
      }, static_cast<double>(count));
      auto want = std::vector<u64>(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(c.plan.n()));
      c.plan.forward(want);
      if (!std::equal(want.begin(), want.end(), x.begin())) st.SkipWithError("wrong result");
    })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  }
  const std::string name = "cpu_loop/" + c.name + "/threads:" + std::to_string(threads) + "/count:" + std::to_string(count);
  benchmark::RegisterBenchmark(name.c_str(), [c, threads, count](benchmark::State& st) {
    const ntt::Plan& plan = c.plan;
    auto a = random_polys(count, plan, 4), x = a;
    tempo::ThreadPool& p = pool(threads);
    const std::size_t n = plan.n();
    lux(st, [&] {
      std::copy(a.begin(), a.end(), x.begin());
      return time_us([&] {
        p.run([&](tempo::Task& t) {
          tempo::parallel_for(t, 0, count, [&](std::size_t i) { plan.forward(std::span(x).subspan(i * n, n)); });
        });
      });
    }, static_cast<double>(count));
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

// ---- forward_batch (checked, Backend::cpu) on T threads, one row per round
void reg_cpu_scaling(const Case& c, std::size_t threads, std::size_t count, int round) {
  const std::string name = "cpu_scaling/" + c.name + "/round:" + std::to_string(round) + "/threads:" +
                           std::to_string(threads) + "/count:" + std::to_string(count);
  benchmark::RegisterBenchmark(name.c_str(), [c, threads, count](benchmark::State& st) {
    auto a = random_polys(count, c.plan, 4), x = a;
    tempo::ThreadPool& p = pool(threads);
    lux(st, [&] {
      std::copy(a.begin(), a.end(), x.begin());
      return time_us([&] { p.run([&](tempo::Task& t) { ntt::forward_batch(t, c.plan, x, tempo::Backend::cpu); }); });
    }, static_cast<double>(count));
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

// ---- the hardware's ceiling for the batch rows: T plain std::threads, each transforming
// its own contiguous share of the same batch (no runtime, no check), and the same with
// every thread on a private 16-polynomial set that stays in its L1/L2 (the clock's share
// of the scaling, without memory). The threads are started before the clock and spin on
// a start flag, so the row holds no thread creation: the time is from the release to the
// last thread's end. Shows how far cpu_batch is from what the machine gives
// (workloads/ntt/README.md, "Scaling").
void reg_cpu_ceiling(const Case& c, std::size_t threads, std::size_t count, bool hot) {
  const std::string name = std::string(hot ? "cpu_ceiling_hot/" : "cpu_ceiling/") + c.name + "/threads:" +
                           std::to_string(threads) + "/count:" + std::to_string(count);
  benchmark::RegisterBenchmark(name.c_str(), [c, threads, count, hot](benchmark::State& st) {
    const ntt::Plan& plan = c.plan;
    const std::size_t n = plan.n();
    auto a = random_polys(count, plan, 4), x = a;
    std::vector<std::vector<u64>> priv(threads, random_polys(16, plan, 5));
    lux(st, [&] {
      std::copy(a.begin(), a.end(), x.begin());
      std::atomic<bool> go{false};
      std::atomic<std::size_t> ready{0};
      std::vector<std::thread> ts;
      for (std::size_t w = 1; w < threads; ++w)
        ts.emplace_back([&, w] {
          ready.fetch_add(1, std::memory_order_relaxed);
          while (!go.load(std::memory_order_acquire)) {
          }
          const std::size_t lo = count * w / threads, hi = count * (w + 1) / threads;
          for (std::size_t i = lo; i < hi; ++i)
            plan.forward_unchecked(std::span(hot ? priv[w].data() + (i % 16) * n : x.data() + i * n, n));
        });
      while (ready.load(std::memory_order_relaxed) != threads - 1) {
      }
      return time_us([&] {
        go.store(true, std::memory_order_release);
        for (std::size_t i = 0; i < count / threads; ++i)  // this thread's share (w = 0)
          plan.forward_unchecked(std::span(hot ? priv[0].data() + (i % 16) * n : x.data() + i * n, n));
        for (auto& t : ts) t.join();
      });
    }, static_cast<double>(count));
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

#if defined(BENCH_NTT_CUDA)
// ---- the device
void reg_gpu_floor() {
  benchmark::RegisterBenchmark("gpu_floor/empty_launch_sync", [](benchmark::State& st) {
    const ntt::Plan plan = ntt::Plan::preset("MLDSA");
    const auto tb = d::device_table_bytes(plan.tables());
    const auto p = d::device_params(plan.tables());
    auto a = random_polys(1, plan, 1);
    std::vector<double> ev(static_cast<std::size_t>(g_reps)), host(ev.size());
    for (auto _ : st) {
      try {
        ntt_bench::time_kernels(p, tb, -1, a.data(), 1, g_warm, g_reps, ev.data(), host.data(), nullptr);
      } catch (const std::exception& e) {
        st.SkipWithError(e.what());
        return;
      }
      st.SetIterationTime(percentile(host, 0.5) * 1e-6);
      st.counters["host_median_us"] = percentile(host, 0.5);
      st.counters["host_p99_us"] = percentile(host, 0.99);
      st.counters["event_median_us"] = percentile(ev, 0.5);
    }
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

void reg_gpu_kernel(const Case& c, int kind, std::size_t count, bool u32 = false) {
  static const char* kinds[] = {"fwd", "inv", "mul_chain"};
  const std::string name =
      "gpu_kernel/" + c.name + (u32 ? "_u32/" : "/") + kinds[kind] + "/count:" + std::to_string(count);
  benchmark::RegisterBenchmark(name.c_str(), [c, kind, count, u32](benchmark::State& st) {
    const auto tb = d::device_table_bytes(c.plan.tables());
    const auto p = d::device_params(c.plan.tables());
    auto a = random_polys(count, c.plan, 5);
    std::vector<double> ev(static_cast<std::size_t>(g_reps)), host(ev.size());
    std::vector<u64> first(c.plan.n());
    for (auto _ : st) {
      try {
        ntt_bench::time_kernels(p, tb, kind, a.data(), count, g_warm, g_reps, ev.data(), host.data(), first.data(),
                                u32);
      } catch (const std::exception& e) {
        st.SkipWithError(e.what());
        return;
      }
      const double med = percentile(ev, 0.5);
      st.SetIterationTime(med * 1e-6);
      st.counters["median_us"] = med;
      st.counters["p99_us"] = percentile(ev, 0.99);
      st.counters["host_median_us"] = percentile(host, 0.5);
      st.counters["host_p99_us"] = percentile(host, 0.99);
      st.counters["ntt_per_s"] = static_cast<double>(count) / (med * 1e-6);
      st.counters["reps"] = g_reps;
    }
    std::vector<u64> want(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(c.plan.n()));
    if (kind == 0) c.plan.forward(want);
    if (kind == 1) c.plan.inverse(want);
    if (kind == 2) ntt::multiply(c.plan, std::vector<u64>(want), std::vector<u64>(want), want);
    if (first != want) st.SkipWithError("GPU result differs from the CPU");
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

void reg_gpu_batch(const Case& c, std::size_t count, bool pinned) {
  const std::string name = "gpu_batch/" + c.name + "/count:" + std::to_string(count) + (pinned ? "/pinned" : "/pageable");
  benchmark::RegisterBenchmark(name.c_str(), [c, count, pinned](benchmark::State& st) {
    const std::size_t len = count * c.plan.n();
    auto a = random_polys(count, c.plan, 6);
    gpu::HostBuffer hb(pinned ? len * 8 : 0);
    std::vector<u64> vec(pinned ? 0 : len);
    std::span<u64> x = pinned ? std::span(reinterpret_cast<u64*>(hb.data()), len) : std::span(vec);
    tempo::ThreadPool& p = pool(0);
    lux(st, [&] {
      std::copy(a.begin(), a.end(), x.begin());
      return time_us([&] {
        p.run([&](tempo::Task& t) { ntt::forward_batch_unchecked(t, c.plan, x, tempo::Backend::cuda); });
      });
    }, static_cast<double>(count));
    st.counters["GB_per_s_each_way"] =
        static_cast<double>(len * 8) / (st.counters["median_us"].value * 1e-6) / 1e9;
    std::vector<u64> want(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(c.plan.n()));
    c.plan.forward(want);
    if (!std::equal(want.begin(), want.end(), x.begin())) st.SkipWithError("GPU result differs from the CPU");
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

template <typename S>
void reg_gpu_resident(const Case& c, std::size_t count) {
  const bool u32 = sizeof(S) == 4;
  const std::string name = "gpu_resident/" + c.name + (u32 ? "_u32" : "") + "/count:" + std::to_string(count);
  benchmark::RegisterBenchmark(name.c_str(), [c, count, u32](benchmark::State& st) {
    const auto a64 = random_polys(count, c.plan, 7);
    const std::vector<S> a(a64.begin(), a64.end());
    gpu::Engine& e = gpu::Engine::shared();
    tempo::ThreadPool& p = pool(0);
    const auto layout = u32 ? ntt::Layout::u32 : ntt::Layout::u64;
    const ntt::NttOp fwd(c.plan, ntt::OpKind::forward, layout), inv(c.plan, ntt::OpKind::inverse, layout);
    p.run([&](tempo::Task& t) {
      auto A = gpu::DeviceBatch::upload(
          e, std::span(reinterpret_cast<const std::uint8_t*>(a.data()), a.size() * sizeof(S)), fwd.out_stride(),
          tempo::Backend::cuda);
      // forward then inverse per sample keeps the data unchanged; each counts separately.
      std::vector<double> f, i;
      lux(st, [&] {
        const double tf = time_us([&] { e.run_resident(t, fwd, {&A}, A); });
        i.push_back(time_us([&] { e.run_resident(t, inv, {&A}, A); }));
        return tf;
      }, static_cast<double>(count));
      st.counters["inv_median_us"] = percentile(i, 0.5);
      std::vector<S> back(a.size());
      A.download(std::span(reinterpret_cast<std::uint8_t*>(back.data()), back.size() * sizeof(S)));
      if (back != a) st.SkipWithError("resident round trip changed the data");
    });
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--ntt_quick=", 0) == 0) g_quick = a.substr(12) != "0";
    else if (a.rfind("--ntt_reps=", 0) == 0) g_reps = std::max(1, std::atoi(a.c_str() + 11));
    else rest.push_back(argv[i]);
  }
  if (g_quick) g_reps = 5, g_warm = 1;
  int rargc = static_cast<int>(rest.size());
  benchmark::Initialize(&rargc, rest.data());
  const auto all = cases();
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  for (const Case& c : all) {
    reg_cpu(c);
    reg_cpu_api(c);
  }
  for (const Case& c : all) {
    if (c.plan.n() > 2048) {  // all-core only: 32 MiB of coefficients per batch
      if (cores > 1) reg_cpu_batch(c, cores, g_quick ? 4 : (std::size_t{1} << 22) / c.plan.n());
      continue;
    }
    // The same batch of 4096 on one thread and on all: the scaling target's ratio.
    reg_cpu_batch(c, 1, g_quick ? 8 : 4096);
    if (cores > 1) reg_cpu_batch(c, cores, g_quick ? 8 : 4096);
    // The scaling target's ratio with the host's drifting clock taken out: one and all
    // threads alternate, round by round (bench/ntt/summarize.py: the median of the
    // rounds' ratios).
    if (c.plan.n() == 1024 && !g_quick && cores > 1 && (c.name == "PN10QP27" || c.name == "n1024_q60"))
      for (int round = 0; round < 5; ++round)
        for (std::size_t th : {std::size_t{1}, cores}) reg_cpu_scaling(c, th, 4096, round);
    if (c.plan.n() == 1024 && !g_quick) {
      for (std::size_t th : {std::size_t{1}, cores}) reg_cpu_ceiling(c, th, 4096, false);
      for (std::size_t th = 1; th <= cores; th *= 2) reg_cpu_ceiling(c, th, 4096, true);  // the clock's curve
      if ((cores & (cores - 1)) != 0) reg_cpu_ceiling(c, cores, 4096, true);
    }
  }
#if defined(BENCH_NTT_CUDA)
  if (gpu::device_count() > 0) {
    reg_gpu_floor();
    for (const Case& c : all) {
      const std::size_t big = g_quick ? 64 : (std::size_t{1} << 25) / c.plan.n();  // 256 MiB of coefficients
      const std::size_t h2h = g_quick ? 64 : (std::size_t{1} << 23) / c.plan.n();  // 64 MiB
      for (std::size_t count : {std::size_t{1}, std::size_t{32}, std::size_t{1024}, big}) {
        reg_gpu_kernel(c, 0, count);
        if (count == 1 || count == big) reg_gpu_kernel(c, 1, count);
        if (count == 1 || count == big) reg_gpu_kernel(c, 2, count);
      }
      if (c.name == "MLDSA" || c.name == "PN10QP27" || c.name == "PN11QP54" || c.name == "n1024_q60") {
        for (std::size_t count : {std::size_t{1}, std::size_t{32}, std::size_t{1024}, h2h}) {
          reg_gpu_batch(c, count, false);
          reg_gpu_batch(c, count, true);
        }
        reg_gpu_resident<u64>(c, 1);
        reg_gpu_resident<u64>(c, h2h);
      }
      if (c.name == "PN10QP27" || c.name == "MLDSA") {  // the 32-bit layout (q < 2^31)
        for (int kind = 0; kind < 3; ++kind) reg_gpu_kernel(c, kind, big, true);
        reg_gpu_kernel(c, 0, 1, true);
        reg_gpu_resident<std::uint32_t>(c, h2h);
        reg_gpu_resident<std::uint32_t>(c, big);
      }
    }
  } else {
    std::printf("bench_ntt: no CUDA device, GPU rows skipped\n");
  }
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
