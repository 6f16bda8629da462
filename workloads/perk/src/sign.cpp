// Signing and verification (signature.c, verify.c, sign.c, parsing.c of the package).
#include <cstring>
#include <vector>

#include <tempo/secure_zero.hpp>
#include <tempo/voleith/grind.hpp>
#include <tempo/voleith/parallel.hpp>
#include <tempo/voleith/scratch.hpp>

#include "core.hpp"
#include "sponge.hpp"

namespace tempo::perk::detail {
namespace {

using voleith::par_for;

// The signature's big arrays in per-thread scratch (voleith::Scratch): no page faults per call.
enum Slot : unsigned { slot_tree = 0, slot_cmt = 1, slot_rows = 2, slot_us = 3 };

// First VOLE row of subtree e (the rows of subtree e are mu_e >= k_e apart).
unsigned first_row(const ParamSet& p, unsigned e) {
  unsigned row = 0;
  for (unsigned q = 0; q < e; ++q) row += p.mu_of(q);
  return row;
}

// Subtree e's commitments and VOLE rows, with its own scratch (a fork's).
void subtree(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, const std::uint8_t* tree, unsigned e,
             unsigned delta, std::uint8_t* cmt, std::uint8_t* v, std::uint8_t* u) {
  voleith::Scratch own;
  subtree_voles(p, k, salt, tree, e, delta, cmt, v, u, own.get(0, subtree_scratch_bytes(p), true));
}

// h_V = H1(VOLEHash(ch1, row_i) ^ corr_i for the rho rows); the rows' hashes fork in groups.
template <class Row>
void hash_rows(tempo::Task* t, const ParamSet& p, Row&& row, std::uint8_t* h_v) {
  constexpr unsigned group = 32;
  const unsigned vh = p.vole_hash_bytes();
  std::vector<std::uint8_t> hashes(std::size_t{p.rho()} * vh);
  par_for(t, (p.rho() + group - 1) / group, [&](std::size_t g) {
    for (unsigned i = unsigned(g) * group; i < p.rho() && i < (g + 1) * group; ++i) row(i, hashes.data() + std::size_t{i} * vh);
  });
  Sponge h = Sponge::hash(p);
  h.absorb(hashes.data(), hashes.size());
  h.finalize(dom_h1);
  h.squeeze(h_v, p.hash_bytes());
  secure_zero(hashes);
}

}  // namespace

// mu = H1(pk || msg)
void message_digest(const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t len,
                    std::uint8_t* mu) {
  Sponge h = Sponge::hash(p);
  h.absorb(pk, p.pk_bytes());
  h.absorb(msg, len);
  h.finalize(dom_h1);
  h.squeeze(mu, p.hash_bytes());
}

// ch1 = H2_1(salt, mu, h_com, c): 5 lambda/8 + 8 bytes.
void first_challenge(const ParamSet& p, const std::uint8_t* salt, const std::uint8_t* mu, const std::uint8_t* h_com,
                     const std::uint8_t* c, std::uint8_t* ch1) {
  Sponge g = Sponge::prg(p);
  g.absorb(salt, p.salt_bytes());
  g.absorb(mu, p.hash_bytes());
  g.absorb(h_com, p.hash_bytes());
  g.absorb(c, std::size_t{p.vole_bytes()} * (p.tau() - 1));
  g.finalize(dom_h2_1);
  g.squeeze(ch1, p.ch1_bytes());
}

// ch2 = H2_2(ch1, u_tilde, h_V, t) with t as 16-bit little-endian values.
void second_challenge(const ParamSet& p, const std::uint8_t* ch1, const std::uint8_t* u_tilde, const std::uint8_t* h_v,
                      const std::uint16_t* t, std::uint8_t* ch2) {
  Sponge h = Sponge::hash(p);
  h.absorb(ch1, p.ch1_bytes());
  h.absorb(u_tilde, p.vole_hash_bytes());
  h.absorb(h_v, p.hash_bytes());
  for (unsigned i = 0; i < p.n; ++i) {
    std::uint8_t b[2];
    put_le16(b, t[i]);
    h.absorb(b, 2);
  }
  h.finalize(dom_h2_2);
  h.squeeze(ch2, p.hash_bytes());
}

// The third challenge's sponge after ch2 and a (the (d + 1) * ext 16-bit values).
Sponge third_prefix(const ParamSet& p, const std::uint8_t* ch2, const std::uint16_t* a) {
  Sponge g = Sponge::prg(p);
  g.absorb(ch2, p.hash_bytes());
  for (unsigned i = 0; i < (p.d + 1) * p.ext; ++i) {
    std::uint8_t b[2];
    put_le16(b, a[i]);
    g.absorb(b, 2);
  }
  return g;
}
// The unused bits of ch3's last byte cleared.
void clear_ch3_padding(const ParamSet& p, std::uint8_t* ch3) {
  if (p.ch3_bits() % 8 != 0) ch3[p.ch3_bytes() - 1] &= static_cast<std::uint8_t>((1u << (p.ch3_bits() % 8)) - 1);
}
// ch3 = H2_3(ch2, a, ctr), the unused bits of its last byte cleared.
void third_challenge(const ParamSet& p, const Sponge& prefix, std::uint64_t ctr, std::uint8_t* ch3) {
  voleith::grind_output(prefix, ctr, 8, dom_h2_3, ch3, p.ch3_bytes());
  clear_ch3_padding(p, ch3);
}


bool unpack_pk(const ParamSet& p, const std::uint8_t* pk, std::uint16_t* x) {
  const unsigned used = (q_bits * p.n - 1) % 8 + 1;  // bits used in the last byte
  if (used != 8 && (pk[p.pk_bytes() - 1] >> used) != 0) return false;
  BitReader r{pk + p.lambda_bytes};
  for (unsigned j = 0; j < p.n; ++j) x[j] = static_cast<std::uint16_t>(r.read(q_bits));
  return true;
}

void sign_core(const ParamSet& p, const Kernels& k, const std::uint8_t* sk, const std::uint8_t* msg, std::size_t msg_len,
               const std::uint8_t* rand, std::size_t rand_len, std::uint8_t* sig, const SignOptions& opt) {
  const unsigned lb = p.lambda_bytes, vb = p.vole_bytes(), tau = p.tau();
  const std::uint8_t* pk = sk + lb;
  tempo::Task* const t = opt.task;
  std::vector<std::uint16_t> x(p.n);
  if (!unpack_pk(p, pk, x.data()))
    throw std::invalid_argument("tempo::perk: malformed secret key (nonzero padding bits in its public key)");
  std::uint8_t mu[64];
  message_digest(p, pk, msg, msg_len, mu);
  voleith::Scratch scratch;
  // mseed (the tree root) and salt = H3(perm_seed, mu, rand)
  std::uint8_t* tree = scratch.get(slot_tree, std::size_t{p.nodes()} * lb, true);
  {
    Sponge g = Sponge::prg(p);
    g.absorb(sk, lb);
    g.absorb(mu, p.hash_bytes());
    g.absorb(rand, rand_len);
    g.finalize(dom_h3);
    g.squeeze(tree, lb);
    g.squeeze(sig + p.off_salt(), p.salt_bytes());
  }
  const std::uint8_t* salt = sig + p.off_salt();
  expand_tree(p, k, salt, tree, t);
  // VOLE commitments: per subtree the leaf commitments and k_e rows (the subtrees fork);
  // c_(e-1) = u_0 ^ u_e.
  std::uint8_t* cmt = scratch.get(slot_cmt, std::size_t{p.leaves()} * p.hash_bytes(), false);
  std::uint8_t* vrows = scratch.get_zeroed(slot_rows, std::size_t{p.rho()} * vb, true);
  std::uint8_t* us = scratch.get(slot_us, std::size_t{tau} * vb, true);
  par_for(t, tau, [&](std::size_t e) {
    const unsigned ee = unsigned(e);
    subtree(p, k, salt, tree, ee, 0, cmt, vrows + std::size_t{first_row(p, ee)} * vb, us + e * vb);
  });
  const std::uint8_t* u = us;
  std::uint8_t* c = sig;  // the signature starts with c
  for (unsigned e = 1; e < tau; ++e)
    for (unsigned b = 0; b < vb; ++b) c[std::size_t{e - 1} * vb + b] = static_cast<std::uint8_t>(u[b] ^ us[std::size_t{e} * vb + b]);
  std::uint8_t h_com[64], ch1[168], h_v[64], ch2[64];
  hash_commitments(p, salt, cmt, h_com);
  first_challenge(p, salt, mu, h_com, c, ch1);
  // VOLE consistency check
  std::uint8_t* u_tilde = sig + p.off_u_tilde();
  vole_hash(p, k, ch1, u, u_tilde);
  hash_rows(t, p, [&](unsigned i, std::uint8_t* out) { vole_hash(p, k, ch1, vrows + std::size_t{i} * vb, out); }, h_v);
  // The PKP proof
  std::vector<const std::uint8_t*> vp(p.rho());
  for (unsigned i = 0; i < p.rho(); ++i) vp[i] = vrows + std::size_t{i} * vb;
  std::vector<std::uint8_t> zero_perm(p.n, 0);
  const PkpKey v210{zero_perm.data(), nullptr, x.data()};
  const PkpKey& key = opt.override_key ? *opt.override_key : v210;
  std::vector<std::uint16_t> tv(p.n), a(std::size_t{p.d + 1} * p.ext);
  prove_pkp(p, k, key, u, vp.data(), tv.data(),
            [&](const std::uint16_t* tt, std::uint8_t* out) { second_challenge(p, ch1, u_tilde, h_v, tt, out); }, ch2,
            a.data());
  // Grinding: the first ctr whose ch3 has w zero bits after the leaf indices and whose opening
  // fits in t_open seeds (open_vector_commitments); four counters per 4-way permutation.
  const Sponge prefix = third_prefix(p, ch2, a.data());
  std::uint8_t ch3[64];
  std::vector<std::uint32_t> i_vect(tau), s_idx;
  const std::uint64_t ctr = voleith::grind(prefix, 8, dom_h2_3, ch3, p.ch3_bytes(), [&](std::uint8_t* c3) {
    clear_ch3_padding(p, c3);
    BitReader r{c3, p.chall_dec_bits()};
    if (r.read(p.w) != 0) return false;
    decode_challenge(p, c3, i_vect.data());
    return open_indexes(p, i_vect.data(), s_idx) && s_idx.size() <= p.t_open;
  });
  // Serialise: c || u_tilde || pdecom || com_e || ctr || salt || t, a, ch3 bits.
  std::uint8_t* pdecom = sig + p.off_pdecom();
  std::memset(pdecom, 0, std::size_t{p.t_open} * lb);
  for (std::size_t j = 0; j < s_idx.size(); ++j) std::memcpy(pdecom + j * lb, tree + std::size_t{s_idx[j]} * lb, lb);
  for (unsigned e = 0; e < tau; ++e)
    std::memcpy(sig + p.off_com() + std::size_t{e} * p.hash_bytes(),
                cmt + std::size_t{i_vect[e] - p.leaf_offset()} * p.hash_bytes(), p.hash_bytes());
  put_le64(sig + p.off_ctr(), ctr);
  std::memset(sig + p.off_bits(), 0, p.sig_bytes() - p.off_bits());
  BitWriter w{sig + p.off_bits()};
  for (unsigned i = 0; i < p.n; ++i) w.write(tv[i], p.l_row());
  for (unsigned i = 0; i < p.d; ++i)
    for (unsigned j = 0; j < p.ext; ++j) w.write(a[std::size_t{i + 1} * p.ext + j], q_bits);
  BitReader r3{ch3};
  for (unsigned b = 0; b < p.chall_dec_bits(); ++b) w.write(r3.read(1), 1);
  secure_zero(tv);
  secure_zero(a);
  secure_zero(ch2, sizeof ch2);
  secure_zero(ch1, sizeof ch1);
  secure_zero(h_v, sizeof h_v);
}

bool verify_core(const ParamSet& p, const Kernels& k, const std::uint8_t* pk, const std::uint8_t* msg,
                 std::size_t msg_len, const std::uint8_t* sig, const std::uint16_t* override_h, tempo::Task* task) {
  const unsigned lb = p.lambda_bytes, vb = p.vole_bytes(), tau = p.tau(), cb = p.hash_bytes();
  std::vector<std::uint16_t> x(p.n);
  if (!unpack_pk(p, pk, x.data())) return false;
  const unsigned pad = p.sig_bytes() * 8 - p.sig_bits();
  if (pad != 0 && (sig[p.sig_bytes() - 1] >> (8 - pad)) != 0) return false;
  // Parse
  const std::uint8_t* c = sig;
  const std::uint8_t* u_tilde = sig + p.off_u_tilde();
  const std::uint8_t* pdecom = sig + p.off_pdecom();
  const std::uint8_t* com_e = sig + p.off_com();
  const std::uint64_t ctr = get_le64(sig + p.off_ctr());
  const std::uint8_t* salt = sig + p.off_salt();
  std::vector<std::uint16_t> t(p.n), a(std::size_t{p.d + 1} * p.ext, 0);
  std::uint8_t ch3[64] = {};
  {
    BitReader r{sig + p.off_bits()};
    for (unsigned i = 0; i < p.n; ++i) t[i] = static_cast<std::uint16_t>(r.read(p.l_row()));
    for (unsigned i = 0; i < p.d; ++i)
      for (unsigned j = 0; j < p.ext; ++j) a[std::size_t{i + 1} * p.ext + j] = static_cast<std::uint16_t>(r.read(q_bits));
    BitWriter w{ch3};
    for (unsigned b = 0; b < p.chall_dec_bits(); ++b) w.write(r.read(1), 1);
  }
  std::uint8_t mu[64];
  message_digest(p, pk, msg, msg_len, mu);
  // Reconstruct the tree and the VOLEs (vole_reconstuct)
  std::vector<std::uint32_t> i_vect(tau), s_idx;
  decode_challenge(p, ch3, i_vect.data());
  if (!open_indexes(p, i_vect.data(), s_idx) || s_idx.size() > p.t_open) return false;
  for (std::size_t b = s_idx.size() * lb; b < std::size_t{p.t_open} * lb; ++b)
    if (pdecom[b] != 0) return false;
  voleith::Scratch scratch;
  std::uint8_t* tree = scratch.get(slot_tree, std::size_t{p.nodes()} * lb, false);
  expand_partial_tree(p, k, salt, tree, s_idx, pdecom, task);
  std::uint8_t* cmt = scratch.get(slot_cmt, std::size_t{p.leaves()} * cb, false);
  std::uint8_t* qrows = scratch.get_zeroed(slot_rows, std::size_t{p.rho()} * vb, false);
  std::vector<unsigned> deltas(tau);
  std::vector<std::uint8_t> dbits(p.rho(), 0);  // Delta's bits, row by row
  for (unsigned e = 0; e < tau; ++e) {
    unsigned e1, delta;
    p.subtree_and_leaf(i_vect[e], e1, delta);
    if (e1 != e) return false;
    deltas[e] = delta;
    for (unsigned i = 0; i < p.k_of(e); ++i) dbits[first_row(p, e) + i] = static_cast<std::uint8_t>((delta >> i) & 1u);
  }
  par_for(task, tau, [&](std::size_t ei) {
    const unsigned e = unsigned(ei), row = first_row(p, e);
    std::uint8_t* q = qrows + std::size_t{row} * vb;
    subtree(p, k, salt, tree, e, deltas[e], cmt, q, nullptr);
    if (e > 0)
      for (unsigned i = 0; i < p.k_of(e); ++i)
        if (dbits[row + i])  // q = q' + Delta_i c_(e-1)
          for (unsigned b = 0; b < vb; ++b) q[std::size_t{i} * vb + b] ^= c[std::size_t{e - 1} * vb + b];
  });
  for (unsigned e = 0; e < tau; ++e)
    std::memcpy(cmt + std::size_t{i_vect[e] - p.leaf_offset()} * cb, com_e + std::size_t{e} * cb, cb);
  std::uint8_t h_com[64], ch1[168], h_v[64], ch2[64], ch3_bar[64] = {};
  hash_commitments(p, salt, cmt, h_com);
  first_challenge(p, salt, mu, h_com, c, ch1);
  hash_rows(
      task, p,
      [&](unsigned i, std::uint8_t* out) {
        vole_hash(p, k, ch1, qrows + std::size_t{i} * vb, out);
        if (dbits[i])
          for (unsigned b = 0; b < p.vole_hash_bytes(); ++b) out[b] ^= u_tilde[b];
      },
      h_v);
  second_challenge(p, ch1, u_tilde, h_v, t.data(), ch2);
  third_challenge(p, third_prefix(p, ch2, a.data()), ctr, ch3_bar);
  // Delta as a tower element: bit i of delta_e at position sum of earlier mu, i < mu_e.
  std::vector<std::uint16_t> delta(p.ext, 0);
  for (unsigned e = 0, fb = 0; e < tau; ++e)
    for (unsigned i = 0; i < p.mu_of(e); ++i, ++fb)
      delta[fb / q_bits] = static_cast<std::uint16_t>(delta[fb / q_bits] | ((deltas[e] >> i) & 1u) << (fb % q_bits));
  std::vector<const std::uint8_t*> qp(p.rho());
  for (unsigned i = 0; i < p.rho(); ++i) qp[i] = qrows + std::size_t{i} * vb;
  std::vector<std::uint8_t> zero_perm(p.n, 0);
  const PkpKey key{zero_perm.data(), override_h, x.data()};
  const bool pkp_ok = verify_pkp(p, k, key, qp.data(), delta.data(), t.data(), a.data(), ch2);
  return pkp_ok && std::memcmp(ch3_bar, ch3, p.ch3_bytes()) == 0;
}

}  // namespace tempo::perk::detail
