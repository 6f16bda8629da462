// Slow, obviously-correct references for the NTT tests (no shared code with the library).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace ntt_test {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

inline u64 mulmod(u64 a, u64 b, u64 q) { return static_cast<u64>(static_cast<u128>(a) * b % q); }
inline u64 powmod(u64 b, u64 e, u64 q) {
  u64 r = 1;
  for (; e; e >>= 1, b = mulmod(b, b, q))
    if (e & 1) r = mulmod(r, b, q);
  return r;
}

struct Rng {  // splitmix64: deterministic across platforms
  u64 s;
  explicit Rng(u64 seed) : s(seed) {}
  u64 next() {
    u64 z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  u64 below(u64 q) { return static_cast<u64>(static_cast<u128>(next()) * q >> 64); }
};

inline std::vector<u64> random_poly(Rng& r, std::size_t n, u64 q) {
  std::vector<u64> a(n);
  for (auto& x : a) x = r.below(q);
  return a;
}

// Coefficient k of a*b mod (X^n + 1, q), O(n).
inline u64 negacyclic_coeff(const std::vector<u64>& a, const std::vector<u64>& b, std::size_t k, u64 q) {
  const std::size_t n = a.size();
  u128 pos = 0, neg = 0;  // sums of up to n products < 2^124 would overflow: reduce as we go
  u64 p = 0, m = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i <= k) {
      pos = static_cast<u128>(a[i]) * b[k - i] + p;
      p = static_cast<u64>(pos % q);
    } else {
      neg = static_cast<u128>(a[i]) * b[n + k - i] + m;
      m = static_cast<u64>(neg % q);
    }
  }
  return (p + q - m) % q;
}

inline std::vector<u64> negacyclic(const std::vector<u64>& a, const std::vector<u64>& b, u64 q) {
  std::vector<u64> c(a.size());
  for (std::size_t k = 0; k < a.size(); ++k) c[k] = negacyclic_coeff(a, b, k, q);
  return c;
}

inline std::size_t brv(std::size_t x, unsigned bits) {
  std::size_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((x >> i) & 1) << (bits - 1 - i);
  return r;
}

// forward(a)[i] by definition: a evaluated at psi^(2*brv(i)+1), Horner, O(n).
inline u64 ntt_coeff(const std::vector<u64>& a, std::size_t i, u64 q, u64 psi) {
  unsigned bits = 0;
  while ((std::size_t{1} << bits) < a.size()) ++bits;
  const u64 x = powmod(psi, 2 * brv(i, bits) + 1, q);
  u64 acc = 0;
  for (std::size_t j = a.size(); j-- > 0;) acc = (mulmod(acc, x, q) + a[j]) % q;
  return acc;
}

// Size of the sweeps: TEMPO_NTT_SWEEP=N multiplies the seeds per case (default 1).
inline int sweep() {
  const char* e = std::getenv("TEMPO_NTT_SWEEP");
  const int v = e ? std::atoi(e) : 1;
  return v > 0 ? v : 1;
}

}  // namespace ntt_test
