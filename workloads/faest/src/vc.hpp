// The batch all-but-one vector commitment (BAVC: one GGM tree over all tau instances, leaf
// commitments, opening, reconstruction) and the VOLE conversion of its leaves
// (FAEST v2 Sections 5.1-5.3; faest-ref bavc.c, vole.c). Templated on the backend B
// (B::prg, B::leaf_hash). `t`, when not null, runs independent parts as tempo forks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <tempo/tempo.hpp>

#include "common.hpp"
#include "shake.hpp"

namespace tempo::faest::detail {

template <class F>
void par_for(tempo::Task* t, std::size_t n, F&& f) {
  if (t != nullptr && n > 1) {
    tempo::parallel_for(*t, 0, n, [&](std::size_t i) { f(i); });
  } else {
    for (std::size_t i = 0; i < n; ++i) f(i);
  }
}

// BAVC.PosInTree: the heap index of leaf j of instance i (leaves interleaved over instances).
inline unsigned pos_in_tree(const ParamSet& p, unsigned i, unsigned j) {
  const unsigned half = 1u << (p.k - 1);
  if (j < half) return p.L - 1 + p.tau * j + i;
  return p.L - 1 + p.tau * half + p.tau1 * (j & (half - 1)) + i;
}
inline unsigned first_leaf(const ParamSet& p, unsigned i) {  // sum of N_i' for i' < i
  unsigned s = 0;
  for (unsigned q = 0; q < i; ++q) s += p.leaves(q);
  return s;
}

// DecodeAllChall_3: the hidden leaf of every instance from the challenge bits.
inline void decode_chall3(const ParamSet& p, const std::uint8_t* chall3, std::uint16_t* delta) {
  unsigned lo = 0;
  for (unsigned i = 0; i < p.tau; ++i) {
    const unsigned d = p.depth(i);
    unsigned v = 0;
    for (unsigned j = 0; j < d; ++j) v |= get_bit(chall3, lo + j) << j;
    delta[i] = std::uint16_t(v);
    lo += d;
  }
}

enum ScratchSlot : unsigned { slot_nodes = 0, slot_seeds = 1, slot_com = 2 };

struct Bavc {
  std::uint8_t* nodes = nullptr;  // (2L - 1) * 16: the GGM tree (secret)
  std::uint8_t* sd = nullptr;     // L * 16: leaf seeds, instance-major (secret)
  std::uint8_t* com = nullptr;    // L * 48: leaf commitments
  std::uint8_t h[32];
};

// H0(iv) squeezed 48 bytes per instance: the leaf hash keys.
inline void leaf_hash_keys(const ParamSet& p, const std::uint8_t iv[16], std::uint8_t* uhash) {
  RandomOracle h0;
  h0.absorb(iv, 16);
  h0.final(dom_h0);
  h0.squeeze(uhash, 48 * std::size_t(p.tau));
}

// Expands the tree from nodes[0] level by level (each level's nodes are independent).
template <class B>
void expand_tree(tempo::Task* t, const ParamSet& p, std::uint8_t* nodes, const std::uint8_t iv[16],
                 const std::uint8_t* known /* bit per node: 1 = do not expand (verifier), or null */) {
  constexpr std::size_t chunk = 64;
  for (std::size_t first = 0; first < p.L - 1; first = 2 * first + 1) {
    const std::size_t last = std::min<std::size_t>(2 * first + 1, p.L - 1);
    const std::size_t n = last - first;
    par_for(t, (n + chunk - 1) / chunk, [&](std::size_t c) {
      const std::size_t a0 = first + c * chunk, a1 = std::min(last, a0 + chunk);
      std::uint32_t tw[chunk];
      if (known == nullptr) {
        for (std::size_t a = a0; a < a1; ++a) tw[a - a0] = std::uint32_t(a);
        B::prg(nodes + 16 * a0, a1 - a0, iv, tw, 0, nodes + 16 * (2 * a0 + 1), 32);
        return;
      }
      std::uint8_t keys[16 * chunk], out[32 * chunk];
      std::size_t m = 0, idx[chunk];
      for (std::size_t a = a0; a < a1; ++a)
        if (!get_bit(known, a)) {
          std::memcpy(keys + 16 * m, nodes + 16 * a, 16);
          tw[m] = std::uint32_t(a);
          idx[m++] = a;
        }
      if (m == 0) return;
      B::prg(keys, m, iv, tw, 0, out, 32);
      for (std::size_t q = 0; q < m; ++q) std::memcpy(nodes + 16 * (2 * idx[q] + 1), out + 32 * q, 32);
    });
  }
}

// Leaf commitments of instance i: sd = PRG_4(key)[0..16), com = leaf_hash(uhash_i, PRG_4(key)).
// hidden: the one leaf not computed (verifier: its commitment comes from the signature) or -1.
// com_out: N_i * 48 bytes in leaf order; sd_out: the seeds of the computed leaves.
template <class B>
void commit_leaves(const ParamSet& p, unsigned i, const std::uint8_t* nodes, const std::uint8_t iv[16],
                   const std::uint8_t* uhash, long hidden, const std::uint8_t* hidden_com, std::uint8_t* sd_out,
                   std::uint8_t* com_out) {
  constexpr unsigned chunk = 32;
  const unsigned n = p.leaves(i);
  std::uint8_t keys[16 * chunk], buf[64 * chunk];
  std::size_t sd_pos = 0;
  for (unsigned j0 = 0; j0 < n; j0 += chunk) {
    unsigned m = 0, js[chunk];
    for (unsigned j = j0; j < j0 + chunk; ++j) {
      if (long(j) == hidden) {
        std::memcpy(com_out + 48 * std::size_t(j), hidden_com, 48);
        continue;
      }
      std::memcpy(keys + 16 * m, nodes + 16 * pos_in_tree(p, i, j), 16);
      js[m++] = j;
    }
    B::prg(keys, m, iv, nullptr, p.L - 1 + i, buf, 64);
    for (unsigned q = 0; q < m; ++q) {
      B::leaf_hash(com_out + 48 * std::size_t(js[q]), uhash, buf + 64 * q);
      std::memcpy(sd_out + 16 * (sd_pos + q), buf + 64 * q, 16);
    }
    sd_pos += m;
  }
  secure_zero(keys, sizeof keys);
  secure_zero(buf, sizeof buf);
}

// h_i = H1(com_i,0 || ... ) for every instance, four instances of equal size per 4-way
// sponge; then h = H1(h_0 || ... || h_tau-1).
inline void hash_commitments(tempo::Task* t, const ParamSet& p, const std::uint8_t* com, std::uint8_t h[32]) {
  struct Group {
    unsigned first, count;
  };
  std::vector<Group> groups;
  for (unsigned i = 0; i < p.tau;) {
    unsigned c = 1;
    while (c < 4 && i + c < p.tau && p.leaves(i + c) == p.leaves(i)) ++c;
    groups.push_back({i, c});
    i += c;
  }
  std::vector<std::uint8_t> his(32 * std::size_t(p.tau) + 32 * 3);
  par_for(t, groups.size(), [&](std::size_t g) {
    const Group gr = groups[g];
    const std::uint8_t* in[4];
    std::uint8_t* out[4];
    for (unsigned k = 0; k < 4; ++k) {
      const unsigned i = gr.first + (k < gr.count ? k : 0);  // padding lanes repeat the first
      in[k] = com + 48 * std::size_t(first_leaf(p, i));
      out[k] = his.data() + 32 * std::size_t(k < gr.count ? gr.first + k : p.tau + k - 1);
    }
    Shake128x4 h1;
    h1.absorb(in, 48 * std::size_t(p.leaves(gr.first)));
    h1.final_squeeze(dom_h1, out, 32);
  });
  RandomOracle hh;
  hh.absorb(his.data(), 32 * std::size_t(p.tau));
  hh.final(dom_h1);
  hh.squeeze(h, 32);
}

template <class B>
void bavc_commit(tempo::Task* t, const ParamSet& p, const std::uint8_t root[16], const std::uint8_t iv[16],
                 Bavc& vc, Scratch& scratch) {
  vc.nodes = scratch.get(slot_nodes, std::size_t(2 * p.L - 1) * 16, true);
  vc.sd = scratch.get(slot_seeds, std::size_t(p.L) * 16, true);
  vc.com = scratch.get(slot_com, std::size_t(p.L) * 48, false);
  std::memcpy(vc.nodes, root, 16);
  expand_tree<B>(t, p, vc.nodes, iv, nullptr);
  std::vector<std::uint8_t> uhash(48 * std::size_t(p.tau));
  leaf_hash_keys(p, iv, uhash.data());
  par_for(t, p.tau, [&](std::size_t i) {
    const std::size_t off = first_leaf(p, unsigned(i));
    commit_leaves<B>(p, unsigned(i), vc.nodes, iv, uhash.data() + 48 * i, -1, nullptr, vc.sd + 16 * off,
                     vc.com + 48 * off);
  });
  hash_commitments(t, p, vc.com, vc.h);
}

// BAVC.Open, first half: marks the hidden leaves and their ancestors in s ((2L - 1) bits,
// zeroed by the caller); false when the opening needs more than T_open nodes (the signer
// then grinds on).
inline bool bavc_open_set(const ParamSet& p, const std::uint16_t* delta, std::uint8_t* s) {
  unsigned nh = 0;
  for (unsigned i = 0; i < p.tau; ++i) {
    unsigned a = pos_in_tree(p, i, delta[i]);
    set_bit(s, a, 1);
    ++nh;
    while (a > 0 && !get_bit(s, (a - 1) / 2)) {
      a = (a - 1) / 2;
      set_bit(s, a, 1);
      ++nh;
    }
  }
  return nh - 2 * p.tau + 1 <= p.t_open;
}

// BAVC.Open, second half: the hidden leaves' commitments, then the co-path nodes.
// node(a): node a of the tree; com(i): the commitment of instance i's hidden leaf.
template <class NodeAt, class ComAt>
void bavc_open_write(const ParamSet& p, std::uint8_t* s, NodeAt&& node, ComAt&& com, std::uint8_t* decom) {
  std::uint8_t* out = decom;
  for (unsigned i = 0; i < p.tau; ++i) {
    std::memcpy(out, com(i), 48);
    out += 48;
  }
  for (long i = long(p.L) - 2; i >= 0; --i) {
    const unsigned l = get_bit(s, 2 * i + 1), r = get_bit(s, 2 * i + 2);
    set_bit(s, std::size_t(i), l | r);
    if (l ^ r) {
      std::memcpy(out, node(2 * std::size_t(i) + 1 + l), 16);
      out += 16;
    }
  }
  std::memset(out, 0, std::size_t(decom + p.decom_bytes() - out));
}

// BAVC.Open; false when the opening needs more than T_open nodes (the signer then grinds on).
inline bool bavc_open(const ParamSet& p, const Bavc& vc, const std::uint16_t* delta, std::uint8_t* decom) {
  std::vector<std::uint8_t> s((2 * p.L - 1 + 7) / 8, 0);
  if (!bavc_open_set(p, delta, s.data())) return false;
  bavc_open_write(
      p, s.data(), [&](std::size_t a) { return vc.nodes + 16 * a; },
      [&](unsigned i) { return vc.com + 48 * (std::size_t(first_leaf(p, i)) + delta[i]); }, decom);
  return true;
}

// BAVC.Open from the root alone (the GPU path keeps no tree on the host): expands only the
// hidden leaves' ancestors, then commits to the hidden leaves again.
template <class B>
bool bavc_open_from_root(const ParamSet& p, const std::uint8_t root[16], const std::uint8_t iv[16],
                         const std::uint8_t* uhash, const std::uint16_t* delta, std::uint8_t* decom, Scratch& scratch) {
  const std::size_t bits = (2 * p.L - 1 + 7) / 8;
  std::vector<std::uint8_t> s(bits, 0);
  if (!bavc_open_set(p, delta, s.data())) return false;
  std::vector<std::uint8_t> skip(bits);
  for (std::size_t b = 0; b < bits; ++b) skip[b] = std::uint8_t(~s[b]);  // expand only path nodes
  std::uint8_t* nodes = scratch.get(slot_nodes, std::size_t(2 * p.L - 1) * 16, true);
  std::memcpy(nodes, root, 16);
  expand_tree<B>(nullptr, p, nodes, iv, skip.data());
  SecretBuffer<std::uint8_t> buf(64);
  std::vector<std::uint8_t> com(48 * std::size_t(p.tau));
  for (unsigned i = 0; i < p.tau; ++i) {
    B::prg(nodes + 16 * std::size_t(pos_in_tree(p, i, delta[i])), 1, iv, nullptr, p.L - 1 + i, buf.data(), 64);
    B::leaf_hash(com.data() + 48 * std::size_t(i), uhash + 48 * std::size_t(i), buf.data());
  }
  bavc_open_write(
      p, s.data(), [&](std::size_t a) { return nodes + 16 * a; },
      [&](unsigned i) { return com.data() + 48 * std::size_t(i); }, decom);
  return true;
}

// BAVC.Reconstruct, first half: where the opened co-path nodes go (idx: t_open entries,
// ~0 for none) and the hidden leaves' marks in s ((2L - 1) bits, zeroed by the caller).
// False for a malformed opening (too few nodes, or nonzero padding).
inline bool bavc_copath(const ParamSet& p, const std::uint8_t* decom, const std::uint16_t* delta, std::uint8_t* s,
                        std::uint32_t* idx) {
  for (unsigned i = 0; i < p.tau; ++i) set_bit(s, pos_in_tree(p, i, delta[i]), 1);
  unsigned used = 0;
  for (long i = long(p.L) - 2; i >= 0; --i) {
    const unsigned l = get_bit(s, 2 * i + 1), r = get_bit(s, 2 * i + 2);
    set_bit(s, std::size_t(i), l | r);
    if (l ^ r) {
      if (used == p.t_open) return false;
      idx[used++] = std::uint32_t(2 * std::size_t(i) + 1 + l);
    }
  }
  for (unsigned e = used; e < p.t_open; ++e) idx[e] = ~std::uint32_t{0};
  const std::uint8_t* pad = decom + 48 * std::size_t(p.tau) + 16 * std::size_t(used);
  for (; pad != decom + p.decom_bytes(); ++pad)
    if (*pad) return false;
  return true;
}

// BAVC.Reconstruct: the commitment h and the seeds of all leaves but the hidden ones
// (instance-major, N_i - 1 per instance). False for a malformed opening.
template <class B>
bool bavc_reconstruct(tempo::Task* t, const ParamSet& p, const std::uint8_t* decom, const std::uint16_t* delta,
                      const std::uint8_t iv[16], std::uint8_t h[32], Scratch& scratch, const std::uint8_t*& seeds) {
  std::vector<std::uint8_t> s((2 * p.L - 1 + 7) / 8, 0);
  std::vector<std::uint32_t> idx(p.t_open);
  if (!bavc_copath(p, decom, delta, s.data(), idx.data())) return false;
  std::uint8_t* nodes = scratch.get(slot_nodes, std::size_t(2 * p.L - 1) * 16, false);
  const std::uint8_t* in = decom + 48 * std::size_t(p.tau);
  for (unsigned e = 0; e < p.t_open && idx[e] != ~std::uint32_t{0}; ++e)
    std::memcpy(nodes + 16 * std::size_t(idx[e]), in + 16 * std::size_t(e), 16);
  expand_tree<B>(t, p, nodes, iv, s.data());
  std::vector<std::uint8_t> uhash(48 * std::size_t(p.tau));
  std::uint8_t* com = scratch.get(slot_com, 48 * std::size_t(p.L), false);
  std::uint8_t* sd = scratch.get(slot_seeds, std::size_t(p.L - p.tau) * 16, false);
  leaf_hash_keys(p, iv, uhash.data());
  par_for(t, p.tau, [&](std::size_t i) {
    const std::size_t first = first_leaf(p, unsigned(i));
    commit_leaves<B>(p, unsigned(i), nodes, iv, uhash.data() + 48 * i, long(delta[i]), decom + 48 * i,
                     sd + 16 * (first - i), com + 48 * first);
  });
  hash_commitments(t, p, com, h);
  seeds = sd;
  return true;
}

// ConvertToVOLE for one instance: leaf x's PRG output r_x (ell_hat bytes); u = sum r_x and
// column j of v = sum of r_x over x with bit j set. zero_first: leaf 0 is the hidden one
// (verifier; its seeds are already permuted by the challenge). Leaves are taken 16 at a time;
// the levels above are folded like a binary counter, so memory stays O(depth).
template <class B>
void convert_to_vole(const ParamSet& p, unsigned i, const std::uint8_t* seeds, bool zero_first,
                     const std::uint8_t iv[16], std::uint8_t* u /* null: not needed */, std::uint8_t* v) {
  constexpr unsigned len = ell_hat_bytes;
  const unsigned depth = p.depth(i), n = 1u << depth;
  const std::uint32_t tweak = std::uint32_t(i) ^ 0x80000000u;
  std::memset(v, 0, std::size_t(depth) * len);
  std::vector<std::uint8_t> stack(std::size_t(depth + 1) * len);
  constexpr unsigned chunk = 16, chunk_levels = 4;
  std::uint8_t out[chunk * len];
  auto xor_into = [](std::uint8_t* d, const std::uint8_t* s) {
    for (unsigned b = 0; b < len; ++b) d[b] ^= s[b];
  };
  for (unsigned c = 0; c < n / chunk; ++c) {
    B::prg(seeds + 16 * std::size_t(chunk * c), chunk, iv, nullptr, tweak, out, len);
    if (c == 0 && zero_first) std::memset(out, 0, len);
    for (unsigned l = 0, step = 1; l < chunk_levels; ++l, step *= 2)
      for (unsigned m = 0; m < chunk; m += 2 * step) {
        xor_into(v + std::size_t(l) * len, out + std::size_t(m + step) * len);
        xor_into(out + std::size_t(m) * len, out + std::size_t(m + step) * len);
      }
    unsigned level = chunk_levels, idx = c;
    while (idx & 1) {
      xor_into(v + std::size_t(level) * len, out);
      xor_into(out, stack.data() + std::size_t(level) * len);
      ++level;
      idx >>= 1;
    }
    std::memcpy(stack.data() + std::size_t(level) * len, out, len);
  }
  if (u) std::memcpy(u, stack.data() + std::size_t(depth) * len, len);
  secure_zero(out, sizeof out);
  secure_zero(stack.data(), stack.size());
}

// The verifier's ConvertToVOLE of instance i: the reconstructed seeds (all but the hidden
// leaf's, from bavc_reconstruct) permuted so that the hidden leaf is x = 0; q: its columns.
template <class B>
void reconstruct_vole(const ParamSet& p, unsigned i, const std::uint8_t* seeds, const std::uint16_t* delta,
                      const std::uint8_t iv[16], std::uint8_t* q) {
  const unsigned n = p.leaves(i);
  const std::uint8_t* si = seeds + 16 * (std::size_t(first_leaf(p, i)) - i);
  std::vector<std::uint8_t> perm(16 * std::size_t(n), 0);
  for (unsigned j = 0; j < n; ++j) {
    if (j == delta[i]) continue;
    std::memcpy(perm.data() + 16 * std::size_t(j ^ delta[i]), si + 16 * std::size_t(j < delta[i] ? j : j - 1), 16);
  }
  convert_to_vole<B>(p, i, perm.data(), true, iv, nullptr, q);
}

}  // namespace tempo::faest::detail
