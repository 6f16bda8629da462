// Key generation (keygen.c, permutation.c): H in RREF from H_seed, a random element x' of its
// right kernel from the kernel seed, a random permutation pi from perm_seed, x = x' o pi.
// Constant time in the secrets: the permutation comes from ranks (all-pairs comparisons) and is
// applied by masked selection, as a sorting network would (the package sorts with djbsort).
#include <cstring>

#include <tempo/secure_zero.hpp>

#include "core.hpp"
#include "field.hpp"
#include "sponge.hpp"

namespace tempo::perk::detail {

ExpandedKey::~ExpandedKey() {
  secure_zero(perm);
  secure_zero(sk);
}

namespace {
// count 11-bit values from SHAKE(seed || domain) (the buffer rounded up to 64-bit words).
std::vector<std::uint16_t> read11(const ParamSet& p, const std::uint8_t* seed, std::uint8_t domain, std::size_t count) {
  const std::size_t bytes = (count * q_bits + 63) / 64 * 8;
  std::vector<std::uint8_t> buf(bytes);
  Sponge g = Sponge::prg(p);
  g.absorb(seed, p.seed_bytes());
  g.finalize(domain);
  g.squeeze(buf.data(), bytes);
  std::vector<std::uint16_t> out(count);
  BitReader r{buf.data()};
  for (auto& v : out) v = static_cast<std::uint16_t>(r.read(q_bits));
  secure_zero(buf);
  return out;
}
inline std::uint32_t ct_lt(std::uint32_t a, std::uint32_t b) { return (a - b) >> 31; }  // a, b < 2^31
inline std::uint32_t ct_eq(std::uint32_t a, std::uint32_t b) { return ((a ^ b) - 1u) >> 31; }  // a, b < 2^31
}  // namespace

std::vector<std::uint16_t> matrix_h(const ParamSet& p, const std::uint8_t* h_seed) {
  const unsigned n = p.n, m = p.m;
  const auto r = read11(p, h_seed, dom_h0_0, std::size_t{m} * (n - m));
  std::vector<std::uint16_t> h(std::size_t{m} * n, 0);
  for (unsigned i = 0; i < m; ++i) {
    h[std::size_t{i} * n + i] = 1;
    for (unsigned j = m; j < n; ++j) h[std::size_t{i} * n + j] = r[std::size_t{i} * (n - m) + (j - m)];
  }
  return h;
}

void expand_key(const ParamSet& p, const std::uint8_t* seed, ExpandedKey& out) {
  const unsigned n = p.n, m = p.m, lb = p.lambda_bytes;
  const std::uint8_t* h_seed = seed;
  const std::uint8_t* perm_seed = seed + lb;
  const std::uint8_t* kernel_seed = seed + 2 * lb;
  out.h = matrix_h(p, h_seed);
  // x' = sum_i coeff_i * basis_i, basis_i = (H[0..m-1][m + i], e_(m+i)) (sig_perk_sample_kernel_element).
  std::vector<std::uint16_t> coeff = read11(p, kernel_seed, dom_h0_1, n - m);
  std::vector<std::uint16_t> xk(n, 0);
  for (unsigned i = 0; i < n - m; ++i) {
    xk[m + i] = coeff[i];
    for (unsigned j = 0; j < m; ++j) xk[j] ^= gf11_mul(coeff[i], out.h[std::size_t{j} * n + m + i]);
  }
  // pi: the indices ordered by n 16-bit values of SHAKE(perm_seed || H0_2), redrawn while two
  // are equal (sig_perk_perm_set_random).
  Sponge g = Sponge::prg(p);
  g.absorb(perm_seed, lb);
  g.finalize(dom_h0_2);
  std::vector<std::uint8_t> buf(2 * std::size_t{n});
  std::vector<std::uint32_t> rnd(n), rank(n);
  out.perm.assign(n, 0);
  for (;;) {
    g.squeeze(buf.data(), buf.size());
    for (unsigned i = 0; i < n; ++i) rnd[i] = get_le16(buf.data() + 2 * i);
    std::uint32_t dup = 0;
    for (unsigned i = 0; i < n; ++i) {
      std::uint32_t r = 0;
      for (unsigned j = 0; j < n; ++j) {
        r += ct_lt(rnd[j], rnd[i]);
        dup |= ct_eq(rnd[j], rnd[i]) & ct_lt(j, i);
      }
      rank[i] = r;
    }
    if (dup == 0) break;  // a redraw reveals only that a discarded draw had a collision
  }
  for (unsigned r = 0; r < n; ++r) {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= i & (0u - ct_eq(rank[i], r));
    out.perm[r] = static_cast<std::uint8_t>(v);
  }
  out.x.assign(n, 0);
  for (unsigned j = 0; j < n; ++j) {
    std::uint32_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= xk[i] & (0u - ct_eq(out.perm[j], i));
    out.x[j] = static_cast<std::uint16_t>(v);
  }
  // pk = H_seed || x (11 bits each); sk = perm_seed || pk.
  out.pk.assign(p.pk_bytes(), 0);
  std::memcpy(out.pk.data(), h_seed, lb);
  BitWriter w{out.pk.data() + lb};
  for (unsigned j = 0; j < n; ++j) w.write(out.x[j], q_bits);
  out.sk.assign(p.sk_bytes(), 0);
  std::memcpy(out.sk.data(), perm_seed, lb);
  std::memcpy(out.sk.data() + lb, out.pk.data(), p.pk_bytes());
  secure_zero(coeff);
  secure_zero(xk);
  secure_zero(buf);
  secure_zero(rnd);
  secure_zero(rank);
}

}  // namespace tempo::perk::detail
