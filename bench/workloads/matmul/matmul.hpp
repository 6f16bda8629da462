// 2048x2048 double matrix multiply: the coarse-grained sanity check (a
// parallel loop over blocks of 16 rows; every runtime should be at par).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace tb::matmul {

constexpr int kRowBlock = 16;

struct Problem {
  int n;
  std::vector<double> a, b, want;
  int blocks() const { return n / kRowBlock; }
};

// Rows [r0, r1) of C = A B, tiled over k and j so a B tile stays in cache.
// Every element is summed in k order, so results do not depend on the split.
inline void rows(const Problem& p, double* c, int r0, int r1) {
  const int n = p.n;
  constexpr int KB = 128, JB = 256;
  for (int i = r0; i < r1; ++i) std::fill(c + static_cast<std::size_t>(i) * n, c + static_cast<std::size_t>(i + 1) * n, 0.0);
  for (int jj = 0; jj < n; jj += JB) {
    const int je = std::min(n, jj + JB);
    for (int kk = 0; kk < n; kk += KB) {
      const int ke = std::min(n, kk + KB);
      for (int i = r0; i < r1; ++i) {
        double* ci = c + static_cast<std::size_t>(i) * n;
        const double* ai = p.a.data() + static_cast<std::size_t>(i) * n;
        for (int k = kk; k < ke; ++k) {
          const double aik = ai[k];
          const double* bk = p.b.data() + static_cast<std::size_t>(k) * n;
          for (int j = jj; j < je; ++j) ci[j] += aik * bk[j];
        }
      }
    }
  }
}

inline void block(const Problem& p, double* c, int blk) { rows(p, c, blk * kRowBlock, (blk + 1) * kRowBlock); }

// Small integers: every product and sum is exact, so results are comparable
// bit for bit (with each other and with the Rust baseline).
inline const Problem& problem(int n) {
  static std::map<int, std::unique_ptr<Problem>> cache;
  auto& p = cache[n];
  if (!p) {
    p = std::make_unique<Problem>();
    p->n = n;
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    p->a.resize(nn);
    p->b.resize(nn);
    p->want.resize(nn);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        p->a[static_cast<std::size_t>(i) * n + j] = static_cast<double>((i + 2 * j) % 8 - 3);
        p->b[static_cast<std::size_t>(i) * n + j] = static_cast<double>((3 * i + j) % 5 - 2);
      }
    rows(*p, p->want.data(), 0, n);
  }
  return *p;
}

inline bool matches(const Problem& p, const std::vector<double>& c) {
  return c.size() == p.want.size() && std::memcmp(c.data(), p.want.data(), c.size() * sizeof(double)) == 0;
}

}  // namespace tb::matmul
