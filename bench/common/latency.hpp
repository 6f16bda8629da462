// The signature benches' shared pieces (bench_perk; the same shape as bench_faest's): a loop
// that times every call and reports the median and p99, and one pool per thread count.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>
#include <tempo/tempo.hpp>

namespace bench_latency {

// Times each call of f; reports median and p99 in microseconds (counters median_us, p99_us).
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
}

// One pool per thread count, made on first use and kept (pool start-up stays out of the rows).
inline tempo::ThreadPool& pool_of(std::size_t threads) {
  static std::vector<std::unique_ptr<tempo::ThreadPool>> pools(257);
  auto& p = pools.at(threads);
  if (!p) p = std::make_unique<tempo::ThreadPool>(tempo::Options{.threads = threads});
  return *p;
}

}  // namespace bench_latency
