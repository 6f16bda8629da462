// parallel_reduce: the sum (in double) of n floats. Every value is k/65536
// with k < 65536 and n <= 2^37 keeps every partial sum a multiple of 2^-16
// below 2^37, so all additions are exact: any association order gives the
// same bits, and results are compared for equality.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tb::reduce {

inline float value(std::size_t i) {
  auto x = static_cast<std::uint32_t>(i) * 2654435761u;  // Knuth's multiplicative hash
  x ^= static_cast<std::uint32_t>(i >> 32);
  return static_cast<float>(x >> 16) / 65536.0f;
}

struct Data {
  std::vector<float> v;
  double sum = 0;  // serial plain-loop sum
};

// Filled with plain std::threads (not a runtime under test) and cached: 1e9
// floats are 4 GB.
inline const Data& data(std::size_t n) {
  if (n > (std::size_t{1} << 37)) throw std::invalid_argument("reduce: n must be at most 2^37 (exact sums)");
  static std::map<std::size_t, std::unique_ptr<Data>> cache;
  auto& d = cache[n];
  if (!d) {
    d = std::make_unique<Data>();
    d->v.resize(n);
    unsigned k = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> th;
    for (unsigned t = 0; t < k; ++t)
      th.emplace_back([&, t] {
        for (std::size_t i = n * t / k; i < n * (t + 1) / k; ++i) d->v[i] = value(i);
      });
    for (auto& x : th) x.join();
    double s = 0;
    for (float f : d->v) s += f;
    d->sum = s;
  }
  return *d;
}

}  // namespace tb::reduce
