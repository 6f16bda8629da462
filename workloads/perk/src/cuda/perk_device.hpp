// The GPU batch path's per-thread work for PERK's 18 sets: the whole signature after
// the message digest and the tree seed (sign.cpp sign_core): the GGM forest, the leaf
// commitments, ConvertToVOLE, the commitments' hash, the first challenge, VOLEHash, the PKP
// proof (perk_prove.hpp), the second challenge and the grinding search. The host keeps only
// mu, the root seed and the salt (before) and the opening and the serialisation (after).
// Shared by the kernels (perk_kernels_sign.cu) and the host emulation in the tests, which runs
// the same functions in the kernels' order with the kernels' thread decomposition
// (for_each_stage).
//
// Stages of one chunk of signatures (one kernel launch each, threads = items below):
//   root            thread per signature: the root seed into the tree
//   expand (level)  thread per (signature, node of the level): PRG1(node, tweak = index)
//   leaves          thread per (signature, leaf): the leaf commitment Com1 (tweak e | leaf << 8)
//                   and the leaf's PRG2 row, under one key schedule
//   hash_quarters   thread per (signature, quarter): Com2_1(salt, quarter of the commitments)
//   hash_final      thread per signature: h_com = Com2_0(salt, the four quarters)
//   reduce          thread per (signature, subtree, 8-byte column word): u_e = sum of the
//                   subtree's rows, v_j = sum of the rows whose leaf has bit j set
//   challenge1      thread per signature: c_(e-1) = u_0 ^ u_e, ch1 = H2_1(salt, mu, h_com, c)
//   vole_hashes     thread per (signature, VOLE row or u): VOLEHash(ch1, row)
//   hash_rows       thread per signature: h_V = H1(the rows' VOLEHashes)
//   pkp_rows        thread per (signature, witness row): t_i, the row sum of the tensor
//                   product and the pair checks
//   challenge2      thread per signature: ch2 = H2_2(ch1, u_tilde, h_V, t), the alphas
//   pkp_mix         thread per (signature, witness row): the row's share of a
//   pkp_final       thread per signature: a = the shares' sum + CheckZero's mask
//   grind           thread per (signature, lane of grind_lanes): the first ctr whose
//                   ch3 = H2_3(ch2, a, ctr) has w zero bits after the leaf indices and whose
//                   opening (the co-path nodes of the hidden leaves, ggm_tree.c
//                   compute_s_indexes) fits in t_open seeds; lane r tries r, r + lanes, ...
//                   and stops at its first valid ctr or past the smallest one found so far
//                   (so the smallest valid ctr, the CPU's, is found in any thread order)
//   open            thread per signature: ch3 of that ctr, the opening's seeds and the
//                   hidden leaves' commitments
//
// The AES PRF (kernels.hpp PrfStream): block b of key `seed` is E_seed(base ^ b at byte 0 ^
// tweak at bytes 1..4), truncated to lambda/8 bytes; base = salt[0, lambda/8) zero-padded,
// domain XORed at byte 5. AES-128 at level 1 (two blocks per plane set), Rijndael-256 at
// levels 3 and 5 (key: the seed zero-padded to 32 bytes; one block per plane set). The
// aes_keccak sets commit to the leaves with SHA3, the keccak_keccak sets also expand the tree
// and the rows with SHA3 and SHAKE (cuda/perk_keccak_device.hpp), as the CPU does.
#pragma once

#include <tempo/keccak/detail/device.hpp>  // tempo::keccak's per-thread Keccak-p code
#include <tempo/voleith/detail/aes_planes.hpp>
#include <tempo/voleith/detail/grind_device.hpp>  // the grinding's shared least counter
#include <tempo/voleith/detail/rijndael256_planes.hpp>

#include "cuda/perk_prove.hpp"

#define TEMPO_PERK_HD TEMPO_VOLEITH_HD
#define TEMPO_PERK_UNROLL TEMPO_VOLEITH_UNROLL

