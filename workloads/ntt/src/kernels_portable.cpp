// The portable path: scalar Harvey butterflies with Shoup multiplication.
// Forward (Cooley-Tukey) keeps values in [0, 4q); inverse (Gentleman-Sande) in [0, 2q);
// one final pass reduces to [0, q).
#include "tables.hpp"

namespace tempo::ntt::detail {
namespace {

void forward(const Tables& t, u64* a) {
  const u64 q = t.q, q2 = 2 * q;
  const std::size_t n = t.n;
  std::size_t m = 1;
  for (std::size_t len = n / 2; len >= 1; len >>= 1) {
    for (std::size_t start = 0; start < n; start += 2 * len, ++m) {
      const u64 w = t.fwd[m], ws = t.fwd_shoup[m];
      u64* x = a + start;
      u64* y = x + len;
      for (std::size_t j = 0; j < len; ++j) {
        const u64 u = csub(x[j], q2);
        const u64 v = mul_shoup_lazy(y[j], w, ws, q);
        x[j] = u + v;
        y[j] = u - v + q2;
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) a[i] = csub(csub(a[i], q2), q);
}

void inverse(const Tables& t, u64* a) {
  const u64 q = t.q, q2 = 2 * q;
  const std::size_t n = t.n;
  std::size_t m = n;
  for (std::size_t len = 1; len < n / 2; len <<= 1) {
    for (std::size_t start = 0; start < n; start += 2 * len) {
      --m;
      const u64 w = t.inv[m], ws = t.inv_shoup[m];
      u64* x = a + start;
      u64* y = x + len;
      for (std::size_t j = 0; j < len; ++j) {
        const u64 u = x[j], v = y[j];
        x[j] = csub(u + v, q2);
        y[j] = mul_shoup_lazy(u - v + q2, w, ws, q);
      }
    }
  }
  // Last stage (m = 1) with 1/n folded in.
  const std::size_t h = n / 2;
  const u64 w = t.inv[1], ws = t.inv_shoup[1];
  for (std::size_t j = 0; j < h; ++j) {
    const u64 u = a[j], v = a[j + h];
    a[j] = csub(mul_shoup_lazy(u + v, t.n_inv, t.n_inv_shoup, q), q);
    a[j + h] = csub(mul_shoup_lazy(u - v + q2, w, ws, q), q);
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

const Kernels kPortable{"portable", forward, inverse, pointwise, nullptr, 62};

}  // namespace

const Kernels& portable_kernels() { return kPortable; }

}  // namespace tempo::ntt::detail
