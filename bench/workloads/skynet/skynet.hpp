// Skynet: a 10-ary tree of tasks whose leaves return their own index; with
// 10^k leaves the sum is 10^k (10^k - 1) / 2 (1M leaves: 499,999,500,000).
#pragma once
#include <cstdint>

namespace tb::skynet {

constexpr int kDiv = 10;

inline std::uint64_t leaves(int log10) {
  std::uint64_t n = 1;
  for (int i = 0; i < log10; ++i) n *= 10;
  return n;
}

inline std::uint64_t expected(int log10) {
  std::uint64_t n = leaves(log10);
  return n * (n - 1) / 2;
}

// All nodes of the task tree: 1 + 10 + ... + 10^k.
inline double tasks(int log10) {
  double t = 0, level = 1;
  for (int i = 0; i <= log10; ++i, level *= 10) t += level;
  return t;
}

}  // namespace tb::skynet
