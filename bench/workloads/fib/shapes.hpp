// fib in the two shapes users write (see tree_sum/shapes.hpp), templates over
// the Task type: tempo::Task or tb::SerialTask from the same source.
#pragma once
#include <cstdint>

namespace tb::fib {

template <class Task>
std::uint64_t fib_byval(Task& t, int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = t.join([n](Task& t) { return fib_byval(t, n - 1); },
                       [n](Task& t) { return fib_byval(t, n - 2); });
  return a + b;
}

template <class Task>
std::uint64_t fib_byref(Task& t, int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  auto [a, b] = t.join([&](Task& t) { return fib_byref(t, n - 1); },
                       [&](Task& t) { return fib_byref(t, n - 2); });
  return a + b;
}

}  // namespace tb::fib
