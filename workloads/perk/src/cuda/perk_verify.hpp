// The GPU batch path's verifier for PERK's 18 sets (sign.cpp verify_core after the
// parsing): the partial GGM forest from the opening, the leaf commitments, ConvertToVOLE on
// the verifier's side (q = the rows of the leaves permuted by Delta, plus Delta_i c_(e-1)), the
// commitments' hash, the first challenge, the VOLE hashes, the second and third challenges
// and the PKP verifier (pkp.cpp verify). The host parses the signature, rejects what the CPU
// rejects before any hashing (padding bits, an opening over t_open seeds or with nonzero unused
// seeds) and computes mu and the challenge's hidden leaves; the device gives one byte per
// signature. Same functions as the signer (perk_device.hpp, perk_prove.hpp), same kernels'
// decomposition; shared by the kernels and the host emulation (the tests, VerifyStageOp::cpu).
//
// Stages of one chunk (threads = items below):
//   place           thread per signature: the opening's seeds into the tree
//   expand (level)  thread per (signature, node of the level): the node's children when an
//                   opened node is the node or one of its ancestors
//   leaves          the signer's (perk_device.hpp)
//   fix_com         thread per signature: the hidden leaves' commitments from the signature
//   hash_quarters, hash_final: the signer's
//   reduce          thread per (signature, subtree, 8-byte column word): the q rows
//   challenge1      thread per signature: ch1 = H2_1(salt, mu, h_com, c)
//   vole_hashes     the signer's, over the rho q rows
//   hash_rows       thread per signature: u_tilde added to the hashes of the rows where Delta
//                   has a one, h_V = H1(the hashes)
//   challenge2      thread per signature: ch2, the alphas, ch3' = H2_3(ch2, a, ctr) = ch3?
//   pkp_rows        thread per (signature, witness row): the row's share of q_f
//   final           thread per signature: CheckZero, and the verdict
#pragma once

#include "cuda/perk_device.hpp"

