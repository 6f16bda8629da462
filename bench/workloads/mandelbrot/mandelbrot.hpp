// Mandelbrot escape counts, one loop index per pixel: an irregular loop (the
// cost of a pixel ranges from 1 to `iters` iterations).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

namespace tb::mandel {

struct Problem {
  int size, iters;
  std::size_t pixels() const { return static_cast<std::size_t>(size) * static_cast<std::size_t>(size); }
};

// Plain double arithmetic, no FMA contraction (ISO C++ mode), so every
// implementation (Rust included) produces identical counts.
inline std::uint16_t pixel(const Problem& p, std::size_t i) {
  const int x = static_cast<int>(i % static_cast<std::size_t>(p.size));
  const int y = static_cast<int>(i / static_cast<std::size_t>(p.size));
  const double cr = -2.0 + 3.0 * x / p.size;
  const double ci = -1.5 + 3.0 * y / p.size;
  double zr = 0, zi = 0;
  int k = 0;
  for (; k < p.iters; ++k) {
    const double zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4.0) break;
    zi = 2.0 * zr * zi + ci;
    zr = zr2 - zi2 + cr;
  }
  return static_cast<std::uint16_t>(k);
}

// The serial image every parallel result is compared with (cached per problem).
inline const std::vector<std::uint16_t>& reference(const Problem& p) {
  static std::map<std::pair<int, int>, std::vector<std::uint16_t>> cache;
  auto& img = cache[{p.size, p.iters}];
  if (img.empty()) {
    img.resize(p.pixels());
    for (std::size_t i = 0; i < img.size(); ++i) img[i] = pixel(p, i);
  }
  return img;
}

inline bool same(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof a[0]) == 0;
}

inline Problem problem(int size, int iters) {
  if (iters > 65535) iters = 65535;  // counts are stored in 16 bits
  return Problem{size, iters};
}

}  // namespace tb::mandel
