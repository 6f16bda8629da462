// N-queens solution counting on bitboards; every placement is a fork point.
#pragma once
#include <bit>
#include <cstdint>
#include <map>
#include <stdexcept>

namespace tb::nqueens {

// Published solution counts (OEIS A000170), n = 0..16.
constexpr std::uint64_t kSolutions[] = {1,    1,     0,     0,      2,      10,      4,       40,      92,
                                        352,  724,   2680,  14200,  73712,  365596,  2279184, 14772512};

inline std::uint64_t expected(int n) {
  if (n < 0 || n > 16) throw std::invalid_argument("nqueens: n must be in 0..16");
  return kSolutions[n];
}

// The search state: occupied columns and the two diagonal masks of the next row.
struct Board {
  std::uint32_t all, cols, ld, rd;
  std::uint32_t free() const { return all & ~(cols | ld | rd); }
  bool complete() const { return cols == all; }
  Board place(std::uint32_t bit) const {
    return {all, cols | bit, ((ld | bit) << 1) & all, (rd | bit) >> 1};
  }
};

inline Board start(int n) { return {(n >= 32) ? ~0u : ((1u << n) - 1u), 0, 0, 0}; }

// Lowest half of the set bits of m (at least one): the left branch of a binary split.
inline std::uint32_t low_half(std::uint32_t m) {
  int k = std::popcount(m) / 2;
  std::uint32_t rest = m;
  for (int i = 0; i < k; ++i) rest &= rest - 1;
  return m ^ rest;
}

// Serial reference; also counts search nodes (placements) for ns_per_task.
inline std::uint64_t count(Board b, std::uint64_t* nodes = nullptr) {
  if (b.complete()) return 1;
  std::uint64_t s = 0;
  for (std::uint32_t m = b.free(); m; m &= m - 1) {
    if (nodes) ++*nodes;
    s += count(b.place(m & -m), nodes);
  }
  return s;
}

// Cached: benchmarks call this on the main thread after their timed loop.
inline double placements(int n) {
  static std::map<int, double> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  std::uint64_t nodes = 0;
  count(start(n), &nodes);
  return cache[n] = static_cast<double>(nodes);
}

}  // namespace tb::nqueens