namespace tempo::perk::dev {

using tempo::voleith::dev::least_counter;
using tempo::voleith::dev::load_le64;
using tempo::voleith::dev::offer_counter;
using tempo::voleith::dev::Planes;
using tempo::voleith::dev::store_le64;
using tempo::voleith::dev::store_le64_fast;
using tempo::voleith::dev::load_le64_fast;
using tempo::voleith::dev::u32;
using tempo::voleith::dev::u64;
using tempo::voleith::dev::u8;

// Domain bytes (params.hpp).
inline constexpr u32 dom_h1 = 0x01, dom_h2_1 = 0x12, dom_h2_2 = 0x22, dom_h2_3 = 0x32, dom_h4 = 0x04, dom_prg1 = 0x05,
                    dom_prg2 = 0x06, dom_com1 = 0x07, dom_com2_0 = 0x08, dom_com2_1 = 0x18;
inline constexpr u32 suffix_shake = 0x1F, suffix_sha3 = 0x06;
inline constexpr u32 max_kappa = 12, max_tau = 32, max_open = 16 * max_tau, max_ch3 = 64;
// Threads per signature of the opening stage (Stage::open).
inline constexpr u32 open_lanes = 32;
// Threads per signature in the grinding search (one warp: the lanes run in step).
inline constexpr u32 grind_lanes = 32;

// What the kernels know about a parameter set (detail::ParamSet without the host parts).
struct Shape {
  u32 level, lb, tau, tau1, kappa1, kappa2, tau_prime, mu1, mu2;
  u32 vb;           // vole_bytes(): one VOLE row
  u32 prg2_blocks;  // PRG2 blocks per row
  u32 rs;           // a PRG2 row in the scratch: prg2_blocks * lb rounded up to 8 bytes
  u32 sha3_rate;    // the hash's rate in bytes (SHA3-256/384/512)
  u32 shake_rate;   // the PRG's (SHAKE128/256)
  u32 chall_dec_bits, w, ch3_bytes, t_open;
  ProofShape p;
  bool aes_prg;     // the tree's PRG and PRG2 with AES (else SHA3 and SHAKE: keccak_keccak)
  bool aes_commit;  // the leaf commitments with AES (else SHA3: aes_keccak, keccak_keccak)
  TEMPO_PERK_HD u32 ch1_bytes() const { return 5 * lb + 8; }
  TEMPO_PERK_HD u32 ch3_bits() const { return chall_dec_bits + w; }
  // Heap index of leaf `leaf` of subtree `e` (params.hpp leaf_index).
  TEMPO_PERK_HD u32 leaf_index(u32 e, u32 leaf) const {
    const u32 l = leaf < (1u << kappa2) ? leaf * tau + e : (1u << kappa2) * tau + (leaf - (1u << kappa2)) * tau1 + e;
    return l + leaf_offset();
  }
  // ggm_tree.c MAX_OPEN_NODES: ceil(log2(leaves)) * tau.
  TEMPO_PERK_HD u32 open_capacity() const {
    u32 r = 0;
    while ((1u << r) < leaves()) ++r;
    return r * tau;
  }
  TEMPO_PERK_HD u32 cb() const { return 2 * lb; }  // a commitment, a hash
  TEMPO_PERK_HD u32 leaves() const { return (tau1 << kappa1) + ((tau - tau1) << kappa2); }
  TEMPO_PERK_HD u32 nodes() const { return 2 * leaves() - 1; }
  TEMPO_PERK_HD u32 leaf_offset() const { return leaves() - 1; }
  TEMPO_PERK_HD u32 k_of(u32 e) const { return e < tau1 ? kappa1 : kappa2; }
  TEMPO_PERK_HD u32 mu_of(u32 e) const { return e < tau_prime ? mu1 : mu2; }
  TEMPO_PERK_HD u32 rho() const { return mu1 * tau_prime + mu2 * (tau - tau_prime); }
  // Subtree e's rows in the scratch (subtree-major) and its first VOLE row.
  TEMPO_PERK_HD u32 first_leaf(u32 e) const {
    return e <= tau1 ? e << kappa1 : (tau1 << kappa1) + ((e - tau1) << kappa2);
  }
  TEMPO_PERK_HD u32 first_row(u32 e) const {
    return e <= tau_prime ? e * mu1 : tau_prime * mu1 + (e - tau_prime) * mu2;
  }
  // Heap index -> (subtree, leaf) (params.hpp subtree_and_leaf).
  TEMPO_PERK_HD void subtree_and_leaf(u32 index, u32& e, u32& leaf) const {
    index -= leaf_offset();
    if (index < (1u << kappa2) * tau) {
      e = index % tau;
      leaf = index / tau;
    } else {
      index -= (1u << kappa2) * tau;
      e = index % tau1;
      leaf = index / tau1 + (1u << kappa2);
    }
  }
};

TEMPO_PERK_HD u32 round8(u32 x) { return (x + 7) / 8 * 8; }

// Byte layouts of one signature's items (host and device agree through these).
struct Layout {
  Shape s;
  u32 in_extra = 0;  // bytes after mu in each input item (the verifier's, perk_verify.hpp)
  // input:  root seed (lb) | salt (2 lb) | mu (2 lb) | in_extra bytes
  TEMPO_PERK_HD u32 in_salt() const { return s.lb; }
  TEMPO_PERK_HD u32 in_mu() const { return 3 * s.lb; }
  TEMPO_PERK_HD u32 in_stride() const { return 5 * s.lb + in_extra; }
  // output: c ((tau - 1) vb) | u_tilde (vhb) | t (n u16) | a ((d + 1) ext u16) | ch2 (2 lb) |
  //         ctr (u64) | ch3 (ch3_bytes) | pdecom (t_open lb) | com_e (tau 2 lb); integers
  //         little-endian
  TEMPO_PERK_HD u32 out_u_tilde() const { return (s.tau - 1) * s.vb; }
  TEMPO_PERK_HD u32 out_t() const { return out_u_tilde() + s.p.vhb(); }
  TEMPO_PERK_HD u32 out_a() const { return out_t() + 2 * s.p.n; }
  TEMPO_PERK_HD u32 out_ch2() const { return out_a() + 2 * (s.p.d + 1) * s.p.ext; }
  TEMPO_PERK_HD u32 out_ctr() const { return out_ch2() + s.cb(); }
  TEMPO_PERK_HD u32 out_ch3() const { return out_ctr() + 8; }
  TEMPO_PERK_HD u32 out_pdecom() const { return out_ch3() + s.ch3_bytes; }
  TEMPO_PERK_HD u32 out_com() const { return out_pdecom() + s.t_open * s.lb; }
  TEMPO_PERK_HD u32 out_stride() const { return out_com() + s.tau * s.cb(); }
  // Device scratch per signature: the tree, the commitments, the PRG2 rows, the quarters'
  // hashes, and the proof's state (st): u_e and the VOLE rows v (rows k_e .. mu_e - 1 of each
  // subtree zero), h_com, ch1, the rows' VOLEHashes, h_V, the witness rows' shares (u16), the
  // alphas (SHAKE's output bytes: 11 bits each), the rows' shares of a (u16), the grinding
  // search's smallest valid counter (u64). Every part 8-byte aligned.
  TEMPO_PERK_HD u64 nodes_bytes() const { return u64(s.nodes()) * s.lb; }
  TEMPO_PERK_HD u64 com_bytes() const { return u64(s.leaves()) * s.cb(); }
  TEMPO_PERK_HD u64 rows_bytes() const { return u64(s.leaves()) * s.rs; }
  TEMPO_PERK_HD u64 hq_bytes() const { return 4 * u64(s.cb()); }
  TEMPO_PERK_HD u32 row_words() const {
    return 1 + s.p.d * s.p.ext + s.p.checks() * (1 + 2 * s.p.ext);
  }
  TEMPO_PERK_HD u32 st_u() const { return 0; }
  TEMPO_PERK_HD u32 st_v() const { return round8(s.tau * s.vb); }
  TEMPO_PERK_HD u32 st_hcom() const { return st_v() + round8(s.p.rho * s.vb); }
  TEMPO_PERK_HD u32 st_ch1() const { return st_hcom() + s.cb(); }
  TEMPO_PERK_HD u32 st_vh() const { return st_ch1() + round8(s.ch1_bytes()); }
  TEMPO_PERK_HD u32 st_hv() const { return st_vh() + round8(s.p.rho * s.p.vhb()); }
  TEMPO_PERK_HD u32 st_rows() const { return st_hv() + s.cb(); }
  TEMPO_PERK_HD u32 st_alphas() const { return st_rows() + round8(2 * s.p.n * row_words()); }
  TEMPO_PERK_HD u32 alpha_bytes() const { return round8((11 * s.p.alphas() * s.p.ext + 7) / 8); }
  TEMPO_PERK_HD u32 st_shares() const { return st_alphas() + alpha_bytes(); }
  TEMPO_PERK_HD u32 st_ctr() const { return st_shares() + round8(2 * s.p.n * (s.p.d + 1) * s.p.ext); }
  TEMPO_PERK_HD u64 st_bytes() const { return st_ctr() + 8; }
};

// One chunk of `count` signatures: inputs and outputs (engine buffers, any alignment) and
// the scratch arrays (count copies each).
struct Args {
  Layout lay;
  u64 count;
  const u8* in;
  u8* out;
  u8* nodes;
  u8* com;
  u8* rows;
  u8* hq;
  u8* st;
};

// ---- the AES PRF -------------------------------------------------------------------------
// base: the 32-byte PRF base block as four little-endian words.
TEMPO_PERK_HD void prf_base(const Shape& s, const u8* salt, u32 domain, u64 (&base)[4]) {
  TEMPO_PERK_UNROLL
  for (u32 w = 0; w < 4; ++w) base[w] = 8 * w < s.lb ? load_le64(salt + 8 * w) : 0;
  base[0] ^= u64(domain) << 40;
}

TEMPO_PERK_HD void put_bytes(u8* out, u64 v, u32 n) {
  if (n == 8) {
    store_le64(out, v);
    return;
  }
  for (u32 i = 0; i < n; ++i) out[i] = u8(v >> (8 * i));
}

// AES-128: blocks [0, nblocks) (nblocks even) of the key's stream, 16 bytes each, to out.
TEMPO_PERK_HD void prf128(const tempo::voleith::dev::RoundKeys& k, const u64 (&base)[4], u32 tweak, u32 nblocks,
                          u8* out) {
  const u64 t = u64(tweak) << 8;
  for (u32 b = 0; b < nblocks; b += 2) {
    const u64 w[4] = {base[0] ^ t ^ b, base[1], base[0] ^ t ^ (b + 1), base[1]};
    u64 o[4];
    tempo::voleith::dev::encrypt_pair(k, w, o);
    TEMPO_PERK_UNROLL
    for (u32 q = 0; q < 4; ++q) store_le64_fast(out + 16 * b + 8 * q, o[q]);
  }
}

// Rijndael-256: blocks [0, nblocks), the first lb bytes of each, to out + b * lb.
TEMPO_PERK_HD void prf256(const tempo::voleith::dev::RoundKeys256& k, u32 lb, const u64 (&base)[4], u32 tweak,
                          u32 nblocks, u8* out) {
  const u64 t = u64(tweak) << 8;
  for (u32 b = 0; b < nblocks; ++b) {
    const u64 w[4] = {base[0] ^ t ^ b, base[1], base[2], base[3]};
    Planes st = tempo::voleith::dev::to_planes(w);
    tempo::voleith::dev::encrypt256(st, k);
    u64 o[4];
    tempo::voleith::dev::from_planes(st, o);
    TEMPO_PERK_UNROLL
    for (u32 q = 0; q < 4; ++q)
      if (8 * q < lb) store_le64_fast(out + lb * b + 8 * q, o[q]);
  }
}

TEMPO_PERK_HD void key256(const Shape& s, const u8* seed, tempo::voleith::dev::RoundKeys256& k) {
  u8 key[32];
  for (u32 i = 0; i < 32; ++i) key[i] = i < s.lb ? seed[i] : u8(0);
  tempo::voleith::dev::expand_key256(key, k);
  for (u32 i = 0; i < 32; ++i) key[i] = 0;  // the seed is secret
}

// The Keccak forms of the sets without AES there (cuda/perk_keccak_device.hpp, included at
// the end: they need the sponge below).
TEMPO_PERK_HD void keccak_expand_node(const Shape& s, const u8* salt, const u8* seed, u32 index, u8* out);
TEMPO_PERK_HD void keccak_commit(const Shape& s, const u8* salt, const u8* seed, u32 e, u32 leaf_no, u8* com);
TEMPO_PERK_HD void keccak_prg2(const Shape& s, const u8* salt, const u8* seed, u8* row);

// The two children of a tree node (PRG1, tweak = the node's index): 2 lb bytes to out.
TEMPO_PERK_HD void expand_node(const Shape& s, const u8* salt, const u8* seed, u32 index, u8* out) {
  if (!s.aes_prg) {
    keccak_expand_node(s, salt, seed, index, out);
    return;
  }
  u64 base[4];
  prf_base(s, salt, dom_prg1, base);
  if (s.level == 1) {
    tempo::voleith::dev::RoundKeys k;
    tempo::voleith::dev::expand_key(seed, k);
    prf128(k, base, index, 2, out);
  } else {
    tempo::voleith::dev::RoundKeys256 k;
    key256(s, seed, k);
    prf256(k, s.lb, base, index, 2, out);
  }
}

// A leaf: its commitment (2 lb bytes) and its PRG2 row (prg2_blocks * lb bytes), each with
// AES or Keccak as the set says (no set has AES commitments without the AES PRG).
TEMPO_PERK_HD void leaf(const Shape& s, const u8* salt, const u8* seed, u32 e, u32 leaf_no, u8* com, u8* row) {
  if (!s.aes_commit) keccak_commit(s, salt, seed, e, leaf_no, com);
  if (!s.aes_prg) {
    keccak_prg2(s, salt, seed, row);
    return;
  }
  u64 bc[4], bp[4];
  prf_base(s, salt, dom_com1, bc);
  prf_base(s, salt, dom_prg2, bp);
  const u32 tweak = e | leaf_no << 8;  // leaf_commit_aes.h: tau || n (16 bits)
  if (s.level == 1) {
    tempo::voleith::dev::RoundKeys k;
    tempo::voleith::dev::expand_key(seed, k);
    if (s.aes_commit) prf128(k, bc, tweak, 2, com);
    prf128(k, bp, 0, s.prg2_blocks, row);
  } else {
    tempo::voleith::dev::RoundKeys256 k;
    key256(s, seed, k);
    if (s.aes_commit) prf256(k, s.lb, bc, tweak, 2, com);
    prf256(k, s.lb, bp, 0, s.prg2_blocks, row);
  }
}

// ---- Keccak sponge (sponge.hpp's Sponge, one per thread) ---------------------------------
// The state is indexed only by compile-time constants (run-time lanes by predicated selects
// over unrolled loops), so nvcc keeps it in registers; whole blocks are absorbed lane-wise.
struct Sponge {
  u64 a[25];
  u32 rate, pos, suffix;
  TEMPO_PERK_HD void init(u32 rate_bytes, u32 suffix_byte) {
    TEMPO_PERK_UNROLL
    for (int i = 0; i < 25; ++i) a[i] = 0;
    rate = rate_bytes;
    pos = 0;
    suffix = suffix_byte;
  }
  TEMPO_PERK_HD void xor_lane(u32 lane, u64 v) {
    TEMPO_PERK_UNROLL
    for (u32 l = 0; l < 25; ++l)
      if (l == lane) a[l] ^= v;
  }
  TEMPO_PERK_HD u64 lane(u32 lane_index) const {
    u64 r = 0;
    TEMPO_PERK_UNROLL
    for (u32 l = 0; l < 25; ++l) r = l == lane_index ? a[l] : r;
    return r;
  }
  TEMPO_PERK_HD void xor_byte(u32 i, u32 v) { xor_lane(i / 8, u64(v) << (8 * (i % 8))); }
  TEMPO_PERK_HD void permute() {
    tempo::keccak::cuda::keccak_p_loop(a, 24);
    pos = 0;
  }
  TEMPO_PERK_HD void absorb(const u8* in, u64 n) {
    while (n > 0) {
      if (pos == 0 && n >= rate) {  // a whole block (the rates are multiples of 8, at most 21 lanes)
        TEMPO_PERK_UNROLL
        for (u32 l = 0; l < 21; ++l)
          if (8 * l < rate) a[l] ^= load_le64(in + 8 * l);
        in += rate;
        n -= rate;
        permute();
        continue;
      }
      if (pos % 8 == 0 && n >= 8) {  // whole lanes
        xor_lane(pos / 8, load_le64(in));
        pos += 8;
        in += 8;
        n -= 8;
      } else {
        xor_byte(pos, *in);
        ++pos;
        ++in;
        --n;
      }
      if (pos == rate) permute();
    }
  }
  TEMPO_PERK_HD void finalize(u32 domain) {
    const u8 d = u8(domain);
    absorb(&d, 1);
    xor_byte(pos, suffix);
    xor_byte(rate - 1, 0x80);
    permute();
  }
  TEMPO_PERK_HD void squeeze(u8* out, u64 n) {
    while (n > 0) {
      if (pos == rate) permute();
      if (pos % 8 == 0 && n >= 8) {  // whole lanes
        store_le64(out, lane(pos / 8));
        pos += 8;
        out += 8;
        n -= 8;
      } else {
        *out = u8(lane(pos / 8) >> (8 * (pos % 8)));
        ++pos;
        ++out;
        --n;
      }
    }
  }
};

// ---- the stages ------------------------------------------------------------------------
enum class Stage : u32 {
  root,
  expand,
  leaves,
  hash_quarters,
  hash_final,
  reduce,
  challenge1,
  vole_hashes,
  hash_rows,
  pkp_rows,
  challenge2,
  pkp_mix,
  pkp_final,
  grind,
  open
};

struct Launch {
  Stage stage;
  u32 first;    // expand: nodes [first, first + per_sig) of each signature
  u32 per_sig;  // threads per signature
};

// The tree's levels of internal nodes, root first: f(first node, nodes in the level).
template <class F>
inline void for_each_level(const Shape& s, F&& f) {
  const u32 internal = s.leaves() - 1;
  for (u32 first = 0; first < internal; first = 2 * first + 1) {
    const u32 last = 2 * first + 1 < internal ? 2 * first + 1 : internal;
    f(first, last - first);
  }
}

// The launches of one chunk, in order (the kernels' order; the host emulation's order).
template <class F>
inline void for_each_stage(const Layout& lay, F&& f) {
  const Shape& s = lay.s;
  f(Launch{Stage::root, 0, 1});
  for_each_level(s, [&](u32 first, u32 count) { f(Launch{Stage::expand, first, count}); });
  f(Launch{Stage::leaves, 0, s.leaves()});
  f(Launch{Stage::hash_quarters, 0, 4});
  f(Launch{Stage::hash_final, 0, 1});
  f(Launch{Stage::reduce, 0, s.tau * (s.rs / 8)});
  f(Launch{Stage::challenge1, 0, 1});
  f(Launch{Stage::vole_hashes, 0, s.p.rho + 1});
  f(Launch{Stage::hash_rows, 0, 1});
  f(Launch{Stage::pkp_rows, 0, s.p.n});
  f(Launch{Stage::challenge2, 0, 1});
  f(Launch{Stage::pkp_mix, 0, s.p.n});
  f(Launch{Stage::pkp_final, 0, 1});
  f(Launch{Stage::grind, 0, grind_lanes});
  f(Launch{Stage::open, 0, open_lanes});
}

TEMPO_PERK_HD void put_le16(u8* p, u32 v) {
  p[0] = u8(v);
  p[1] = u8(v >> 8);
}
TEMPO_PERK_HD u32 get_le16(const u8* p) { return u32(p[0]) | u32(p[1]) << 8; }


// The hidden leaves of ch3 (decode_challenge) and the opening's nodes, sorted
// (ggm_tree.c compute_s_indexes, forest.cpp open_indexes): each path to the root adds its
// siblings until it meets a node already listed (an earlier path's sibling, now on a hidden
// path), which leaves the list. False when the list outgrows the reference's bound or
// t_open seeds.
TEMPO_PERK_HD bool open_nodes(const Shape& s, const u8* ch3, u32 (&hidden)[max_tau], u32 (&sorted)[max_open],
                              u32& count) {
  const u32 cap = s.open_capacity();
  count = 0;
  u32 bit = 0;
  for (u32 e = 0; e < s.tau; ++e) {
    const u32 k = s.k_of(e);
    hidden[e] = s.leaf_index(e, read_bits(ch3, bit, k));
    bit += k;
    for (u32 node = hidden[e]; node > 0; node = (node - 1) / 2) {
      u32 at = 0;
      while (at < count && sorted[at] < node) ++at;
      if (at < count && sorted[at] == node) {
        for (u32 j = at; j + 1 < count; ++j) sorted[j] = sorted[j + 1];
        --count;
        break;
      }
      if (count >= cap) return false;
      const u32 sib = (node & 1u) ? node + 1 : node - 1;
      u32 pos = at;  // sib > node when node is odd: move past node's place
      while (pos < count && sorted[pos] <= sib) ++pos;
      for (u32 j = count; j > pos; --j) sorted[j] = sorted[j - 1];
      sorted[pos] = sib;
      ++count;
    }
  }
  return count <= s.t_open;
}

// ch3 = H2_3(ch2, a, ctr) from the sponge of (ch2, a); true when its w bits after the leaf
// indices are zero.
TEMPO_PERK_HD bool challenge3(const Shape& s, const Sponge& prefix, u64 ctr, u8* ch3) {
  Sponge g = prefix;
  u8 c[8];
  store_le64(c, ctr);
  g.absorb(c, 8);
  g.finalize(dom_h2_3);
  g.squeeze(ch3, s.ch3_bytes);
  const u32 tail = s.ch3_bits() % 8;
  if (tail != 0) ch3[s.ch3_bytes - 1] &= u8((1u << tail) - 1);
  return read_bits(ch3, s.chall_dec_bits, s.w) == 0;
}

// ch2 = H2_2(ch1, u_tilde, h_V, t) (t: n little-endian u16) and the PKP challenge's bytes:
// alpha_0 .. = SHAKE(ch2 || H4) read 11 bits at a time, squeezed lane by lane (pkp_mix and the
// verifier read each row's alphas from them).
TEMPO_PERK_HD void second_challenge(const Layout& lay, const u8* ch1, const u8* u_tilde, const u8* h_v, const u8* t,
                                    u8* ch2, u8* alphas) {
  const Shape& s = lay.s;
  Sponge h;
  h.init(s.sha3_rate, suffix_sha3);
  h.absorb(ch1, s.ch1_bytes());
  h.absorb(u_tilde, s.p.vhb());
  h.absorb(h_v, s.cb());
  h.absorb(t, 2 * s.p.n);
  h.finalize(dom_h2_2);
  h.squeeze(ch2, s.cb());
  Sponge g;
  g.init(s.shake_rate, suffix_shake);
  g.absorb(ch2, s.cb());
  g.finalize(dom_h4);
  g.squeeze(alphas, lay.alpha_bytes());
}

// H2_3's sponge after ch2 and a ((d + 1) ext little-endian u16).
TEMPO_PERK_HD void third_prefix(const Shape& s, const u8* ch2, const u8* a, Sponge& prefix) {
  prefix.init(s.shake_rate, suffix_shake);
  prefix.absorb(ch2, s.cb());
  prefix.absorb(a, 2 * (s.p.d + 1) * s.p.ext);
}

// ConvertToVOLE's sums of 8-byte column word w of subtree e's PRG2 rows (leaf-major in
// `rows`): sum of all rows, and col[j] = the rows m with bit j set, row m being leaf m ^ delta's
// (the signer's delta is 0; the verifier's is the hidden leaf).
TEMPO_PERK_HD void column_sums(const Shape& s, const u8* rows, u32 e, u32 w, u32 delta, u64& sum,
                               u64 (&col)[max_kappa]) {
  const u8* row = rows + u64(s.first_leaf(e)) * s.rs + 8 * w;
  sum = 0;
  TEMPO_PERK_UNROLL
  for (u32 j = 0; j < max_kappa; ++j) col[j] = 0;
  for (u32 x = 0; x < (1u << s.k_of(e)); ++x, row += s.rs) {
    const u64 v = load_le64(row);
    const u32 m = x ^ delta;
    sum ^= v;
    TEMPO_PERK_UNROLL
    for (u32 j = 0; j < max_kappa; ++j) col[j] ^= v & (0 - u64((m >> j) & 1u));
  }
}

// Thread `t` of launch `l` (t < count * l.per_sig).
TEMPO_PERK_HD void run_thread(const Args& a, const Launch& l, u64 t) {
  const Layout& lay = a.lay;
  const Shape& s = lay.s;
  const u64 sig = t / l.per_sig;
  const u32 r = u32(t % l.per_sig);
  const u8* in = a.in + sig * lay.in_stride();
  const u8* salt = in + lay.in_salt();
  u8* out = a.out + sig * lay.out_stride();
  u8* nodes = a.nodes + sig * lay.nodes_bytes();
  u8* com = a.com + sig * lay.com_bytes();
  u8* rows = a.rows + sig * lay.rows_bytes();
  u8* hq = a.hq + sig * lay.hq_bytes();
  u8* st = a.st + sig * lay.st_bytes();
  const u32 lb = s.lb, cb = s.cb();
  switch (l.stage) {
    case Stage::root:
      for (u32 i = 0; i < lb; ++i) nodes[i] = in[i];
      break;
    case Stage::expand: {
      const u32 node = l.first + r;
      expand_node(s, salt, nodes + u64(node) * lb, node, nodes + (2 * u64(node) + 1) * lb);
      break;
    }
    case Stage::leaves: {
      u32 e, leaf_no;
      s.subtree_and_leaf(s.leaf_offset() + r, e, leaf_no);
      leaf(s, salt, nodes + u64(s.leaf_offset() + r) * lb, e, leaf_no, com + u64(r) * cb,
           rows + u64(s.first_leaf(e) + leaf_no) * s.rs);
      break;
    }
    case Stage::hash_quarters: {
      const u64 quarter = u64(s.leaves() / 4) * cb;
      Sponge h;
      h.init(s.sha3_rate, suffix_sha3);
      h.absorb(salt, 2 * lb);
      h.absorb(com + r * quarter, quarter);
      h.finalize(dom_com2_1);
      h.squeeze(hq + r * cb, cb);
      break;
    }
    case Stage::hash_final: {
      Sponge h;
      h.init(s.sha3_rate, suffix_sha3);
      h.absorb(salt, 2 * lb);
      h.absorb(hq, 4 * u64(cb));
      h.finalize(dom_com2_0);
      h.squeeze(st + lay.st_hcom(), cb);
      break;
    }
    case Stage::reduce: {
      const u32 words = s.rs / 8, e = r / words, w = r % words, k = s.k_of(e);
      if (8 * w >= s.vb) break;  // past the row's end: nothing to write
      const u32 n = 8 * w + 8 <= s.vb ? 8 : s.vb - 8 * w;
      u64 sum = 0, col[max_kappa];
      column_sums(s, rows, e, w, 0, sum, col);
      put_bytes(st + lay.st_u() + u64(e) * s.vb + 8 * w, sum, n);
      u8* v = st + lay.st_v() + u64(s.first_row(e)) * s.vb + 8 * w;
      for (u32 j = 0; j < s.mu_of(e); ++j) put_bytes(v + u64(j) * s.vb, j < k ? col[j] : 0, n);
      break;
    }
    case Stage::challenge1: {
      const u8* u = st + lay.st_u();
      for (u32 e = 1; e < s.tau; ++e)  // c_(e-1) = u_0 ^ u_e: the signature's first bytes
        for (u32 b = 0; b < s.vb; ++b) out[u64(e - 1) * s.vb + b] = u8(u[b] ^ u[u64(e) * s.vb + b]);
      Sponge g;
      g.init(s.shake_rate, suffix_shake);
      g.absorb(salt, 2 * lb);
      g.absorb(in + lay.in_mu(), cb);
      g.absorb(st + lay.st_hcom(), cb);
      g.absorb(out, u64(s.tau - 1) * s.vb);
      g.finalize(dom_h2_1);
      g.squeeze(st + lay.st_ch1(), s.ch1_bytes());
      break;
    }
    case Stage::vole_hashes: {
      const u8* ch1 = st + lay.st_ch1();
      if (r < s.p.rho)
        vole_hash(s.p, ch1, st + lay.st_v() + u64(r) * s.vb, st + lay.st_vh() + u64(r) * s.p.vhb());
      else
        vole_hash(s.p, ch1, st + lay.st_u(), out + lay.out_u_tilde());
      break;
    }
    case Stage::hash_rows: {
      Sponge h;
      h.init(s.sha3_rate, suffix_sha3);
      h.absorb(st + lay.st_vh(), u64(s.p.rho) * s.p.vhb());
      h.finalize(dom_h1);
      h.squeeze(st + lay.st_hv(), cb);
      break;
    }
    case Stage::pkp_rows: {
      const u8* u = st + lay.st_u();
      const u8* v = st + lay.st_v();
      auto* row = reinterpret_cast<u16*>(st + lay.st_rows()) + u64(r) * lay.row_words();
      u16 t_i;
      if (s.level == 1)
        t_i = pkp_row<12, 3>(s.p, u, v, s.vb, r, row);
      else if (s.level == 3)
        t_i = pkp_row<18, 4>(s.p, u, v, s.vb, r, row);
      else
        t_i = pkp_row<24, 4>(s.p, u, v, s.vb, r, row);
      put_le16(out + lay.out_t() + 2 * r, t_i);
      break;
    }
    case Stage::challenge2:
      second_challenge(lay, st + lay.st_ch1(), out + lay.out_u_tilde(), st + lay.st_hv(), out + lay.out_t(),
                       out + lay.out_ch2(), st + lay.st_alphas());
      break;
    case Stage::pkp_mix: {
      const auto* row = reinterpret_cast<const u16*>(st + lay.st_rows()) + u64(r) * lay.row_words();
      const u8* al = st + lay.st_alphas();
      auto* f = reinterpret_cast<u16*>(st + lay.st_shares()) + u64(r) * (s.p.d + 1) * s.p.ext;
      if (s.level == 1)
        pkp_mix<12, 3>(s.p, row, al, r, f);
      else if (s.level == 3)
        pkp_mix<18, 4>(s.p, row, al, r, f);
      else
        pkp_mix<24, 4>(s.p, row, al, r, f);
      break;
    }
    case Stage::pkp_final: {
      const auto* shares = reinterpret_cast<const u16*>(st + lay.st_shares());
      u16 acc[5 * 24];
      if (s.level == 1)
        pkp_final<12, 3>(s.p, shares, st + lay.st_u(), st + lay.st_v(), s.vb, acc);
      else if (s.level == 3)
        pkp_final<18, 4>(s.p, shares, st + lay.st_u(), st + lay.st_v(), s.vb, acc);
      else
        pkp_final<24, 4>(s.p, shares, st + lay.st_u(), st + lay.st_v(), s.vb, acc);
      for (u32 q = 0; q < (s.p.d + 1) * s.p.ext; ++q) put_le16(out + lay.out_a() + 2 * q, acc[q]);
      *reinterpret_cast<u64*>(st + lay.st_ctr()) = ~u64(0);  // the grinding search: none found yet
      break;
    }
    case Stage::grind: {
      Sponge prefix;
      third_prefix(s, out + lay.out_ch2(), out + lay.out_a(), prefix);
      u64* best = reinterpret_cast<u64*>(st + lay.st_ctr());
      u8 ch3[max_ch3];
      u32 hidden[max_tau], sorted[max_open], count = 0;
      for (u64 ctr = r; ctr <= least_counter(best); ctr += grind_lanes) {
        if (challenge3(s, prefix, ctr, ch3) && open_nodes(s, ch3, hidden, sorted, count)) {
          offer_counter(best, ctr);
          break;
        }
      }
      break;
    }
    case Stage::open: {
      // open_lanes threads per signature: each finds the opening (the hashes and the sorted
      // node list cost the same on one lane as on a warp's), then copies its share of it.
      Sponge prefix;
      third_prefix(s, out + lay.out_ch2(), out + lay.out_a(), prefix);
      const u64 ctr = least_counter(reinterpret_cast<const u64*>(st + lay.st_ctr()));
      u8 ch3[max_ch3];
      u32 hidden[max_tau], sorted[max_open], count = 0;
      (void)challenge3(s, prefix, ctr, ch3);
      (void)open_nodes(s, ch3, hidden, sorted, count);  // valid: the grinding search checked it
      if (r == 0) {
        store_le64(out + lay.out_ctr(), ctr);
        for (u32 b = 0; b < s.ch3_bytes; ++b) out[lay.out_ch3() + b] = ch3[b];
      }
      u8* pdecom = out + lay.out_pdecom();
      for (u32 j = r; j < s.t_open; j += l.per_sig)
        for (u32 b = 0; b < lb; b += 8)
          store_le64_fast(pdecom + j * lb + b, j < count ? load_le64_fast(nodes + u64(sorted[j]) * lb + b) : 0);
      u8* ce = out + lay.out_com();
      for (u32 e = r; e < s.tau; e += l.per_sig)
        for (u32 b = 0; b < cb; b += 8)
          store_le64_fast(ce + e * cb + b, load_le64_fast(com + u64(hidden[e] - s.leaf_offset()) * cb + b));
      break;
    }
  }
}

}  // namespace tempo::perk::dev

#include "cuda/perk_keccak_device.hpp"  // the declarations above: the Keccak PRGs and commitment
