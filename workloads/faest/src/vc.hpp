// The batch all-but-one vector commitment (BAVC: one GGM tree over all tau instances, leaf
// commitments, opening, reconstruction) and the VOLE conversion of its leaves
// (FAEST v2 Sections 5.1-5.3; faest-ref bavc.c, vole.c) on tempo::voleith's GGM tree,
// opening and ConvertToVOLE, with FAEST's PRG, leaf commitment and layout. Templated on the
// backend B (B::prg, B::leaf_hash). `t`, when not null, runs independent parts as tempo forks.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <tempo/tempo.hpp>
#include <tempo/voleith/ggm.hpp>
#include <tempo/voleith/parallel.hpp>
#include <tempo/voleith/vole.hpp>

#include "common.hpp"
#include "shake.hpp"
#include "stages.hpp"

namespace tempo::faest::detail {

using voleith::par_for;

inline voleith::TreeShape tree_shape(const ParamSet& p) { return {p.L, 16}; }

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

enum ScratchSlot : unsigned { slot_nodes = 0, slot_seeds = 1, slot_com = 2, slot_us = 3, slot_cols = 4 };

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

// Expands the tree from what nodes holds (the root, or the opened co-path): PRG(node a,
// tweak a) gives a's children. known: the verifier's marks (nodes not expanded), or null.
// A run of n adjacent nodes from node a0 (seeds 16n bytes) expanded into out (32n bytes).
template <class B>
void expand_run(const std::uint8_t* seeds, std::size_t n, const std::uint32_t* idx, const std::uint8_t iv[16],
                std::uint8_t* out) {
  if constexpr (requires { B::fused(); }) {
    if (B::fused() && n % 4 == 0) {
      B::expand_nodes(seeds, n, idx[0], iv, out);
      return;
    }
  }
  B::prg(seeds, n, iv, idx, 0, out, 32);
}

// The tree's PRG as voleith::expand_tree / expand_marked call it.
template <class B>
auto tree_expander(const std::uint8_t iv[16]) {
  return [iv](const std::uint8_t* const* seeds, const std::uint32_t* idx, std::size_t n, std::uint8_t* out) {
    if (seeds[n - 1] == seeds[0] + 16 * (n - 1) && idx[n - 1] == idx[0] + n - 1) {
      expand_run<B>(seeds[0], n, idx, iv, out);  // a whole run: the seeds are adjacent
      return;
    }
    std::uint8_t keys[16 * 64];
    for (std::size_t q = 0; q < n; ++q) std::memcpy(keys + 16 * q, seeds[q], 16);
    B::prg(keys, n, iv, idx, 0, out, 32);
    secure_zero(keys, 16 * n);
  };
}

template <class B>
void expand_tree(tempo::Task* t, const ParamSet& p, std::uint8_t* nodes, const std::uint8_t iv[16],
                 const std::uint8_t* known) {
  voleith::expand_tree(t, tree_shape(p), nodes, known, tree_expander<B>(iv));
}

// A backend with B::fused() (the VAES one) has, where that is true, the tree's PRG on whole
// runs (B::expand_nodes), and the leaf commitments (B::leaf_commit) and ConvertToVOLE
// (B::vole) fused with their PRG: vaes512.hpp.

// The verifier's tree from the opened co-path (nodes idx[e] = in + 16e, e < opened): every
// internal node is expanded, the hidden leaves' ancestors too, so that every PRG call covers
// a whole run of adjacent nodes, as the signer's do; those ancestors' seeds are unknown and
// their children come out meaningless, so after each level the opened nodes of the next
// level are put back. What remains meaningless is the hidden leaves and their ancestors, which
// the verifier never reads. Nothing here is secret.
template <class B>
void expand_tree_opened(tempo::Task* t, const ParamSet& p, std::uint8_t* nodes, const std::uint8_t iv[16],
                        const std::uint8_t* in, const std::uint32_t* idx, unsigned opened) {
  constexpr std::size_t chunk = 64;
  const std::size_t internal = p.L - 1;
  std::memset(nodes, 0, 16);  // the root: unknown, its (meaningless) expansion only defined
  for (std::size_t first = 0; first < internal; first = 2 * first + 1) {
    const std::size_t last = std::min(2 * first + 1, internal);
    par_for(t, (last - first + chunk - 1) / chunk, [&](std::size_t c) {
      const std::size_t a0 = first + c * chunk, a1 = std::min(last, a0 + chunk);
      std::uint32_t index[chunk];
      for (std::size_t a = a0; a < a1; ++a) index[a - a0] = std::uint32_t(a);
      expand_run<B>(nodes + 16 * a0, a1 - a0, index, iv, nodes + 16 * (2 * a0 + 1));
    });
    for (unsigned e = 0; e < opened; ++e)
      if (idx[e] >= 2 * first + 1 && idx[e] < 2 * last + 1)
        std::memcpy(nodes + 16 * std::size_t(idx[e]), in + 16 * std::size_t(e), 16);
  }
}

// Leaf commitments of instance i: sd = PRG_4(key)[0..16), com = leaf_hash(uhash_i, PRG_4(key)).
// hidden: the one leaf not computed (verifier: its commitment comes from the signature) or -1.
// com_out: N_i * 48 bytes in leaf order; sd_out: the seeds of the computed leaves.
template <class B>
void commit_leaves(const ParamSet& p, unsigned i, const std::uint8_t* nodes, const std::uint8_t iv[16],
                   const std::uint8_t* uhash, long hidden, const std::uint8_t* hidden_com, std::uint8_t* sd_out,
                   std::uint8_t* com_out) {
  const unsigned n = p.leaves(i);
  if constexpr (requires { B::fused(); }) {
    if (B::fused()) {  // the keys read in place, 256 leaves per call (pointers only: nothing secret to wipe)
      constexpr unsigned chunk = 256;
      static constexpr std::uint8_t zero_key[16] = {};
      const std::uint8_t* keys[chunk + 3];
      std::uint8_t* com[chunk];
      for (unsigned j0 = 0; j0 < n; j0 += chunk) {
        unsigned m = 0;
        for (unsigned j = j0; j < j0 + chunk && j < n; ++j) {
          if (long(j) == hidden) {
            std::memcpy(com_out + 48 * std::size_t(j), hidden_com, 48);
            continue;
          }
          keys[m] = nodes + 16 * pos_in_tree(p, i, j);
          com[m++] = com_out + 48 * std::size_t(j);
        }
        for (unsigned q = m; q % 4 != 0; ++q) keys[q] = zero_key;  // whole groups of four keys
        B::leaf_commit(keys, m, iv, p.L - 1 + i, uhash, com, sd_out);
        sd_out += 16 * std::size_t(m);
      }
      return;
    }
  }
  constexpr unsigned chunk = 32;
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

// h_i = H1(com_i,0 || ... ) for every instance, eight instances of equal size per 8-way
// sponge; then h = H1(h_0 || ... || h_tau-1).
inline void hash_commitments(tempo::Task* t, const ParamSet& p, const std::uint8_t* com, std::uint8_t h[32]) {
  struct Group {
    unsigned first, count;
  };
  std::vector<Group> groups;
  for (unsigned i = 0; i < p.tau;) {
    unsigned c = 1;
    while (c < 8 && i + c < p.tau && p.leaves(i + c) == p.leaves(i)) ++c;
    groups.push_back({i, c});
    i += c;
  }
  std::vector<std::uint8_t> his(32 * std::size_t(p.tau) + 32 * 7);
  par_for(t, groups.size(), [&](std::size_t g) {
    const Group gr = groups[g];
    const std::uint8_t* in[8];
    std::uint8_t* out[8];
    for (unsigned k = 0; k < 8; ++k) {
      const unsigned i = gr.first + (k < gr.count ? k : 0);  // padding lanes repeat the first
      in[k] = com + 48 * std::size_t(first_leaf(p, i));
      out[k] = his.data() + 32 * std::size_t(k < gr.count ? gr.first + k : p.tau + k - 1);
    }
    voleith::Sponge8 h1(voleith::rate_shake128, voleith::suffix_shake);
    h1.absorb(in, 48 * std::size_t(p.leaves(gr.first)));
    h1.finalize(dom_h1);
    h1.squeeze(out, 32);
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
  stage_mark(Stage::tree);
  std::vector<std::uint8_t> uhash(48 * std::size_t(p.tau));
  leaf_hash_keys(p, iv, uhash.data());
  par_for(t, p.tau, [&](std::size_t i) {
    const std::size_t off = first_leaf(p, unsigned(i));
    commit_leaves<B>(p, unsigned(i), vc.nodes, iv, uhash.data() + 48 * i, -1, nullptr, vc.sd + 16 * off,
                     vc.com + 48 * off);
  });
  stage_mark(Stage::leaves);
  hash_commitments(t, p, vc.com, vc.h);
  stage_mark(Stage::com_hash);
}

// The heap indices of the hidden leaves.
inline void hidden_leaves(const ParamSet& p, const std::uint16_t* delta, std::uint32_t* out) {
  for (unsigned i = 0; i < p.tau; ++i) out[i] = pos_in_tree(p, i, delta[i]);
}

// BAVC.Open, first half: marks the hidden leaves and their ancestors in s ((2L - 1) bits,
// zeroed by the caller); false when the opening needs more than T_open nodes (the signer
// then grinds on).
inline bool bavc_open_set(const ParamSet& p, const std::uint16_t* delta, std::uint8_t* s) {
  std::uint32_t hidden[max_tau];
  hidden_leaves(p, delta, hidden);
  return voleith::mark_hidden(tree_shape(p), hidden, p.tau, s) <= p.t_open;
}

// BAVC.Open, second half: the hidden leaves' commitments, then the co-path nodes.
// node(a): node a of the tree; com(i): the commitment of instance i's hidden leaf.
template <class NodeAt, class ComAt>
void bavc_open_write(const ParamSet& p, const std::uint8_t* s, NodeAt&& node, ComAt&& com, std::uint8_t* decom) {
  std::uint8_t* out = decom;
  for (unsigned i = 0; i < p.tau; ++i) {
    std::memcpy(out, com(i), 48);
    out += 48;
  }
  std::vector<std::uint32_t> path(p.t_open);
  const std::size_t n = voleith::copath(tree_shape(p), s, voleith::CopathOrder::descending, path.data());
  for (std::size_t e = 0; e < n; ++e, out += 16) std::memcpy(out, node(path[e]), 16);
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

// BAVC.Reconstruct, first half: where the opened co-path nodes go (idx: t_open entries,
// ~0 for none) and the hidden leaves' marks in s ((2L - 1) bits, zeroed by the caller).
// False for a malformed opening (too few nodes, or nonzero padding).
inline bool bavc_copath(const ParamSet& p, const std::uint8_t* decom, const std::uint16_t* delta, std::uint8_t* s,
                        std::uint32_t* idx) {
  std::uint32_t hidden[max_tau];
  hidden_leaves(p, delta, hidden);
  const std::size_t used = voleith::mark_hidden(tree_shape(p), hidden, p.tau, s);
  if (used > p.t_open) return false;
  voleith::copath(tree_shape(p), s, voleith::CopathOrder::descending, idx);
  for (std::size_t e = used; e < p.t_open; ++e) idx[e] = ~std::uint32_t{0};
  std::uint8_t pad = 0;  // OR of the padding (a loop the compiler vectorises)
  for (const std::uint8_t* b = decom + 48 * std::size_t(p.tau) + 16 * used; b != decom + p.decom_bytes(); ++b) pad |= *b;
  return pad == 0;
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
  unsigned opened = 0;
  while (opened < p.t_open && idx[opened] != ~std::uint32_t{0}) ++opened;
  expand_tree_opened<B>(t, p, nodes, iv, in, idx.data(), opened);
  stage_mark(Stage::tree);
  std::vector<std::uint8_t> uhash(48 * std::size_t(p.tau));
  std::uint8_t* com = scratch.get(slot_com, 48 * std::size_t(p.L), false);
  std::uint8_t* sd = scratch.get(slot_seeds, std::size_t(p.L - p.tau) * 16, false);
  leaf_hash_keys(p, iv, uhash.data());
  par_for(t, p.tau, [&](std::size_t i) {
    const std::size_t first = first_leaf(p, unsigned(i));
    commit_leaves<B>(p, unsigned(i), nodes, iv, uhash.data() + 48 * i, long(delta[i]), decom + 48 * i,
                     sd + 16 * (first - i), com + 48 * first);
  });
  stage_mark(Stage::leaves);
  hash_commitments(t, p, com, h);
  stage_mark(Stage::com_hash);
  seeds = sd;
  return true;
}

// ConvertToVOLE for one instance: leaf x's PRG output r_x = PRG(seed_x, tweak i ^ 2^31)
// (ell_hat bytes); u = sum r_x and column j of v = sum of r_x over x with bit j set.
// zero_first: leaf 0 is the hidden one (verifier; its seeds are already permuted by the
// challenge), its row taken as zero.
template <class B>
void convert_to_vole(const ParamSet& p, unsigned i, const std::uint8_t* seeds, bool zero_first,
                     const std::uint8_t iv[16], std::uint8_t* u /* null: not needed */, std::uint8_t* v) {
  constexpr unsigned len = ell_hat_bytes;
  const unsigned depth = p.depth(i);
  const std::uint32_t tweak = std::uint32_t(i) ^ 0x80000000u;
  if constexpr (requires { B::fused(); }) {
    if (B::fused() && (u == nullptr || !zero_first)) {  // the hidden row 0 only ever reaches u
      B::vole(depth, seeds, iv, tweak, u, v);
      return;
    }
  }
  std::uint8_t work[voleith::vole_work_bytes(12, len)];  // 12: the deepest instance (FAEST-128s)
  voleith::convert_to_vole(
      depth, len, len,
      [&](std::size_t first, std::uint8_t* out) {
        B::prg(seeds + 16 * first, voleith::vole_chunk, iv, nullptr, tweak, out, len);
        if (first == 0 && zero_first) std::memset(out, 0, len);
      },
      u, v, work);
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
