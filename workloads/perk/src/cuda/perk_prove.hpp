// The device side of the proof after the VOLE commitment: VOLEHash over GF(2^lambda) and
// GF(2^64) (forest.cpp vole_hash), the tower field GF(2^11)[Y]/f(Y) (field.hpp) and the PKP
// prover (pkp.cpp Pkp::prove) split into per-row and per-signature steps. Same polynomials
// over the same fields as the CPU code, so the same bytes. Constant time: carry-less products
// by masks, no tables, no branch on data. Compiled for the device and the host (the tests).
#pragma once

#include <tempo/voleith/detail/aes_planes.hpp>
#include <tempo/voleith/detail/clmul_device.hpp>

namespace tempo::perk::dev {

using tempo::voleith::dev::load_le64;
using tempo::voleith::dev::store_le64;
using tempo::voleith::dev::u32;
using tempo::voleith::dev::u64;
using tempo::voleith::dev::u8;
using u16 = std::uint16_t;

// Bits [first, first + n) of a little-endian bit string (n <= 32).
TEMPO_VOLEITH_HD u32 read_bits(const u8* p, u32 first, u32 n) {
  u64 w = 0;
  for (u32 i = 0; i < (first % 8 + n + 7) / 8; ++i) w |= u64(p[first / 8 + i]) << (8 * i);
  return u32((w >> (first % 8)) & ((u64(1) << n) - 1));
}

// ---- GF(2^64) and GF(2^lambda) (field.hpp) on clmul_device.hpp's carry-less products ------
using tempo::voleith::dev::clmul64;

TEMPO_VOLEITH_HD u64 gf64_mul(u64 a, u64 b) {
  u64 lo, hi;
  clmul64(a, b, lo, hi);
  const u64 t = hi ^ (hi >> 60) ^ (hi >> 61) ^ (hi >> 63);
  return lo ^ t ^ (t << 1) ^ (t << 3) ^ (t << 4);
}
// out = a * b in GF(2^(64 n)), n = 2, 3, 4; out may alias a or b.
TEMPO_VOLEITH_HD void gf_lambda_mul(u32 n, u64* out, const u64* a, const u64* b) {
  u64 c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (u32 i = 0; i < n; ++i)
    for (u32 j = 0; j < n; ++j) {
      u64 lo, hi;
      clmul64(a[i], b[j], lo, hi);
      c[i + j] ^= lo;
      c[i + j + 1] ^= hi;
    }
  const bool big = n == 4;  // x^256 + x^10 + x^5 + x^2 + 1; else x^(64n) + x^7 + x^2 + x + 1
  for (u32 k = 2 * n - 1; k >= n; --k) {
    const u64 v = c[k];
    if (big) {
      c[k - n] ^= (v << 10) ^ (v << 5) ^ (v << 2) ^ v;
      c[k - n + 1] ^= (v >> 54) ^ (v >> 59) ^ (v >> 62);
    } else {
      c[k - n] ^= (v << 7) ^ (v << 2) ^ (v << 1) ^ v;
      c[k - n + 1] ^= (v >> 57) ^ (v >> 62) ^ (v >> 63);
    }
  }
  for (u32 i = 0; i < n; ++i) out[i] = c[i];
}

// What VOLEHash and the PKP steps know about a parameter set.
struct ProofShape {
  u32 lb, n, m, d, ext, w0;  // w0 = l_vhm(): the witness rows' first bit
  u32 l, l_bar, l_prime, rho;
  TEMPO_VOLEITH_HD u32 vhb() const { return lb + 2; }  // vole_hash_bytes()
  TEMPO_VOLEITH_HD u32 lrow() const { return d + 6; }
  TEMPO_VOLEITH_HD u32 checks() const { return d == 3 ? 6 : 7; }
  TEMPO_VOLEITH_HD u32 alphas() const { return n + checks() * n + m; }
};

// VOLEHash(ch1, x) (forest.cpp vole_hash): vhb() bytes to out.
TEMPO_VOLEITH_HD void vole_hash(const ProofShape& s, const u8* ch1, const u8* x, u8* out) {
  const u32 lb = s.lb, nw = lb / 8, lam = 8 * lb;
  const u8* x1 = x;
  const u8* x0 = x + (lam + 16) / 8;
  const u32 bits0 = s.l + s.l_bar;
  const u32 len = (bits0 + lam - 1) / lam;
  u64 h0[4] = {0, 0, 0, 0}, sv[4] = {0, 0, 0, 0}, rs[4] = {0, 0, 0, 0}, te[4] = {0, 0, 0, 0};
  // h0: the last chunk truncated to (l mod lambda) bits, then Horner in s.
  {
    const u32 keep = s.l % lam == 0 ? lb : (s.l % lam) / 8;
    const u8* last = x0 + u64(len - 1) * lb;
    for (u32 w = 0; w < nw; ++w) {
      u64 v = 0;
      for (u32 b = 0; b < 8; ++b) v |= u64(8 * w + b < keep ? last[8 * w + b] : 0) << (8 * b);
      h0[w] = v;
    }
  }
  for (u32 w = 0; w < nw; ++w) sv[w] = rs[w] = load_le64(ch1 + 4 * lb + 8 * w);
  for (u32 i = 1; i < len; ++i) {
    for (u32 w = 0; w < nw; ++w) te[w] = load_le64(x0 + u64(len - 1 - i) * lb + 8 * w);
    gf_lambda_mul(nw, te, rs, te);
    for (u32 w = 0; w < nw; ++w) h0[w] ^= te[w];
    gf_lambda_mul(nw, rs, rs, sv);
  }
  // h1: 64-bit words from the end, the last chunk truncated to ((l + l_bar) mod lambda) bits.
  const u32 keep1 = bits0 % lam == 0 ? lb : (bits0 % lam) / 8;
  const u8* last = x0 + u64(len - 1) * lb;
  const u64 t = load_le64(ch1 + 5 * lb);
  u64 h1 = 0, rt = 1;
  u32 i = 0;
  for (; i < lb; i += 8) {
    const u32 at = lb - i - 8;
    u64 v = 0;
    for (u32 b = 0; b < 8; ++b) v |= u64(at + b < keep1 ? last[at + b] : 0) << (8 * b);
    h1 ^= gf64_mul(v, rt);
    rt = gf64_mul(rt, t);
  }
  for (; i < len * lb; i += 8) {
    h1 ^= gf64_mul(load_le64(x0 + (u64(len) * lb - i - 8)), rt);
    rt = gf64_mul(rt, t);
  }
  u64 h1p[4] = {h1, 0, 0, 0}, r[4] = {0, 0, 0, 0}, a[4] = {0, 0, 0, 0}, h2[4] = {0, 0, 0, 0}, h3[4] = {0, 0, 0, 0};
  for (u32 w = 0; w < nw; ++w) r[w] = load_le64(ch1 + 8 * w);
  gf_lambda_mul(nw, a, r, h0);
  for (u32 w = 0; w < nw; ++w) r[w] = load_le64(ch1 + lb + 8 * w);
  gf_lambda_mul(nw, h2, r, h1p);
  for (u32 w = 0; w < nw; ++w) h2[w] ^= a[w];
  for (u32 w = 0; w < nw; ++w) r[w] = load_le64(ch1 + 2 * lb + 8 * w);
  gf_lambda_mul(nw, a, r, h0);
  for (u32 w = 0; w < nw; ++w) r[w] = load_le64(ch1 + 3 * lb + 8 * w);
  gf_lambda_mul(nw, h3, r, h1p);
  for (u32 w = 0; w < nw; ++w) h3[w] ^= a[w];
  for (u32 w = 0; w < nw; ++w) store_le64(out + 8 * w, h2[w]);
  out[lb] = u8(h3[0]);
  out[lb + 1] = u8(h3[0] >> 8);
  for (u32 b = 0; b < s.vhb(); ++b) out[b] ^= x1[b];
}

// ---- the tower field (field.hpp) ----------------------------------------------------------
TEMPO_VOLEITH_HD u32 gf11_clmul(u32 a, u32 b) {
  u32 r = 0;
  TEMPO_VOLEITH_UNROLL
  for (u32 t = 0; t < 11; ++t) r ^= (a << t) & (0u - ((b >> t) & 1u));
  return r;
}
TEMPO_VOLEITH_HD u16 gf11_reduce(u32 x) {
  TEMPO_VOLEITH_UNROLL
  for (int i = 0; i < 2; ++i) {
    const u32 hi = x >> 11;
    x = (x & 0x7FFu) ^ hi ^ (hi << 2);
  }
  return u16(x);
}

template <u32 E>
struct Tower {
  u16 c[E];
};

// f(Y) = Y^E + (low terms): Y^12 + Y^3 + 1, Y^18 + Y^7 + 1, Y^24 + Y^17 + Y^11 + Y + 1.
template <u32 E>
TEMPO_VOLEITH_HD void tower_reduce(u32 (&acc)[2 * E - 1], Tower<E>& out) {
  for (u32 k = 2 * E - 2; k >= E; --k) {
    const u32 v = acc[k];
    acc[k - E] ^= v;
    if constexpr (E == 12) acc[k - E + 3] ^= v;
    if constexpr (E == 18) acc[k - E + 7] ^= v;
    if constexpr (E == 24) {
      acc[k - E + 1] ^= v;
      acc[k - E + 11] ^= v;
      acc[k - E + 17] ^= v;
    }
  }
  TEMPO_VOLEITH_UNROLL
  for (u32 i = 0; i < E; ++i) out.c[i] = gf11_reduce(acc[i]);
}

template <u32 E>
TEMPO_VOLEITH_HD Tower<E> tmul(const Tower<E>& a, const Tower<E>& b) {
  u32 acc[2 * E - 1];
  TEMPO_VOLEITH_UNROLL
  for (u32 k = 0; k < 2 * E - 1; ++k) acc[k] = 0;
  TEMPO_VOLEITH_UNROLL
  for (u32 j = 0; j < E; ++j) {  // unrolled: acc stays in registers
    const u32 bj = b.c[j];
    TEMPO_VOLEITH_UNROLL
    for (u32 t = 0; t < 11; ++t) {
      const u32 mask = 0u - ((bj >> t) & 1u);
      TEMPO_VOLEITH_UNROLL
      for (u32 i = 0; i < E; ++i) acc[i + j] ^= (u32(a.c[i]) << t) & mask;
    }
  }
  Tower<E> r;
  tower_reduce<E>(acc, r);
  return r;
}
template <u32 E>
TEMPO_VOLEITH_HD void tadd(Tower<E>& a, const Tower<E>& b) {
  TEMPO_VOLEITH_UNROLL
  for (u32 i = 0; i < E; ++i) a.c[i] ^= b.c[i];
}
template <u32 E>
TEMPO_VOLEITH_HD Tower<E> tmask(const Tower<E>& a, u16 m) {
  Tower<E> r;
  TEMPO_VOLEITH_UNROLL
  for (u32 i = 0; i < E; ++i) r.c[i] = a.c[i] & m;
  return r;
}
template <u32 E>
TEMPO_VOLEITH_HD Tower<E> tzero() {
  Tower<E> r;
  TEMPO_VOLEITH_UNROLL
  for (u32 i = 0; i < E; ++i) r.c[i] = 0;
  return r;
}
TEMPO_VOLEITH_HD u16 mask16(u32 bit) { return u16(0u - bit); }
TEMPO_VOLEITH_HD u32 vbit(const u8* row, u32 idx) { return (row[idx / 8] >> (idx % 8)) & 1u; }

// The tower element at position idx of the rho VOLE rows (rows, vb bytes apart): bit j of
// coefficient i from row 11 i + j (pkp.cpp at).
template <u32 E>
TEMPO_VOLEITH_HD Tower<E> at(const u8* rows, u32 vb, u32 idx) {
  Tower<E> r;
  for (u32 i = 0; i < E; ++i) {
    u32 c = 0;
    for (u32 j = 0; j < 11; ++j) c |= vbit(rows + u64(11 * i + j) * vb, idx) << j;
    r.c[i] = u16(c);
  }
  return r;
}
// rho consecutive bits of u from idx (pkp.cpp u_at).
template <u32 E>
TEMPO_VOLEITH_HD Tower<E> u_at(const u8* u, u32 idx) {
  Tower<E> r;
  for (u32 i = 0; i < E; ++i) {
    u32 c = 0;
    for (u32 j = 0; j < 11; ++j) c |= vbit(u, idx + 11 * i + j) << j;
    r.c[i] = u16(c);
  }
  return r;
}
// The rho positions from idx weighted by x^j Y^i of position 11 i + j (pkp.cpp cz_at): bit
// j' of coefficient e of position q is bit q of row 11 e + j', so row 11 e + j' adds its bits
// [idx + 11 i, idx + 11 i + 11) shifted by j' to coefficient i + e. Row by row: each row's
// bits are read once.
template <u32 E>
TEMPO_VOLEITH_HD Tower<E> cz_at(const u8* rows, u32 vb, u32 idx) {
  u32 acc[2 * E - 1];
  for (u32 k = 0; k < 2 * E - 1; ++k) acc[k] = 0;
  for (u32 e = 0; e < E; ++e)
    for (u32 jp = 0; jp < 11; ++jp) {
      const u8* row = rows + u64(11 * e + jp) * vb;
      for (u32 i = 0; i < E; ++i) {
        const u32 first = idx + 11 * i;
        u32 w = 0;  // bits [first, first + 11) of the row
        for (u32 b = 0; b < 3; ++b) w |= u32(row[first / 8 + b]) << (8 * b);
        acc[i + e] ^= ((w >> (first % 8)) & 0x7FFu) << jp;
      }
    }
  Tower<E> r;
  tower_reduce<E>(acc, r);
  return r;
}

// b X^G + c[G-1] X^(G-1) + ... + c[0], b a bit (pkp.cpp Sh).
template <u32 E, u32 G>
struct Sh {
  u16 b;
  Tower<E> c[G];
};
template <u32 E, u32 G>
TEMPO_VOLEITH_HD Sh<E, G> sh_zero() {
  Sh<E, G> r;
  r.b = 0;
  for (u32 k = 0; k < G; ++k) r.c[k] = tzero<E>();
  return r;
}
template <u32 E, u32 G>
TEMPO_VOLEITH_HD void sh_add(Sh<E, G>& a, const Sh<E, G>& b) {
  a.b ^= b.b;
  for (u32 k = 0; k < G; ++k) tadd(a.c[k], b.c[k]);
}
// s * (f.b X + f.c[0]): G tower products.
template <u32 E, u32 G>
TEMPO_VOLEITH_HD Sh<E, G + 1> mul1(const Sh<E, G>& s, const Sh<E, 1>& f) {
  Sh<E, G + 1> r;
  const u16 mb = mask16(f.b);
  r.b = s.b & f.b;
  r.c[G] = tmask(f.c[0], mask16(s.b));
  tadd(r.c[G], tmask(s.c[G - 1], mb));
  for (u32 k = G - 1; k >= 1; --k) {
    r.c[k] = tmul(s.c[k], f.c[0]);
    tadd(r.c[k], tmask(s.c[k - 1], mb));
  }
  r.c[0] = tmul(s.c[0], f.c[0]);
  return r;
}
template <u32 E, u32 G>
TEMPO_VOLEITH_HD Sh<E, G + 1> times_x(const Sh<E, G>& s) {
  Sh<E, G + 1> r;
  r.b = s.b;
  r.c[0] = tzero<E>();
  for (u32 k = 0; k < G; ++k) r.c[k + 1] = s.c[k];
  return r;
}

// One witness row's share of the proof, stored as u16: col (b, then D coefficients) and the
// checks' pairs (b, then 2 coefficients each).
template <u32 E, u32 D>
struct PkpRow {
  static constexpr u32 checks = D == 3 ? 6 : 7;
  static constexpr u32 words = 1 + D * E + checks * (1 + 2 * E);
};

// A row's witness digits (pkp.cpp prove, v2.1.0's zero permutation: every position 0) as
// the bits w'_(kk,j) (bit 3 kk + j; D = 4: the fourth digit's at bit 9).
template <u32 D>
TEMPO_VOLEITH_HD u32 pkp_witness_bits() {
  const u32 pos = 0;  // sign.cpp: v2.1.0 proves with the zero permutation
  const u32 digit[4] = {pos & 3u, (pos >> 2) & 3u, (pos >> 4) & 3u, (pos >> 6) & 1u};
  u32 wbits = 0;
  for (u32 kk = 0; kk < 3; ++kk) wbits |= ((1u << digit[kk]) & 7u) << (3 * kk);
  if (D == 4) wbits |= ((1u << digit[3]) & 1u) << 9;
  return wbits;
}

// EmbedWitness for row i: beta[kk][j] = w'_(kk,j) X + v, the fourth of each block X + the
// sum of three; returns the witness bits.
template <u32 E, u32 D>
TEMPO_VOLEITH_HD u32 pkp_betas(const ProofShape& s, const u8* v, u32 vb, u32 i, Sh<E, 1> (&beta)[4][4]) {
  const u32 base = s.w0 + i * s.lrow();
  const u32 wbits = pkp_witness_bits<D>();
  for (u32 kk = 0; kk < 3; ++kk) {
    Sh<E, 1> sum;
    sum.b = 1;
    sum.c[0] = tzero<E>();
    for (u32 j = 0; j < 3; ++j) {
      beta[kk][j].b = u16((wbits >> (3 * kk + j)) & 1u);
      beta[kk][j].c[0] = at<E>(v, vb, base + 3 * kk + j);
      sh_add(sum, beta[kk][j]);
    }
    beta[kk][3] = sum;
  }
  if constexpr (D == 4) {
    beta[3][0].b = u16((wbits >> 9) & 1u);
    beta[3][0].c[0] = at<E>(v, vb, base + 9);
    beta[3][1] = beta[3][0];
    beta[3][1].b ^= 1;
  }
  return wbits;
}

// The sum of the first `low` entries z[d0 + 4 d1 + 16 d2] = b0[d0] b1[d1] b2[d2] of the
// TensorProduct of a row's first three blocks (pkp.cpp adds them one by one). Each block sums
// to X (its fourth value is X plus the other three) and the products are linear in each
// factor, so with the prefix sums P_k(l) = b_k[0] + .. + b_k[l - 1] and low = l0 + 4 l1 + 16 l2
// the sum is X^2 P_2(l2) + X P_1(l1) b2[l2] + P_0(l0) b1[l1] b2[l2] (X^3 for all 64): at most
// four tower products instead of 80. `low` is public (n).
template <u32 E>
TEMPO_VOLEITH_HD Sh<E, 3> tensor_prefix_sum(const Sh<E, 1> (&beta)[4][4], u32 low) {
  Sh<E, 3> sum = sh_zero<E, 3>();
  if (low >= 64) {
    sum.b = 1;  // X^3
    return sum;
  }
  const u32 l0 = low % 4, l1 = low / 4 % 4, l2 = low / 16;
  auto prefix = [&](u32 k, u32 l) {
    Sh<E, 1> p = sh_zero<E, 1>();
    for (u32 x = 0; x < l; ++x) sh_add(p, beta[k][x]);
    return p;
  };
  if (l2 > 0) sum = times_x(times_x(prefix(2, l2)));
  if (l1 > 0) sh_add(sum, times_x(mul1(prefix(1, l1), beta[2][l2])));
  if (l0 > 0) sh_add(sum, mul1(mul1(prefix(0, l0), beta[1][l1]), beta[2][l2]));
  return sum;
}

// Row i of the prover: returns t[i] and writes the row's 1 + D E + checks (1 + 2 E) words to
// `row`: col (b, then D coefficients: the row's TensorProduct summed over its n positions,
// minus one), then the Check-ElementaryVector pairs (b, then 2 coefficients each).
template <u32 E, u32 D>
TEMPO_VOLEITH_HD u16 pkp_row(const ProofShape& s, const u8* u, const u8* v, u32 vb, u32 i, u16* row) {
  Sh<E, 1> beta[4][4];
  const u32 wbits = pkp_betas<E, D>(s, v, vb, i, beta);
  const u32 base = s.w0 + i * s.lrow();
  u32 ubits = 0;
  for (u32 j = 0; j < s.lrow(); ++j) ubits |= vbit(u, base + j) << j;
  u16* ec = row + 1 + D * E;
  auto put_check = [&](u32 q, const Sh<E, 2>& z) {
    u16* o = ec + q * (1 + 2 * E);
    o[0] = z.b;
    for (u32 k = 0; k < 2; ++k)
      for (u32 e = 0; e < E; ++e) o[1 + k * E + e] = z.c[k].c[e];
  };
  for (u32 kk = 0; kk < 3; ++kk) {
    put_check(2 * kk, mul1(beta[kk][0], beta[kk][1]));
    put_check(2 * kk + 1, mul1(beta[kk][2], beta[kk][3]));
  }
  if constexpr (D == 4) put_check(6, mul1(beta[3][0], beta[3][1]));
  Sh<E, D> rowsum;
  if constexpr (D == 3) {
    rowsum = tensor_prefix_sum<E>(beta, s.n);
  } else {
    // z[j] for j < 64 times beta[3][0], plus z[j] for j < n - 64 times beta[3][1] =
    // X + beta[3][0]: X^3 beta[3][0] + below (X + beta[3][0]).
    const Sh<E, 3> below = tensor_prefix_sum<E>(beta, s.n - 64);
    rowsum = times_x(times_x(times_x(beta[3][0])));
    sh_add(rowsum, times_x(below));
    sh_add(rowsum, mul1(below, beta[3][0]));
  }
  rowsum.b ^= 1;
  row[0] = rowsum.b;
  for (u32 k = 0; k < D; ++k)
    for (u32 e = 0; e < E; ++e) row[1 + k * E + e] = rowsum.c[k].c[e];
  return u16(wbits ^ ubits);
}

// Row i's share of f (pkp.cpp prove after ch2): X^d's coefficient, then X^0 .. X^(d-1)'s,
// (D + 1) E words to `f`. alphas: the challenge's bit string, 11 bits per coefficient.
template <u32 E, u32 D>
TEMPO_VOLEITH_HD void pkp_mix(const ProofShape& s, const u16* row, const u8* alphas, u32 i, u16* f) {
  constexpr u32 C = PkpRow<E, D>::checks;
  auto alpha = [&](u32 q) {
    Tower<E> a;
    for (u32 e = 0; e < E; ++e) a.c[e] = u16(read_bits(alphas, 11 * (q * E + e), 11));
    return a;
  };
  auto coef = [&](const u16* p) {
    Tower<E> a;
    for (u32 e = 0; e < E; ++e) a.c[e] = p[e];
    return a;
  };
  Tower<E> ftop = tzero<E>(), fc[D];
  for (u32 k = 0; k < D; ++k) fc[k] = tzero<E>();
  const Tower<E> ai = alpha(i);
  tadd(ftop, tmask(ai, mask16(row[0])));
  for (u32 k = 0; k < D; ++k) tadd(fc[k], tmul(coef(row + 1 + k * E), ai));
  for (u32 q = 0; q < C; ++q) {
    const u16* ec = row + 1 + D * E + q * (1 + 2 * E);
    const Tower<E> a = alpha(s.n + i * C + q);
    tadd(ftop, tmask(a, mask16(ec[0])));
    tadd(fc[D - 1], tmul(coef(ec + 1 + E), a));
    tadd(fc[D - 2], tmul(coef(ec + 1), a));
  }
  for (u32 e = 0; e < E; ++e) f[e] = ftop.c[e];
  for (u32 k = 0; k < D; ++k)
    for (u32 e = 0; e < E; ++e) f[(k + 1) * E + e] = fc[k].c[e];
}

// a = the rows' shares summed, plus CheckZero's mask sum_i (u_i X + v_i) X^i over the d - 1
// mask blocks: (D + 1) E words.
template <u32 E, u32 D>
TEMPO_VOLEITH_HD void pkp_final(const ProofShape& s, const u16* shares, const u8* u, const u8* v, u32 vb, u16* a) {
  for (u32 q = 0; q < (D + 1) * E; ++q) {
    u16 x = 0;
    for (u32 i = 0; i < s.n; ++i) x ^= shares[u64(i) * (D + 1) * E + q];
    a[q] = x;
  }
  for (u32 i = 0; i + 1 < D; ++i) {
    const u32 idx = s.l_prime + i * s.rho;
    const Tower<E> cz = cz_at<E>(v, vb, idx), ua = u_at<E>(u, idx);
    for (u32 e = 0; e < E; ++e) {
      a[(i + 1) * E + e] ^= cz.c[e];
      a[(i + 2) * E + e] ^= ua.c[e];
    }
  }
}

}  // namespace tempo::perk::dev
