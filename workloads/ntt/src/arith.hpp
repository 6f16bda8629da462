// Scalar modular arithmetic for q < 2^62: exact helpers for table construction and the
// Shoup/Barrett forms the kernels use. Everything branch-free on values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tempo/secure_zero.hpp>

namespace tempo::ntt::detail {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

inline u64 mul_mod_slow(u64 a, u64 b, u64 q) { return static_cast<u64>(static_cast<u128>(a) * b % q); }

inline u64 pow_mod(u64 base, u64 e, u64 q) {
  u64 r = 1 % q;
  base %= q;
  while (e) {
    if (e & 1) r = mul_mod_slow(r, base, q);
    base = mul_mod_slow(base, base, q);
    e >>= 1;
  }
  return r;
}

// Deterministic Miller-Rabin: these 12 bases are exact below 3.3e24 (Sorenson & Webster 2015).
bool is_prime(u64 n);

// Shoup companion of a constant w < q: floor(w * 2^64 / q).
inline u64 shoup(u64 w, u64 q) { return static_cast<u64>((static_cast<u128>(w) << 64) / q); }

// Branch-free "x >= m ? x - m : x" for x < 2m.
inline u64 csub(u64 x, u64 m) {
  const u64 y = x - m;
  const u64 mask = static_cast<u64>(0) - (y >> 63);  // all ones when x < m (m < 2^63)
  return y + (m & mask);
}

// w*y mod q up to one q: result in [0, 2q), for any y < 2^64, w < q, ws = shoup(w, q).
inline u64 mul_shoup_lazy(u64 y, u64 w, u64 ws, u64 q) {
  const u64 hi = static_cast<u64>((static_cast<u128>(ws) * y) >> 64);
  return w * y - hi * q;  // wraps mod 2^64; the true value lies in [0, 2q)
}

// Barrett for products of two residues: x < q^2, q < 2^62.
// k = bit width of q, mu = floor(2^(2k) / q) < 2^(k+1). Error of the quotient at most 2.
struct Barrett {
  u64 q = 0, mu = 0;
  unsigned k = 0;
  Barrett() = default;
  explicit Barrett(u64 modulus) : q(modulus) {
    k = 64u - static_cast<unsigned>(__builtin_clzll(modulus));
    mu = static_cast<u64>((static_cast<u128>(1) << (2 * k)) / modulus);
  }
  u64 reduce(u128 x) const {
    const u64 top = static_cast<u64>(x >> (k - 1));
    const u64 qhat = static_cast<u64>((static_cast<u128>(top) * mu) >> (k + 1));
    u64 r = static_cast<u64>(x) - qhat * q;  // true value < 3q < 2^64
    r = csub(r, 2 * q);
    return csub(r, q);
  }
  u64 mul(u64 a, u64 b) const { return reduce(static_cast<u128>(a) * b); }
};

// Zeroes scratch that held a (possibly secret) polynomial.
inline void wipe(u64* p, std::size_t n) { tempo::secure_zero(p, n * sizeof(u64)); }

}  // namespace tempo::ntt::detail