namespace tempo::perk::dev {

TEMPO_PERK_HD u32 get_le32(const u8* p) { return u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24; }
TEMPO_PERK_HD void put_le32(u8* p, u32 v) {
  for (u32 i = 0; i < 4; ++i) p[i] = u8(v >> (8 * i));
}
TEMPO_PERK_HD u64 get_bytes(const u8* p, u32 n) {
  u64 v = 0;
  for (u32 i = 0; i < n; ++i) v |= u64(p[i]) << (8 * i);
  return v;
}

// One verification's input item: the signer's layout (the root seed's bytes unused, salt, mu)
// then the parsed signature. Output: one byte per signature (1: valid).
struct VerifyLayout {
  Layout lay;  // lay.in_extra = extra_bytes(): the signer's scratch layout
  // extra: c | u_tilde | pdecom | com_e | ctr (the signature's first bytes, as signed) |
  //        t (n le16) | a ((d + 1) ext le16) | ch3 (ch3_bytes) | hidden leaves (tau le32) |
  //        their leaf numbers (tau le32) | Delta (ext le16) | opened count (le32) |
  //        opened nodes (t_open le32, sorted)
  TEMPO_PERK_HD u32 x_sig() const { return 5 * lay.s.lb; }
  TEMPO_PERK_HD u32 sig_prefix() const {
    const Shape& s = lay.s;
    return (s.tau - 1) * s.vb + s.p.vhb() + s.t_open * s.lb + s.tau * s.cb() + 8;
  }
  TEMPO_PERK_HD u32 x_u_tilde() const { return x_sig() + (lay.s.tau - 1) * lay.s.vb; }
  TEMPO_PERK_HD u32 x_pdecom() const { return x_u_tilde() + lay.s.p.vhb(); }
  TEMPO_PERK_HD u32 x_com() const { return x_pdecom() + lay.s.t_open * lay.s.lb; }
  TEMPO_PERK_HD u32 x_ctr() const { return x_com() + lay.s.tau * lay.s.cb(); }
  TEMPO_PERK_HD u32 x_t() const { return x_sig() + sig_prefix(); }
  TEMPO_PERK_HD u32 x_a() const { return x_t() + 2 * lay.s.p.n; }
  TEMPO_PERK_HD u32 x_ch3() const { return x_a() + 2 * (lay.s.p.d + 1) * lay.s.p.ext; }
  TEMPO_PERK_HD u32 x_hidden() const { return x_ch3() + lay.s.ch3_bytes; }
  TEMPO_PERK_HD u32 x_deltas() const { return x_hidden() + 4 * lay.s.tau; }
  TEMPO_PERK_HD u32 x_dtower() const { return x_deltas() + 4 * lay.s.tau; }
  TEMPO_PERK_HD u32 x_count() const { return x_dtower() + 2 * lay.s.p.ext; }
  TEMPO_PERK_HD u32 x_open() const { return x_count() + 4; }
  TEMPO_PERK_HD u32 end() const { return x_open() + 4 * lay.s.t_open; }
  // Scratch reused from the signer's: ch2 where h_com was (used before ch2 is made), the
  // third challenge's verdict where the counter was, the rows' shares of q_f where the
  // prover's rows were.
  TEMPO_PERK_HD u32 st_ch2() const { return lay.st_hcom(); }
  TEMPO_PERK_HD u32 st_ok() const { return lay.st_ctr(); }
  TEMPO_PERK_HD u32 st_qf() const { return lay.st_rows(); }
};

TEMPO_PERK_HD VerifyLayout verify_layout(const Shape& s) {
  VerifyLayout v{Layout{s, 0}};
  v.lay.in_extra = v.end() - v.x_sig();
  return v;
}

enum class VerifyStage : u32 {
  place,
  expand,
  leaves,
  fix_com,
  hash_quarters,
  hash_final,
  reduce,
  challenge1,
  vole_hashes,
  hash_rows,
  challenge2,
  pkp_rows,
  final
};

struct VerifyLaunch {
  VerifyStage stage;
  u32 first;    // expand: nodes [first, first + per_sig) of each signature
  u32 per_sig;  // threads per signature
};

template <class F>
inline void for_each_verify_stage(const VerifyLayout& v, F&& f) {
  const Shape& s = v.lay.s;
  f(VerifyLaunch{VerifyStage::place, 0, 1});
  for_each_level(s, [&](u32 first, u32 count) { f(VerifyLaunch{VerifyStage::expand, first, count}); });
  f(VerifyLaunch{VerifyStage::leaves, 0, s.leaves()});
  f(VerifyLaunch{VerifyStage::fix_com, 0, 1});
  f(VerifyLaunch{VerifyStage::hash_quarters, 0, 4});
  f(VerifyLaunch{VerifyStage::hash_final, 0, 1});
  f(VerifyLaunch{VerifyStage::reduce, 0, s.tau * (s.rs / 8)});
  f(VerifyLaunch{VerifyStage::challenge1, 0, 1});
  f(VerifyLaunch{VerifyStage::vole_hashes, 0, s.p.rho});
  f(VerifyLaunch{VerifyStage::hash_rows, 0, 1});
  f(VerifyLaunch{VerifyStage::challenge2, 0, 1});
  f(VerifyLaunch{VerifyStage::pkp_rows, 0, s.p.n});
  f(VerifyLaunch{VerifyStage::final, 0, 1});
}

template <u32 E>
TEMPO_PERK_HD Tower<E> load_tower(const u8* p) {
  Tower<E> r;
  for (u32 e = 0; e < E; ++e) r.c[e] = u16(get_le16(p + 2 * e));
  return r;
}
template <u32 E>
TEMPO_PERK_HD bool tequal(const Tower<E>& a, const Tower<E>& b) {
  u32 diff = 0;
  for (u32 e = 0; e < E; ++e) diff |= u32(a.c[e] ^ b.c[e]);
  return diff == 0;
}
// Delta^0 .. Delta^D.
template <u32 E, u32 D>
TEMPO_PERK_HD void delta_powers(const u8* dtower, Tower<E> (&dpow)[D + 1]) {
  const Tower<E> delta = load_tower<E>(dtower);
  dpow[0] = tzero<E>();
  dpow[0].c[0] = 1;
  for (u32 i = 1; i <= D; ++i) dpow[i] = tmul(dpow[i - 1], delta);
}

// The sum of the first `low` entries of the TensorProduct of a row's first three blocks of
// q (z[d0 + 4 d1 + 16 d2] = qb0[d0] qb1[d1] qb2[d2]); the prover's tensor_prefix_sum with Delta
// in place of X: each block sums to Delta. dpow: Delta^0 .. Delta^3. `low` is public (n).
template <u32 E>
TEMPO_PERK_HD Tower<E> tensor_prefix_sum(const Tower<E> (&qb)[4][4], const Tower<E>* dpow, u32 low) {
  if (low >= 64) return dpow[3];
  const u32 l0 = low % 4, l1 = low / 4 % 4, l2 = low / 16;
  auto prefix = [&](u32 k, u32 l) {
    Tower<E> p = tzero<E>();
    for (u32 x = 0; x < l; ++x) tadd(p, qb[k][x]);
    return p;
  };
  Tower<E> sum = tzero<E>();
  if (l2 > 0) tadd(sum, tmul(dpow[2], prefix(2, l2)));
  if (l1 > 0) tadd(sum, tmul(tmul(dpow[1], prefix(1, l1)), qb[2][l2]));
  if (l0 > 0) tadd(sum, tmul(tmul(prefix(0, l0), qb[1][l1]), qb[2][l2]));
  return sum;
}

// Row i's share of q_f (pkp.cpp verify, the loop body; v2.1.0's zero matrix: no x' term):
// E words to qf. The row sum's z[j] are linear in each factor, so (D = 4) sum_j z[j] =
// (sum_(j<64) q012[j]) qb3[0] + (sum_(j<n-64) q012[j]) qb3[1]: the same field element, and
// the sums over q012 are tensor_prefix_sum's.
template <u32 E, u32 D>
TEMPO_PERK_HD void pkp_verify_row(const ProofShape& s, const u8* q, u32 vb, u32 i, const u8* dtower, u32 t_i,
                                  const u8* alphas, u16* qf_out) {
  constexpr u32 C = PkpRow<E, D>::checks;
  Tower<E> dpow[D + 1];
  delta_powers<E, D>(dtower, dpow);
  const Tower<E>& delta = dpow[1];
  auto alpha = [&](u32 idx) {
    Tower<E> a;
    for (u32 e = 0; e < E; ++e) a.c[e] = u16(read_bits(alphas, 11 * (idx * E + e), 11));
    return a;
  };
  const u32 base = s.w0 + i * s.lrow();
  Tower<E> qb[4][4];
  for (u32 kk = 0; kk < 3; ++kk) {
    Tower<E> sum = tzero<E>();
    u32 bits = 1;
    for (u32 j = 0; j < 3; ++j) {
      const u32 bit = (t_i >> (3 * kk + j)) & 1u;
      const Tower<E> qr = at<E>(q, vb, base + 3 * kk + j);
      qb[kk][j] = qr;
      tadd(qb[kk][j], tmask(delta, mask16(bit)));
      tadd(sum, qr);
      bits ^= bit;
    }
    tadd(sum, tmask(delta, mask16(bits)));
    qb[kk][3] = sum;
  }
  if constexpr (D == 4) {
    const u32 bit = (t_i >> 9) & 1u;
    const Tower<E> qr = at<E>(q, vb, base + 9);
    qb[3][0] = qr;
    tadd(qb[3][0], tmask(delta, mask16(bit)));
    qb[3][1] = qr;
    tadd(qb[3][1], tmask(delta, mask16(bit ^ 1u)));
  }
  Tower<E> qf = tzero<E>();
  // Check-ElementaryVector, times Delta^(d-2).
  for (u32 kk = 0; kk < 3; ++kk) {
    tadd(qf, tmul(tmul(tmul(qb[kk][0], qb[kk][1]), dpow[D - 2]), alpha(s.n + i * C + 2 * kk)));
    tadd(qf, tmul(tmul(tmul(qb[kk][2], qb[kk][3]), dpow[D - 2]), alpha(s.n + i * C + 2 * kk + 1)));
  }
  if constexpr (D == 4) tadd(qf, tmul(tmul(tmul(qb[3][0], qb[3][1]), dpow[2]), alpha(s.n + i * C + 6)));
  // TensorProduct, summed over the row's n positions.
  Tower<E> rowsum = dpow[D];
  if constexpr (D == 3) {
    tadd(rowsum, tensor_prefix_sum<E>(qb, dpow, s.n));
  } else {
    tadd(rowsum, tmul(dpow[3], qb[3][0]));
    tadd(rowsum, tmul(tensor_prefix_sum<E>(qb, dpow, s.n - 64), qb[3][1]));
  }
  tadd(qf, tmul(rowsum, alpha(i)));
  for (u32 e = 0; e < E; ++e) qf_out[e] = qf.c[e];
}

// CheckZero: q_f + sum_i cz_i Delta^i == sum_i a_(i+1) Delta^i, and a's X^d coefficient zero.
template <u32 E, u32 D>
TEMPO_PERK_HD bool pkp_verify_final(const ProofShape& s, const u16* shares, const u8* q, u32 vb, const u8* dtower,
                                    const u8* a) {
  Tower<E> dpow[D + 1];
  delta_powers<E, D>(dtower, dpow);
  Tower<E> lhs = tzero<E>(), rhs = tzero<E>();
  for (u32 i = 0; i < s.n; ++i)
    for (u32 e = 0; e < E; ++e) lhs.c[e] ^= shares[u64(i) * E + e];
  for (u32 i = 0; i + 1 < D; ++i) tadd(lhs, tmul(cz_at<E>(q, vb, s.l_prime + i * s.rho), dpow[i]));
  for (u32 i = 0; i < D; ++i) tadd(rhs, tmul(load_tower<E>(a + 2 * E * (i + 1)), dpow[i]));
  return tequal(load_tower<E>(a), tzero<E>()) && tequal(lhs, rhs);
}

// Whether node is opened or below an opened node (the opened list sorted).
TEMPO_PERK_HD bool reached(const u8* opened, u32 count, u32 node) {
  for (;;) {
    u32 lo = 0, hi = count;
    while (lo < hi) {
      const u32 mid = (lo + hi) / 2;
      const u32 v = get_le32(opened + 4 * mid);
      if (v == node) return true;
      if (v < node)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (node == 0) return false;
    node = (node - 1) / 2;
  }
}

// Whether VOLE row `row` has Delta's bit set (row j < k_e of subtree e: bit j of its leaf).
TEMPO_PERK_HD u32 delta_bit(const Shape& s, const u8* deltas, u32 row) {
  for (u32 e = 0; e < s.tau; ++e) {
    const u32 first = s.first_row(e);
    if (row >= first && row < first + s.mu_of(e)) {
      const u32 j = row - first;
      return j < s.k_of(e) ? (get_le32(deltas + 4 * e) >> j) & 1u : 0u;
    }
  }
  return 0;
}

// One chunk: a.in / a.lay as VerifyLayout says; `result` one byte per signature. a.out is
// unused by the signer's stages that the verifier runs; it points at `result`.
TEMPO_PERK_HD void run_verify_thread(const VerifyLayout& v, const Args& a, u8* result, const VerifyLaunch& l, u64 t) {
  const Layout& lay = a.lay;
  const Shape& s = lay.s;
  const u64 sig = t / l.per_sig;
  const u32 r = u32(t % l.per_sig);
  auto signer = [&](Stage st) { run_thread(a, Launch{st, l.first, l.per_sig}, t); };
  const u8* in = a.in + sig * lay.in_stride();
  const u8* salt = in + lay.in_salt();
  u8* nodes = a.nodes + sig * lay.nodes_bytes();
  u8* com = a.com + sig * lay.com_bytes();
  u8* st = a.st + sig * lay.st_bytes();
  const u32 lb = s.lb, cb = s.cb();
  switch (l.stage) {
    case VerifyStage::place: {
      const u32 count = get_le32(in + v.x_count());
      for (u32 j = 0; j < count; ++j) {
        u8* node = nodes + u64(get_le32(in + v.x_open() + 4 * j)) * lb;
        for (u32 b = 0; b < lb; ++b) node[b] = in[v.x_pdecom() + j * lb + b];
      }
      break;
    }
    case VerifyStage::expand: {
      const u32 node = l.first + r;
      if (reached(in + v.x_open(), get_le32(in + v.x_count()), node))
        expand_node(s, salt, nodes + u64(node) * lb, node, nodes + (2 * u64(node) + 1) * lb);
      break;
    }
    case VerifyStage::leaves: signer(Stage::leaves); break;
    case VerifyStage::fix_com:
      for (u32 e = 0; e < s.tau; ++e) {
        u8* c = com + u64(get_le32(in + v.x_hidden() + 4 * e) - s.leaf_offset()) * cb;
        for (u32 b = 0; b < cb; ++b) c[b] = in[v.x_com() + e * cb + b];
      }
      break;
    case VerifyStage::hash_quarters: signer(Stage::hash_quarters); break;
    case VerifyStage::hash_final: signer(Stage::hash_final); break;
    case VerifyStage::reduce: {
      const u32 words = s.rs / 8, e = r / words, w = r % words, k = s.k_of(e);
      if (8 * w >= s.vb) break;  // past the row's end: nothing to write
      const u32 n = 8 * w + 8 <= s.vb ? 8 : s.vb - 8 * w;
      const u32 delta = get_le32(in + v.x_deltas() + 4 * e);
      u64 sum, col[max_kappa];
      column_sums(s, a.rows + sig * lay.rows_bytes(), e, w, delta, sum, col);
      // q = q' + Delta_i c_(e-1) (subtree 0 has no correction)
      const u64 c = e > 0 ? get_bytes(in + v.x_sig() + u64(e - 1) * s.vb + 8 * w, n) : 0;
      u8* q = st + lay.st_v() + u64(s.first_row(e)) * s.vb + 8 * w;
      for (u32 j = 0; j < s.mu_of(e); ++j)
        put_bytes(q + u64(j) * s.vb, j < k ? col[j] ^ (c & (0 - u64((delta >> j) & 1u))) : 0, n);
      break;
    }
    case VerifyStage::challenge1: {
      Sponge g;
      g.init(s.shake_rate, suffix_shake);
      g.absorb(salt, 2 * lb);
      g.absorb(in + lay.in_mu(), cb);
      g.absorb(st + lay.st_hcom(), cb);
      g.absorb(in + v.x_sig(), u64(s.tau - 1) * s.vb);
      g.finalize(dom_h2_1);
      g.squeeze(st + lay.st_ch1(), s.ch1_bytes());
      break;
    }
    case VerifyStage::vole_hashes: signer(Stage::vole_hashes); break;
    case VerifyStage::hash_rows: {
      u8* vh = st + lay.st_vh();
      const u8* u_tilde = in + v.x_u_tilde();
      for (u32 i = 0; i < s.p.rho; ++i) {
        const u8 m = u8(0 - delta_bit(s, in + v.x_deltas(), i));
        for (u32 b = 0; b < s.p.vhb(); ++b) vh[u64(i) * s.p.vhb() + b] ^= u8(u_tilde[b] & m);
      }
      Sponge h;
      h.init(s.sha3_rate, suffix_sha3);
      h.absorb(vh, u64(s.p.rho) * s.p.vhb());
      h.finalize(dom_h1);
      h.squeeze(st + lay.st_hv(), cb);
      break;
    }
    case VerifyStage::challenge2: {
      u8* ch2 = st + v.st_ch2();
      second_challenge(lay, st + lay.st_ch1(), in + v.x_u_tilde(), st + lay.st_hv(), in + v.x_t(), ch2,
                       st + lay.st_alphas());
      Sponge prefix;
      third_prefix(s, ch2, in + v.x_a(), prefix);
      u8 ch3[max_ch3];
      (void)challenge3(s, prefix, load_le64(in + v.x_ctr()), ch3);
      u32 diff = 0;
      for (u32 b = 0; b < s.ch3_bytes; ++b) diff |= u32(ch3[b] ^ in[v.x_ch3() + b]);
      st[v.st_ok()] = u8(diff == 0 ? 1 : 0);
      break;
    }
    case VerifyStage::pkp_rows: {
      const u8* q = st + lay.st_v();
      const u32 t_i = get_le16(in + v.x_t() + 2 * r);
      auto* qf = reinterpret_cast<u16*>(st + v.st_qf()) + u64(r) * s.p.ext;
      const u8* al = st + lay.st_alphas();
      if (s.level == 1)
        pkp_verify_row<12, 3>(s.p, q, s.vb, r, in + v.x_dtower(), t_i, al, qf);
      else if (s.level == 3)
        pkp_verify_row<18, 4>(s.p, q, s.vb, r, in + v.x_dtower(), t_i, al, qf);
      else
        pkp_verify_row<24, 4>(s.p, q, s.vb, r, in + v.x_dtower(), t_i, al, qf);
      break;
    }
    case VerifyStage::final: {
      const u8* q = st + lay.st_v();
      const auto* qf = reinterpret_cast<const u16*>(st + v.st_qf());
      bool ok;
      if (s.level == 1)
        ok = pkp_verify_final<12, 3>(s.p, qf, q, s.vb, in + v.x_dtower(), in + v.x_a());
      else if (s.level == 3)
        ok = pkp_verify_final<18, 4>(s.p, qf, q, s.vb, in + v.x_dtower(), in + v.x_a());
      else
        ok = pkp_verify_final<24, 4>(s.p, qf, q, s.vb, in + v.x_dtower(), in + v.x_a());
      result[sig] = u8(ok && st[v.st_ok()] == 1 ? 1 : 0);
      break;
    }
  }
}

}  // namespace tempo::perk::dev
