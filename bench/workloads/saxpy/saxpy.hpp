// The light parallel_for body: y[i] = a * x[i] + b over a cache-sized array,
// where the loop machinery itself is what is measured (target: at most +2%
// over the plain loop at 1 thread).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "../../common/bench_common.hpp"

namespace tb::saxpy {

constexpr float kA = 2.5f, kB = 0.75f;

inline float body(float x) { return kA * x + kB; }

struct Data {
  std::vector<float> x, want;
  explicit Data(std::size_t n) : x(n), want(n) {
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = static_cast<float>(i % 1024) * 0.125f;
      want[i] = body(x[i]);
    }
  }
  bool matches(const std::vector<float>& y) const {
    return y.size() == want.size() && std::memcmp(y.data(), want.data(), y.size() * sizeof(float)) == 0;
  }
  // After an iteration, outside the timed region: checks y, then zeroes it for
  // the next iteration. False (and the benchmark marked failed) on a mismatch.
  bool check_and_reset(benchmark::State& s, std::vector<float>& y) const {
    s.PauseTiming();
    if (!tb::check(s, matches(y), "saxpy output")) return false;
    std::fill(y.begin(), y.end(), 0.0f);
    s.ResumeTiming();
    return true;
  }
};

}  // namespace tb::saxpy
