// What tempo_overhead and tempo_paired share: the error exit, number
// arguments, quantiles of paired samples and tempo's scheduler counts per run.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tempo/options.hpp>

namespace tb::cli {

// The program's name for its messages; each tool sets it first thing in main.
inline const char* program = "tempo";

[[noreturn]] inline void fail(const std::string& what) {
  std::fprintf(stderr, "%s: %s\n", program, what.c_str());
  std::exit(1);
}

// A whole decimal number in [lo, hi], or fail naming the flag.
inline long parse_num(const char* s, long lo, long hi, const char* what) {
  char* end;
  const long x = std::strtol(s, &end, 10);
  if (end == s || *end != '\0' || x < lo || x > hi) fail(std::string("bad ") + what + " '" + s + "'");
  return x;
}

// The q-quantile (0..1) of v, interpolated between neighbours.
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// What tempo's scheduler did per run: pool.stats() deltas over `runs` runs
// (why a ratio moves with the thread count or a setting).
struct PerRun {
  double promoted = 0, stolen = 0, sleeps = 0, heartbeats = 0;
};
inline PerRun per_run(const tempo::Stats& before, const tempo::Stats& after, int runs) {
  const auto per = [runs](std::uint64_t a, std::uint64_t b) { return static_cast<double>(b - a) / runs; };
  return {per(before.promoted, after.promoted), per(before.stolen, after.stolen), per(before.sleeps, after.sleeps),
          per(before.heartbeats, after.heartbeats)};
}

}  // namespace tb::cli
