// The portable path: scalar Harvey butterflies with Shoup multiplication, two stages per
// pass.
// Forward (Cooley-Tukey) keeps values in [0, 4q); inverse (Gentleman-Sande) in [0, 2q);
// one final pass reduces to [0, q).
#include "tables.hpp"

namespace tempo::ntt::detail {
namespace {

inline void ct(u64& x, u64& y, u64 w, u64 ws, u64 q) {  // [0,4q) -> [0,4q)
  const u64 u = csub(x, 2 * q);
  const u64 v = mul_shoup_lazy(y, w, ws, q);
  x = u + v;
  y = u - v + 2 * q;
}
inline void gs(u64& x, u64& y, u64 w, u64 ws, u64 q) {  // [0,2q) -> [0,2q)
  const u64 u = csub(x + y, 2 * q);
  y = mul_shoup_lazy(x - y + 2 * q, w, ws, q);
  x = u;
}

// Stages in pairs (radix 4: one load and store per coefficient for two stages), then a
// last single stage when log n is odd.
void forward(const Tables& t, u64* a) {
  const u64 q = t.q;
  const std::size_t n = t.n;
  const u64* w = t.fwd.data();
  const u64* ws = t.fwd_shoup.data();
  std::size_t len = n / 2;
  for (; len >= 2; len >>= 2) {
    const std::size_t h = len / 2, blocks = n / (2 * len);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t mA = blocks + b, mB = 2 * blocks + 2 * b;  // stage len, then len/2
      u64* p = a + b * 2 * len;
      for (std::size_t j = 0; j < h; ++j) {
        u64 x0 = p[j], x1 = p[j + h], x2 = p[j + 2 * h], x3 = p[j + 3 * h];
        ct(x0, x2, w[mA], ws[mA], q);
        ct(x1, x3, w[mA], ws[mA], q);
        ct(x0, x1, w[mB], ws[mB], q);
        ct(x2, x3, w[mB + 1], ws[mB + 1], q);
        p[j] = x0, p[j + h] = x1, p[j + 2 * h] = x2, p[j + 3 * h] = x3;
      }
    }
  }
  if (len == 1)
    for (std::size_t b = 0; b < n / 2; ++b) ct(a[2 * b], a[2 * b + 1], w[n / 2 + b], ws[n / 2 + b], q);
  for (std::size_t i = 0; i < n; ++i) a[i] = csub(csub(a[i], 2 * q), q);
}

void inverse(const Tables& t, u64* a) {
  const u64 q = t.q;
  const std::size_t n = t.n;
  const u64* w = t.inv.data();
  const u64* ws = t.inv_shoup.data();
  // Stage len, block b uses inv[n/len - 1 - b] (FIPS 204 Algorithm 42's order).
  std::size_t len = 1;
  for (; 2 * len < n / 2; len <<= 2) {
    for (std::size_t b = 0; b < n / (4 * len); ++b) {
      const std::size_t mA = n / len - 1 - 2 * b, mB = n / (2 * len) - 1 - b;
      u64* p = a + b * 4 * len;
      for (std::size_t j = 0; j < len; ++j) {
        u64 x0 = p[j], x1 = p[j + len], x2 = p[j + 2 * len], x3 = p[j + 3 * len];
        gs(x0, x1, w[mA], ws[mA], q);
        gs(x2, x3, w[mA - 1], ws[mA - 1], q);
        gs(x0, x2, w[mB], ws[mB], q);
        gs(x1, x3, w[mB], ws[mB], q);
        p[j] = x0, p[j + len] = x1, p[j + 2 * len] = x2, p[j + 3 * len] = x3;
      }
    }
  }
  if (len < n / 2)
    for (std::size_t b = 0; b < n / (2 * len); ++b)
      for (std::size_t j = b * 2 * len; j < b * 2 * len + len; ++j)
        gs(a[j], a[j + len], w[n / len - 1 - b], ws[n / len - 1 - b], q);
  // Last stage (m = 1) with 1/n folded in.
  const std::size_t h = n / 2;
  for (std::size_t j = 0; j < h; ++j) {
    const u64 u = a[j], v = a[j + h];
    a[j] = csub(mul_shoup_lazy(u + v, t.n_inv, t.n_inv_shoup, q), q);
    a[j + h] = csub(mul_shoup_lazy(u - v + 2 * q, w[1], ws[1], q), q);
  }
}

void pointwise(const Tables& t, const u64* a, const u64* b, u64* out, bool accumulate) {
  const Barrett& br = t.barrett;
  if (accumulate) {
    for (std::size_t i = 0; i < t.n; ++i) out[i] = csub(out[i] + br.mul(a[i], b[i]), t.q);
  } else {
    for (std::size_t i = 0; i < t.n; ++i) out[i] = br.mul(a[i], b[i]);
  }
}

const Kernels kPortable{"portable", forward, inverse, pointwise, nullptr, 62, scan_then<forward>, scan_then<inverse>};

}  // namespace

const Kernels& portable_kernels() { return kPortable; }

}  // namespace tempo::ntt::detail
