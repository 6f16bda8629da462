// fib(n) with a fork at every call: the pure fork/join overhead benchmark.
#pragma once
#include <cstdint>

namespace tb::fib {

constexpr std::uint64_t value(int n) {
  std::uint64_t a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    std::uint64_t c = a + b;
    a = b;
    b = c;
  }
  return a;
}

// Calls (= tasks) made by the naive recursion: 2 fib(n+1) - 1.
constexpr double calls(int n) { return 2.0 * static_cast<double>(value(n + 1)) - 1.0; }

}  // namespace tb::fib
