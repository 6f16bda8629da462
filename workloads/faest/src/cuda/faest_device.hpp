// The GPU batch path's per-thread work: a whole signature (sign) or verification after
// the host's front half, for many signatures. Shared by the kernels (faest_kernels.cu) and
// the host emulation in the tests, which runs the same functions in the kernels' order
// with the kernels' thread decomposition (for_each_stage below).
//
// Stages of one chunk of signatures (one kernel launch each, threads = items below, but the
// pairs of kStagePairs, which share a launch; for_each_stage gives the order):
//   root / scatter   the tree's given nodes: the root (sign) or the opened co-path (verify)
//   expand (level)   GGM: thread per (signature, two nodes of the level); PRG(node, tweak =
//                    index) of both nodes on one key schedule (prg2)
//   leaves           thread per (signature, two neighbouring leaves): each leaf's seed and
//                    commitment (PRG_4 + leaf hash; the two leaves' PRGs share key
//                    schedules); the two seeds wait at the start of their pair row
//   leaf_rows        the same threads: the two VOLE rows r_x = PRG(seed, tweak i ^ 2^31)
//                    (210 bytes) as one pair row on bit planes (prg2_planes: never converted
//                    to bytes), over the seeds
//   hash_instances   thread per (signature, instance): h_i = H1(commitments of instance i),
//                    in the launch of leaf_rows (independent: the serial hashes run beside
//                    the rows' wide AES work)
//   hash_final       sign: thread per signature: h = H1(h_0 || ... || h_tau-1) (verify:
//                    chall1's thread computes it first)
//   reduce           thread per (signature, instance, 16-byte block of the rows): u = sum
//                    r_x, column j = sum of r_x over x with bit j set, summed on the planes
//                    and converted to bytes once per column (verify: + c_i where delta_i's
//                    bit j is set)
//   front            sign: thread per (signature, 2 bytes of the corrections): c_i = u_0 + u_i
//                    and d = w + u_0 into the signature's front
//   chall1           thread per signature: chall1 (sign: then u_tilde); verify: h first
//                    (hash_final's work), then chall1 from the signature's c_i
//   col_hash         thread per (signature, column): its VOLEHash (verify: + u_tilde where
//                    chall3's bit is set)
//   chall2           thread per signature: chall2 = H2_2(chall1, u_tilde, hashes, d)
//   rows             thread per (signature, row byte): 8 of QuickSilver's rows (tags or keys)
//                    from one byte of every column (verify: corrected by delta * d)
//   key_schedule     thread per (signature, bit of a word): that bit of every word of the
//                    expanded key's tags or keys (the key schedule's linear part)
//   prove_keys       thread per (signature, round key): QuickSilver's constraints of the
//                    round key's four S-boxes, hashed into the signature's part = round key
//   round_bytes      thread per (signature, AES round, state byte): the byte's norm constraint
//                    (hashed into a part of its own) and its S-box input, kept in the scratch
//                    (the rounds' inputs come from the witness: independent)
//   round_columns    thread per (signature, AES round, column): ShiftRows, MixColumns, the
//                    round key and the column's S-box output constraints (a part of its own)
//   round_join       thread per (signature, AES round): the round's 20 parts chained into
//                    part 10 + round
//   prove_join       thread per signature: the parts' hashes chained; prover (a0, a1, a2) or
//                    verifier (a0)
//   grind            sign: kGrindLanes threads per signature, lane r trying counters r,
//                    r + kGrindLanes, ... and keeping the least counter whose chall3 has
//                    w_grind zero bits and an opening within T_open (atomic min; a lane
//                    stops at its first hit or once the least hit found is below its next
//                    counter, so the result is the sequential search's); verify: thread per
//                    signature, chall3 of the given counter
//   open             sign: kOpenLanes threads per signature: each finds chall3 and the
//                    opening's node list, lane 0 writes chall3 and the counter, and each
//                    copies its share of BAVC.Open (the hidden leaves' commitments and the
//                    co-path's seeds, from the device's tree)
// The host then only copies the signature's bytes (sign) or compares chall3 (verify).
#pragma once

#include <cstddef>
#include <iterator>

#include <tempo/keccak/detail/device.hpp>  // tempo::keccak's per-thread Keccak-p code

#include <tempo/voleith/detail/aes_planes.hpp>  // the bit-plane AES (host and device)
#include <tempo/voleith/detail/clmul_device.hpp>  // carry-less products (host and device)
#include <tempo/voleith/detail/grind_device.hpp>  // the grinding's shared least counter

#include "gf_portable.hpp"  // DeviceField: GF(2^128) and GF(2^64) products (host and device)
#include "owf.hpp"          // VOLEHash and QuickSilver of one signature (host and device)

namespace tempo::faest::dev {

// The bit-plane AES and its byte helpers (u8, load_le64, Planes, prg, ...).
using namespace tempo::voleith::dev;

inline constexpr u32 ell_hat_bytes = 210;   // one VOLE row / column
inline constexpr u32 row_stride = 224;      // a PRG row on the device: 14 whole blocks
inline constexpr u32 row_blocks = row_stride / 16;
inline constexpr u32 kMaxDepth = 12;         // the deepest instance tree of any set (128s: 11)
inline constexpr u32 lambda = 128;

// What the kernels know about a parameter set (detail::ParamSet without the host parts).
struct Shape {
  u32 tau, k, tau1, L, t_open, w_grind;
  TEMPO_VOLEITH_HD u32 depth(u32 i) const { return i < tau1 ? k : k - 1; }
  TEMPO_VOLEITH_HD u32 leaves(u32 i) const { return 1u << depth(i); }
  TEMPO_VOLEITH_HD u32 first_leaf(u32 i) const { return i <= tau1 ? i << k : (tau1 << k) + ((i - tau1) << (k - 1)); }
  TEMPO_VOLEITH_HD u32 first_col(u32 i) const { return i <= tau1 ? i * k : tau1 * k + (i - tau1) * (k - 1); }
  TEMPO_VOLEITH_HD u32 nodes() const { return 2 * L - 1; }
  // The internal nodes of the tree level starting at heap node `first`: [first, level_end).
  TEMPO_VOLEITH_HD u32 level_end(u32 first) const { return 2 * first + 1 < L - 1 ? 2 * first + 1 : L - 1; }
  // BAVC.PosInTree (leaves interleaved over instances).
  TEMPO_VOLEITH_HD u32 pos_in_tree(u32 i, u32 j) const {
    const u32 half = 1u << (k - 1);
    if (j < half) return L - 1 + tau * j + i;
    return L - 1 + tau * half + tau1 * (j & (half - 1)) + i;
  }
  // Offsets in the signature's front: c_1 .. c_tau-1, u_tilde, d, a1, a2 (then the opening).
  TEMPO_VOLEITH_HD u32 off_u_tilde() const { return (tau - 1) * ell_hat_bytes; }
  TEMPO_VOLEITH_HD u32 off_d() const { return off_u_tilde() + 18; }
  TEMPO_VOLEITH_HD u32 off_a1() const { return off_d() + 160; }
  TEMPO_VOLEITH_HD u32 off_a2() const { return off_a1() + 16; }
  TEMPO_VOLEITH_HD u32 front_bytes() const { return off_a2() + 16; }
  // BAVC.Open's bytes after the front: the hidden leaves' commitments, T_open co-path nodes.
  TEMPO_VOLEITH_HD u32 decom_bytes() const { return 48 * tau + 16 * t_open; }
  // The corrections c_1 .. c_tau-1 and d in 2-byte units (Stage::front).
  TEMPO_VOLEITH_HD u32 front_units() const { return (off_u_tilde() + 160) / 2; }
  // Leaf q (instance-major order) -> instance i, leaf j.
  TEMPO_VOLEITH_HD void leaf_of(u32 q, u32& i, u32& j) const {
    if (q < (tau1 << k)) {
      i = q >> k;
      j = q & ((1u << k) - 1);
    } else {
      const u32 r = q - (tau1 << k);
      i = tau1 + (r >> (k - 1));
      j = r & ((1u << (k - 1)) - 1);
    }
  }
};

// Byte layouts of one signature's items (host and device agree through these).
struct Layout {
  Shape s;
  bool verifier;
  // sign input:   root (16) | iv (16) | uhash (48 tau) | w (160) | pk (32) | mu (32)
  // verify input: iv (16) | uhash (48 tau) | decom: hidden commitments (48 tau), co-path
  //               nodes (16 t_open) | co-path node indices (4 t_open, u32 LE, ~0 = none) |
  //               delta (4 tau) | pk (32) | mu (32) | the signature's front (front_bytes),
  //               chall3 (16), counter (4)
  TEMPO_VOLEITH_HD u32 iv() const { return verifier ? 0 : 16; }
  TEMPO_VOLEITH_HD u32 uhash() const { return iv() + 16; }
  TEMPO_VOLEITH_HD u32 hidden_com() const { return uhash() + 48 * s.tau; }
  TEMPO_VOLEITH_HD u32 copath() const { return hidden_com() + 48 * s.tau; }
  TEMPO_VOLEITH_HD u32 copath_idx() const { return copath() + 16 * s.t_open; }
  TEMPO_VOLEITH_HD u32 delta() const { return copath_idx() + 4 * s.t_open; }
  TEMPO_VOLEITH_HD u32 w() const { return uhash() + 48 * s.tau; }  // sign
  TEMPO_VOLEITH_HD u32 pk() const { return verifier ? delta() + 4 * s.tau : w() + 160; }
  TEMPO_VOLEITH_HD u32 mu() const { return pk() + 32; }
  TEMPO_VOLEITH_HD u32 sig() const { return mu() + 32; }  // verify
  TEMPO_VOLEITH_HD u32 sig_chall3() const { return sig() + s.front_bytes(); }
  TEMPO_VOLEITH_HD u32 in_stride() const { return verifier ? sig_chall3() + 20 : mu() + 32; }
  // output: sign: the signature's front (front_bytes) and opening (decom_bytes), chall3
  // (16), counter (4 LE): the signature's bytes but iv_pre, in its order; verify: the chall3
  // that the signature's counter gives (16)
  TEMPO_VOLEITH_HD u32 out_chall3() const { return verifier ? 0 : s.front_bytes() + s.decom_bytes(); }
  TEMPO_VOLEITH_HD u32 out_stride() const { return verifier ? 16 : out_chall3() + 20; }
  // The VOLE data of a signature (device scratch): h (32) | sign only: u_i (210 tau) |
  // columns (210 lambda).
  TEMPO_VOLEITH_HD u32 vole_u() const { return 32; }
  TEMPO_VOLEITH_HD u32 vole_cols() const { return verifier ? 32 : 32 + ell_hat_bytes * s.tau; }
  TEMPO_VOLEITH_HD u64 vole_bytes() const { return (u64(vole_cols()) + ell_hat_bytes * lambda + 15) / 16 * 16; }
  // Device scratch per signature: the tree, the commitments, the VOLE rows, the h_i, the
  // VOLE data, and the back half's (back_*: QuickSilver's rows and key, the column hashes,
  // the challenges).
  TEMPO_VOLEITH_HD u64 nodes_bytes() const { return u64(s.nodes()) * 16; }
  TEMPO_VOLEITH_HD u64 com_bytes() const { return u64(s.L) * 48; }
  TEMPO_VOLEITH_HD u64 rows_bytes() const { return u64(s.L) * row_stride; }
  TEMPO_VOLEITH_HD u64 hi_bytes() const { return u64(s.tau) * 32; }
  static constexpr u32 back_qs = 0, back_vt = detail::qs_scratch_gf * 16, back_chall1 = back_vt + lambda * 18,
                       back_chall2 = back_chall1 + 88, back_a0 = back_chall2 + 56, back_ctr = back_a0 + 16,
                       back_size = back_ctr + 16;
  TEMPO_VOLEITH_HD u64 back_bytes() const { return back_size; }
};
static_assert(Layout::back_size % 16 == 0);

// One chunk of `count` signatures: inputs and outputs (engine buffers, any alignment) and
// the scratch arrays (count copies each, 16-byte aligned).
struct Args {
  Layout lay;
  u64 count;
  const u8* in;
  u8* out;
  u8* nodes;
  u8* com;
  u8* rows;
  u8* hi;
  u8* vole;
  u8* back;
};

// ---- GF(2^384) leaf hash (faest-ref leaf_hash_128), constant time ---------------------
// clmul32 / clmul64: <tempo/voleith/detail/clmul_device.hpp>.
// out = uhash * x[0..16) + x[16..64) in GF(2^384) mod x^384 + x^12 + x^3 + x^2 + 1.
TEMPO_VOLEITH_HD void leaf_hash(u8* out, const u8* uhash, const u8* x) {
  u64 c[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const u64 x0 = load_le64_fast(x), x1 = load_le64_fast(x + 8);
  TEMPO_VOLEITH_UNROLL
  for (int i = 0; i < 6; ++i) {
    const u64 u = load_le64_fast(uhash + 8 * i);
    u64 lo, hi;
    clmul64(u, x0, lo, hi);
    c[i] ^= lo;
    c[i + 1] ^= hi;
    clmul64(u, x1, lo, hi);
    c[i + 1] ^= lo;
    c[i + 2] ^= hi;
  }
  TEMPO_VOLEITH_UNROLL
  for (int w = 7; w >= 6; --w) {
    const u64 t = c[w];
    c[w - 6] ^= t ^ (t << 2) ^ (t << 3) ^ (t << 12);
    c[w - 5] ^= (t >> 62) ^ (t >> 61) ^ (t >> 52);
  }
  TEMPO_VOLEITH_UNROLL
  for (int i = 0; i < 6; ++i) store_le64_fast(out + 8 * i, c[i] ^ load_le64_fast(x + 16 + 8 * i));
}

// ---- H1: SHAKE128(in || 0x01), 32 bytes out (faest-ref random_oracle) -------------------
// Lane loops are unrolled so the state stays in registers; the last block is built lane by
// lane (no local buffer): the rest of the input, the domain byte 0x01, SHAKE's 0x1F, 0x80.
TEMPO_VOLEITH_HD void h1(const u8* in, u64 len, u8* out) {
  constexpr u32 rate = 168, lanes = rate / 8;
  u64 a[25];
  TEMPO_VOLEITH_UNROLL
  for (int i = 0; i < 25; ++i) a[i] = 0;
  for (; len >= rate; len -= rate, in += rate) {
    TEMPO_VOLEITH_UNROLL
    for (u32 i = 0; i < lanes; ++i) a[i] ^= load_le64_fast(in + 8 * i);
    tempo::keccak::cuda::keccak_p_loop(a, 24);
  }
  const u32 rem = u32(len);
  const bool spill = rem + 1 == rate;  // the domain byte fills the block (kept exact)
  TEMPO_VOLEITH_UNROLL
  for (u32 i = 0; i < lanes; ++i) {
    u64 w = 0;
    for (u32 b = 0; b < 8; ++b) {
      const u32 pos = 8 * i + b;
      u32 v = pos < rem ? in[pos] : 0u;
      v ^= pos == rem ? 0x01u : 0u;
      v ^= !spill && pos == rem + 1 ? 0x1Fu : 0u;
      v ^= !spill && pos == rate - 1 ? 0x80u : 0u;
      w |= u64(v) << (8 * b);
    }
    a[i] ^= w;
  }
  if (spill) {
    tempo::keccak::cuda::keccak_p_loop(a, 24);
    a[0] ^= 0x1F;
    a[lanes - 1] ^= u64{0x80} << 56;
  }
  tempo::keccak::cuda::keccak_p_loop(a, 24);
  TEMPO_VOLEITH_UNROLL
  for (int i = 0; i < 4; ++i) store_le64_fast(out + 8 * i, a[i]);
}

// h = H1(h_0 || ... || h_tau-1) of signature `sig`, into its VOLE data's first 32 bytes: the
// signer's hash_final stage, the verifier's chall1 thread before chall1.
TEMPO_VOLEITH_HD void commitment_hash(const Args& a, u64 sig) {
  h1(a.hi + sig * a.lay.hi_bytes(), 32 * u64(a.lay.s.tau), a.vole + sig * a.lay.vole_bytes());
}

// ---- the stages ------------------------------------------------------------------------
enum class Stage : u32 {
  root, scatter, expand, leaves, leaf_rows, hash_instances, hash_final, reduce, front,
  chall1, col_hash, chall2, rows, key_schedule, prove_keys, round_bytes, round_columns, round_join,
  prove_join, grind, open
};

// Counters tried side by side per signature by the signer's grinding (two warps: H100,
// three rounds alternating, 3% faster batches of 16,384 than one warp, 128 lanes no better;
// 256 lanes made 1,024 signatures' grinding slower, 0.84 against 0.68 ms: the search is
// throughput-bound, and each lane's last round is wasted work).
inline constexpr u32 kGrindLanes = 64;
// Threads per signature of the opening stage: the node list costs each lane the same, the
// copies (about 2.4 KB per 128f signature, global-memory latency bound on one thread: 0.78
// ms for 1,024 signatures on an H100) are spread over the warp.
inline constexpr u32 kOpenLanes = 32;

struct Launch {
  Stage stage;
  u32 level;    // expand: the tree level; nodes [first, first + per_sig) of each signature
  u32 first;
  u32 per_sig;  // threads per signature
  // A second, independent stage in the same launch (also_per_sig threads per signature
  // after the first stage's threads; 0: none): a stage of a few long per-signature chains
  // beside one that fills the device, so that a small batch's chains do not run alone.
  Stage also = Stage::root;
  u32 also_per_sig = 0;
  TEMPO_VOLEITH_HD u32 threads_per_sig() const { return per_sig + also_per_sig; }
};

// The stages that share a launch (Launch::also), first stage then second: the one list that
// for_each_stage draws its pairs from and faest_kernels.cu instantiates its pair kernels from,
// so a pair launched without a kernel cannot be written. The first stage is the one of few,
// long per-signature chains: its threads come first, so its blocks are placed first and
// its chains start at once instead of after the wide stage's waves. Neither stage of a pair
// reads what the other writes (the emulation tests run each launch backwards to check).
struct StagePair {
  Stage first, also;
};
inline constexpr StagePair kStagePairs[] = {
    {Stage::hash_instances, Stage::leaf_rows},  // commitments -> hi beside seeds -> rows
    {Stage::prove_keys, Stage::round_bytes},    // both read the key schedule, write apart
    {Stage::chall1, Stage::reduce},             // verify: h, then chall1 of h and the signature
    {Stage::chall2, Stage::rows},               // verify: rows read the corrected columns
};
// A launch of pair P (an index into kStagePairs): per_sig threads of its first stage, then
// also_per_sig of its second.
template <std::size_t P>
constexpr Launch paired(u32 per_sig, u32 also_per_sig) {
  static_assert(P < std::size(kStagePairs));
  return Launch{kStagePairs[P].first, 0, 0, per_sig, kStagePairs[P].also, also_per_sig};
}

// The launches of one chunk, in order (the kernels' order; the host emulation's order).
template <class F>
inline void for_each_stage(const Layout& lay, F&& f) {
  const Shape& s = lay.s;
  f(Launch{lay.verifier ? Stage::scatter : Stage::root, 0, 0, lay.verifier ? s.t_open : 1});
  u32 level = 0;
  for (u32 first = 0; first < s.L - 1; first = 2 * first + 1, ++level)
    f(Launch{Stage::expand, level, first, (s.level_end(first) - first + 1) / 2});
  f(Launch{Stage::leaves, 0, 0, s.L / 2});
  // The instances' hashes (commitments -> hi) beside the VOLE rows (seeds -> rows).
  f(paired<0>(s.tau, s.L / 2));
  // The verifier's serial hashes beside the wide stages that do not need them: h and chall1
  // (the corrections are the signature's) beside the reduce, chall2 beside the rows. The
  // signer's need the device's corrections and are chained; its pairs of a hash and a wide
  // stage measured no faster (h beside the reduce took 0.68 ms against 0.57 apart).
  if (lay.verifier) {
    f(paired<2>(1, s.tau * row_blocks));  // chall1 with h first
    f(Launch{Stage::col_hash, 0, 0, lambda});
    f(paired<3>(1, detail::row_bytes));
  } else {
    f(Launch{Stage::hash_final, 0, 0, 1});
    f(Launch{Stage::reduce, 0, 0, s.tau * row_blocks});
    f(Launch{Stage::front, 0, 0, s.front_units()});
    f(Launch{Stage::chall1, 0, 0, 1});
    f(Launch{Stage::col_hash, 0, 0, lambda});
    f(Launch{Stage::chall2, 0, 0, 1});
    f(Launch{Stage::rows, 0, 0, detail::row_bytes});
  }
  f(Launch{Stage::key_schedule, 0, 0, 32});
  // The key schedule's parts beside the rounds' bytes (both read the key schedule's
  // outputs; they write disjoint parts of the scratch).
  f(paired<1>(detail::qs_key_parts, 5 * 16));
  f(Launch{Stage::round_columns, 0, 0, 5 * 4});
  f(Launch{Stage::round_join, 0, 0, 5});
  f(Launch{Stage::prove_join, 0, 0, 1});
  f(Launch{Stage::grind, 0, 0, lay.verifier ? 1 : kGrindLanes});
  if (!lay.verifier) f(Launch{Stage::open, 0, 0, kOpenLanes});
}

TEMPO_VOLEITH_HD u32 delta_of(const Args& a, const u8* in, u32 i) {
  return load_le32(in + a.lay.delta() + 4 * i) & (a.lay.s.leaves(i) - 1);
}

// Instance i's pair row y (VOLE rows 2y and 2y + 1) in a signature's rows: Stage::leaves
// parks the pair's seeds at its start, Stage::leaf_rows overwrites it with the rows.
TEMPO_VOLEITH_HD u8* pair_row(const Shape& s, u8* rows, u32 i, u32 y) {
  return rows + row_stride * (u64(s.first_leaf(i)) + 2 * u64(y));
}

TEMPO_VOLEITH_HD u32 floor_log2(u32 x) {
  u32 r = 0;
  while (x >>= 1) ++r;
  return r;
}

// Whether heap node `node` (at depth dn) is node h or one of its ancestors.
TEMPO_VOLEITH_HD bool on_path_to(u32 h, u32 node, u32 dn) {
  const u32 dh = floor_log2(h + 1);
  return dh >= dn && ((h + 1) >> (dh - dn)) - 1 == node;
}

// Verifier: whether node `a` is a hidden leaf or one of its ancestors (never expanded).
TEMPO_VOLEITH_HD bool on_hidden_path(const Args& a, const u8* in, u32 node) {
  const u32 dn = floor_log2(node + 1);
  bool hit = false;
  for (u32 i = 0; i < a.lay.s.tau; ++i) hit = hit || on_path_to(a.lay.s.pos_in_tree(i, delta_of(a, in, i)), node, dn);
  return hit;
}

TEMPO_VOLEITH_HD void copy16(u8* d, const u8* s) {
  store_le64_fast(d, load_le64_fast(s));
  store_le64_fast(d + 8, load_le64_fast(s + 8));
}

// ---- the back half: VOLEHash, QuickSilver, grinding ----------------------------------------
// FAEST's random oracle (SHAKE128 with a domain byte before the padding, faest-ref
// random_oracle.c) over the concatenation of four byte strings at any alignment, squeezing
// out_len <= 168 bytes. The state stays in registers (every index is a constant once the
// lane loops unroll): each lane of a block is gathered from the strings, one 8-byte read
// where the lane lies inside one string. The strings' lengths are the same in every thread
// of a launch, so the branches are the warp's.
struct Span {
  const u8* p;
  u32 n;
};
struct Oracle4 {
  static constexpr u32 rate = 168;
  Span seg[4];
  u32 total;
  TEMPO_VOLEITH_HD Oracle4(Span a, Span b, Span c, Span d) : seg{a, b, c, d}, total(a.n + b.n + c.n + d.n) {}
  // Bytes [pos, pos + 8) of the message followed by the domain byte and zeros.
  TEMPO_VOLEITH_HD u64 lane(u32 pos, u8 domain) const {
    u32 at = pos;
    TEMPO_VOLEITH_UNROLL
    for (u32 j = 0; j < 4; ++j) {
      if (at + 8 <= seg[j].n) return load_le64(seg[j].p + at);
      if (at < seg[j].n) break;  // the lane crosses the string's end
      at -= seg[j].n;
    }
    u64 w = 0;
    for (u32 k = 0; k < 8; ++k) w |= u64(byte(pos + k, domain)) << (8 * k);
    return w;
  }
  TEMPO_VOLEITH_HD u32 byte(u32 pos, u8 domain) const {
    if (pos > total) return 0;
    if (pos == total) return domain;
    TEMPO_VOLEITH_UNROLL
    for (u32 j = 0; j < 4; ++j) {
      if (pos < seg[j].n) return seg[j].p[pos];
      pos -= seg[j].n;
    }
    return 0;
  }
  TEMPO_VOLEITH_HD void hash(u8 domain, u8* out, u32 out_len) const {
    const u32 len = total + 1;  // with the domain byte; SHAKE's 0x1F follows it
    u64 a[25];
    TEMPO_VOLEITH_UNROLL
    for (u32 i = 0; i < 25; ++i) a[i] = 0;
    for (u32 base = 0; base <= len; base += rate) {  // the last block holds the padding
      TEMPO_VOLEITH_UNROLL
      for (u32 i = 0; i < rate / 8; ++i) a[i] ^= lane(base + 8 * i, domain);
      if (base + rate > len) {
        const u32 pad = len - base;
        TEMPO_VOLEITH_UNROLL
        for (u32 i = 0; i < rate / 8; ++i) a[i] ^= pad / 8 == i ? u64{0x1F} << (8 * (pad % 8)) : 0;
        a[rate / 8 - 1] ^= u64{0x80} << 56;
      }
      tempo::keccak::cuda::keccak_p_loop(a, 24);
    }
    TEMPO_VOLEITH_UNROLL
    for (u32 i = 0; i < rate / 8; ++i)
      TEMPO_VOLEITH_UNROLL
      for (u32 k = 0; k < 8; ++k)
        if (8 * i + k < out_len) out[8 * i + k] = u8(a[i] >> (8 * k));
  }
};

// chall3 = H2_3(chall2 || a0 || a1 || counter) (Oracle with domain 11): the 108 bytes fill
// less than one block, so each counter costs one permutation of a state built in registers
// (no gathering from strings). The first 104 bytes are read once.
struct GrindPrefix {
  u64 lane[13];
  TEMPO_VOLEITH_HD GrindPrefix(const u8* chall2, const u8* a0, const u8* a1) {
    TEMPO_VOLEITH_UNROLL
    for (u32 i = 0; i < 7; ++i) lane[i] = load_le64(chall2 + 8 * i);
    lane[7] = load_le64(a0);
    lane[8] = load_le64(a0 + 8);
    TEMPO_VOLEITH_UNROLL
    for (u32 i = 0; i < 4; ++i) lane[9 + i] = load_le64(a1 + 8 * i);
  }
  TEMPO_VOLEITH_HD void chall3(u32 ctr, u8* out) const {
    u64 a[25];
    TEMPO_VOLEITH_UNROLL
    for (u32 i = 0; i < 25; ++i) a[i] = i < 13 ? lane[i] : 0;
    a[13] = u64(ctr) | u64{11} << 32 | u64{0x1F} << 40;  // counter, domain byte, SHAKE's 0x1F
    a[Oracle4::rate / 8 - 1] = u64{0x80} << 56;
    tempo::keccak::cuda::keccak_p_unrolled<24>(a);
    store_le64(out, a[0]);
    store_le64(out + 8, a[1]);
  }
};

// The hidden leaf that chall3 selects in each instance (decode_chall3 of scheme.hpp, then
// BAVC's hidden_leaves): its index j within the instance and its heap node.
TEMPO_VOLEITH_HD void hidden_leaves(const Shape& s, const u8* chall3, u32* leaf, u32* hidden) {
  static_assert(detail::max_tau == 16);
  u32 lo = 0;
  for (u32 i = 0; i < s.tau; ++i) {
    u32 d = 0;
    for (u32 j = 0; j < s.depth(i); ++j) d |= ((u32(chall3[(lo + j) / 8]) >> ((lo + j) % 8)) & 1u) << j;
    lo += s.depth(i);
    leaf[i] = d;
    hidden[i] = s.pos_in_tree(i, d);
  }
}

// BAVC.Open's bound (vc.hpp bavc_open_set): the co-path of the hidden leaves that chall3
// selects has at most T_open nodes. The union of the tau root paths has P nodes (a node
// counts once, for the first instance whose path holds it); the co-path has P - 2 tau + 1.
TEMPO_VOLEITH_HD bool opening_fits(const Shape& s, const u8* chall3) {
  u32 leaf[detail::max_tau], hidden[detail::max_tau], marked = 0;
  hidden_leaves(s, chall3, leaf, hidden);
  for (u32 i = 0; i < s.tau; ++i) {
    for (u32 a = hidden[i];; a = (a - 1) / 2) {
      const u32 da = floor_log2(a + 1);
      bool seen = false;
      for (u32 q = 0; q < i; ++q) seen = seen || on_path_to(hidden[q], a, da);
      if (seen) break;
      ++marked;
      if (a == 0) break;
    }
  }
  return marked - 2 * s.tau + 1 <= s.t_open;
}

// BAVC.Open (vc.hpp's bavc_open_set and bavc_open_write) from the device's tree and
// commitments, for the hidden leaves that chall3 selects: their commitments, then the
// co-path in descending node order, then zeros up to T_open nodes (grinding checked that
// it fits). The co-path is the unmarked children of the hidden leaves' ancestors. Heap
// order puts every node of depth d + 1 after every node of depth d, so it is written one
// depth at a time, the deepest first, each depth's parents in descending order (no marks
// bitmap, no sort of the whole list). Every lane walks the whole list (every index comes
// from chall3, which is public); lane `lane` of `lanes` copies entries lane, lane + lanes,
// ... (only the copied seeds are secret).
TEMPO_VOLEITH_HD void open_commitment(const Shape& s, const u8* chall3, const u8* nodes, const u8* com, u8* decom,
                                      u32 lane, u32 lanes) {
  u32 leaf[detail::max_tau], hidden[detail::max_tau], depth[detail::max_tau], deepest = 0;
  hidden_leaves(s, chall3, leaf, hidden);
  for (u32 i = 0; i < s.tau; ++i) {
    depth[i] = floor_log2(hidden[i] + 1);
    deepest = depth[i] > deepest ? depth[i] : deepest;
    if (i % lanes != lane) continue;
    const u8* c = com + 48 * (u64(s.first_leaf(i)) + leaf[i]);  // the leaves stage's order: instance-major
    for (u32 b = 0; b < 48; b += 16) copy16(decom + 48 * i + b, c + b);
  }
  u8* const copath = decom + 48 * s.tau;
  u32 e = 0;  // co-path entries so far
  for (u32 dp = deepest; dp-- > 0;) {  // parents at depth dp, children at dp + 1
    u32 parent[detail::max_tau], n = 0;
    for (u32 i = 0; i < s.tau; ++i) {
      if (depth[i] <= dp) continue;
      const u32 a = ((hidden[i] + 1) >> (depth[i] - dp)) - 1;
      u32 at = 0;  // insertion into the descending list, once per parent
      while (at < n && parent[at] > a) ++at;
      if (at < n && parent[at] == a) continue;
      for (u32 q = n; q > at; --q) parent[q] = parent[q - 1];
      parent[at] = a;
      ++n;
    }
    for (u32 q = 0; q < n; ++q)
      for (u32 c = 2 * parent[q] + 2; c >= 2 * parent[q] + 1; --c) {
        bool marked = false;
        for (u32 i = 0; i < s.tau; ++i) marked = marked || on_path_to(hidden[i], c, dp + 1);
        if (marked || e >= s.t_open) continue;
        if (e % lanes == lane) copy16(copath + 16 * e, nodes + 16 * u64(c));
        ++e;
      }
  }
  for (e += (lane + lanes - e % lanes) % lanes; e < s.t_open; e += lanes) {  // this lane's padding entries
    store_le64_fast(copath + 16 * e, 0);
    store_le64_fast(copath + 16 * e + 8, 0);
  }
}

// Lane r of `lanes` threads of signature `sig` in one of the back half's stages.
TEMPO_VOLEITH_HD void run_back(const Args& a, Stage stage, u64 sig, u32 r, u32 lanes) {
  using detail::DeviceField;
  const Layout& lay = a.lay;
  const Shape& s = lay.s;
  const u8* in = a.in + sig * lay.in_stride();
  u8* out = a.out + sig * lay.out_stride();
  u8* vole = a.vole + sig * lay.vole_bytes();
  u8* back = a.back + sig * lay.back_bytes();
  u8* chall1 = back + Layout::back_chall1;
  u8* chall2 = back + Layout::back_chall2;
  u8* vt = back + Layout::back_vt;
  // The signature's front: written here (sign) or given (verify); its chall3 and counter.
  u8* front = lay.verifier ? nullptr : out;
  const u8* sigf = lay.verifier ? in + lay.sig() : front;
  const u8* cols = vole + lay.vole_cols();
  const u8* u0 = vole + lay.vole_u();  // sign
  switch (stage) {
    case Stage::front: {  // sign: two bytes of c_i = u_0 + u_i (i >= 1) or of d = w + u_0
      const u32 c_bytes = s.off_u_tilde();  // c_1 .. c_tau-1; d follows u_tilde
      TEMPO_VOLEITH_UNROLL
      for (u32 b = 2 * r; b < 2 * r + 2; ++b) {
        if (b < c_bytes)
          front[b] = u8(u0[b % ell_hat_bytes] ^ u0[ell_hat_bytes + b]);
        else
          front[s.off_d() + b - c_bytes] = u8(in[lay.w() + b - c_bytes] ^ u0[b - c_bytes]);
      }
      break;
    }
    case Stage::chall1: {
      // The verifier's chall1 thread first computes h (hash_final's work, which has no
      // launch of its own there), so that the chain runs beside the reduce.
      if (lay.verifier) commitment_hash(a, sig);
      // hcom = h (the VOLE data's first 32 bytes); dom_h2_1
      Oracle4({in + lay.mu(), 32}, {vole, 32}, {sigf, s.off_u_tilde()}, {in + lay.iv(), 16}).hash(9, chall1, 88);
      if (!lay.verifier) {
        detail::vole_hash<DeviceField>(front + s.off_u_tilde(), chall1, u0);
      }
      break;
    }
    case Stage::col_hash: {
      const u8* col = vole + lay.vole_cols() + ell_hat_bytes * u64(r);  // verify: corrected by the reduce
      u8* h = vt + 18 * r;
      detail::vole_hash<DeviceField>(h, chall1, col);
      if (lay.verifier && ((in[lay.sig_chall3() + r / 8] >> (r % 8)) & 1u))  // chall3's bit r
        for (u32 b = 0; b < 18; ++b) h[b] ^= sigf[s.off_u_tilde() + b];
      break;
    }
    case Stage::chall2: {
      Oracle4({chall1, 88}, {sigf + s.off_u_tilde(), 18}, {vt, 18 * lambda}, {sigf + s.off_d(), 160})
          .hash(10, chall2, 56);  // dom_h2_2
      break;
    }
    case Stage::rows: {
      auto* scratch = reinterpret_cast<detail::gf128*>(back + Layout::back_qs);
      if (lay.verifier)
        detail::verify_rows_byte(cols, sigf + s.off_d(), in + lay.sig_chall3(), scratch, r);
      else
        detail::columns_to_rows_byte(cols, scratch, r);
      break;
    }
    case Stage::key_schedule: {
      auto* scratch = reinterpret_cast<detail::gf128*>(back + Layout::back_qs);
      if (lay.verifier)
        detail::verify_key_bit(scratch, r);
      else
        detail::prove_key_bit<DeviceField>(in + lay.w(), scratch, r);
      break;
    }
    case Stage::prove_keys: {
      auto* scratch = reinterpret_cast<detail::gf128*>(back + Layout::back_qs);
      if (lay.verifier)
        detail::verify_key_part<DeviceField>(r, chall2, in + lay.sig_chall3(), scratch);
      else
        detail::prove_key_part<DeviceField>(r, in + lay.w(), chall2, scratch);
      break;
    }
    case Stage::round_bytes: {
      auto* scratch = reinterpret_cast<detail::gf128*>(back + Layout::back_qs);
      if (lay.verifier)
        detail::verify_round_byte<DeviceField>(r / 16, r % 16, in + lay.pk(), chall2, in + lay.sig_chall3(), scratch);
      else
        detail::prove_round_byte<DeviceField>(r / 16, r % 16, in + lay.w(), in + lay.pk(), chall2, scratch);
      break;
    }
    case Stage::round_columns: {
      auto* scratch = reinterpret_cast<detail::gf128*>(back + Layout::back_qs);
      if (lay.verifier)
        detail::verify_round_column<DeviceField>(r / 4, r % 4, in + lay.pk(), chall2, in + lay.sig_chall3(), scratch);
      else
        detail::prove_round_column<DeviceField>(r / 4, r % 4, in + lay.w(), in + lay.pk(), chall2, scratch);
      break;
    }
    case Stage::round_join: {
      auto* scratch = reinterpret_cast<detail::gf128*>(back + Layout::back_qs);
      if (lay.verifier)
        detail::verify_round_join<DeviceField>(r, chall2, scratch);
      else
        detail::prove_round_join<DeviceField>(r, chall2, scratch);
      break;
    }
    case Stage::prove_join: {
      auto* scratch = reinterpret_cast<detail::gf128*>(back + Layout::back_qs);
      if (lay.verifier)
        detail::verify_join<DeviceField>(chall2, in + lay.sig_chall3(), sigf + s.off_a1(), sigf + s.off_a2(),
                                         back + Layout::back_a0, scratch);
      else
        detail::prove_join<DeviceField>(u0 + 160, chall2, back + Layout::back_a0, front + s.off_a1(),
                                        front + s.off_a2(), scratch);
      *reinterpret_cast<u32*>(back + Layout::back_ctr) = ~u32{0};  // the grinding's least hit: none yet
      break;
    }
    case Stage::grind:
    case Stage::open: {
      const GrindPrefix pre(chall2, back + Layout::back_a0, sigf + s.off_a1());
      if (lay.verifier) {
        pre.chall3(load_le32(in + lay.sig_chall3() + 16), out);
        break;
      }
      u32* least = reinterpret_cast<u32*>(back + Layout::back_ctr);
      if (stage == Stage::open) {  // every lane: chall3 of the least counter and its share of the opening
        const u32 ctr = least_counter(least);
        u8 chall3[16];
        pre.chall3(ctr, chall3);
        if (r == 0) {
          u8* o = out + lay.out_chall3();
          for (u32 b = 0; b < 16; ++b) o[b] = chall3[b];
          for (u32 b = 0; b < 4; ++b) o[16 + b] = u8(ctr >> (8 * b));
        }
        open_commitment(s, chall3, a.nodes + sig * lay.nodes_bytes(), a.com + sig * lay.com_bytes(),
                        out + s.front_bytes(), r, lanes);
        break;
      }
      // chall3 is public (it goes into the signature): branching on it leaks nothing.
      u8 try3[16];
      for (u32 ctr = r; ctr < least_counter(least); ctr += lanes) {
        pre.chall3(ctr, try3);
        bool zero_top = true;
        for (u32 b = lambda - s.w_grind; b < lambda; ++b) zero_top = zero_top && !((try3[b / 8] >> (b % 8)) & 1u);
        if (zero_top && opening_fits(s, try3)) {
          offer_counter(least, ctr);
          break;
        }
      }
      break;
    }
    default: break;
  }
}

// Thread `t` of a launch's stage `l.stage` (t < count * l.per_sig).
TEMPO_VOLEITH_HD void run_thread(const Args& a, const Launch& l, u64 t) {
  const Layout& lay = a.lay;
  const Shape& s = lay.s;
  const u64 sig = t / l.per_sig;
  const u32 r = u32(t % l.per_sig);
  const u8* in = a.in + sig * lay.in_stride();
  u8* vole = a.vole + sig * lay.vole_bytes();
  u8* nodes = a.nodes + sig * lay.nodes_bytes();
  u8* com = a.com + sig * lay.com_bytes();
  u8* rows = a.rows + sig * lay.rows_bytes();
  u8* hi = a.hi + sig * lay.hi_bytes();
  const u8* iv = in + lay.iv();
  switch (l.stage) {
    case Stage::front:
    case Stage::chall1:
    case Stage::col_hash:
    case Stage::chall2:
    case Stage::rows:
    case Stage::key_schedule:
    case Stage::prove_keys:
    case Stage::round_bytes:
    case Stage::round_columns:
    case Stage::round_join:
    case Stage::prove_join:
    case Stage::grind:
    case Stage::open: run_back(a, l.stage, sig, r, l.per_sig); break;
    case Stage::root: copy16(nodes, in); break;
    case Stage::scatter: {
      const u32 idx = load_le32(in + lay.copath_idx() + 4 * r);
      if (idx < s.nodes()) copy16(nodes + 16 * u64(idx), in + lay.copath() + 16 * r);
      break;
    }
    case Stage::expand: {
      const u32 node0 = l.first + 2 * r, node1 = node0 + 1 < s.level_end(l.first) ? node0 + 1 : node0;
      // The verifier never expands a hidden leaf's ancestors (their children are opened
      // nodes or hidden too): their outputs go to a sink (public data).
      const bool skip0 = lay.verifier && on_hidden_path(a, in, node0);
      const bool skip1 = node1 == node0 ? skip0 : lay.verifier && on_hidden_path(a, in, node1);
      if (skip0 && skip1) break;
      u8 sink[32];
      prg2(nodes + 16 * u64(node0), nodes + 16 * u64(node1), iv, node0, node1,
           skip0 ? sink : nodes + 16 * (2 * u64(node0) + 1), skip1 ? sink : nodes + 16 * (2 * u64(node1) + 1), 32);
      break;
    }
    case Stage::leaves: {
      // Leaves 2r and 2r + 1, neighbours j and j + 1 of one instance (every instance has an
      // even number of leaves): each PRG of the two on one key schedule (prg2).
      u32 i, j;
      s.leaf_of(2 * r, i, j);
      // The verifier's rows are permuted so that the hidden leaf is x = 0. Its seed is
      // unknown: its outputs come from whatever its node holds and are then replaced.
      const u32 d = lay.verifier ? delta_of(a, in, i) : 0;
      u8* const c = com + 48 * u64(2 * r);
      const u32 tweak = s.L - 1 + i;
      alignas(8) u8 buf[128];
      prg2(nodes + 16 * u64(s.pos_in_tree(i, j)), nodes + 16 * u64(s.pos_in_tree(i, j + 1)), iv, tweak, tweak, buf,
           buf + 64, 64);
      leaf_hash(c, in + lay.uhash() + 48 * i, buf);
      leaf_hash(c + 48, in + lay.uhash() + 48 * i, buf + 64);
      // Rows x = j ^ d and (j + 1) ^ d are the pair row y = x / 2 (leaf_rows), the even x
      // first: its two seeds wait at the row's start, written by the thread that reads them.
      const bool odd = (d & 1) != 0;  // public: the verifier's delta
      u8* const row = pair_row(s, rows, i, (j ^ d) >> 1);
      copy16(row, odd ? buf + 64 : buf);
      copy16(row + 16, odd ? buf : buf + 64);
      for (u32 b = 0; b < 128; ++b) buf[b] = 0;  // the seeds are secret
      if (lay.verifier && (j == d || j + 1 == d)) {
        u8* const hidden = c + (j == d ? 0 : 48);
        for (u32 b = 0; b < 48; ++b) hidden[b] = in[lay.hidden_com() + 48 * i + b];
      }
      break;
    }
    case Stage::leaf_rows: {
      // The pair row y of leaves 2r and 2r + 1 (Stage::leaves) over their seeds. The
      // verifier's hidden leaf (x = 0) gets a zero row.
      u32 i, j;
      s.leaf_of(2 * r, i, j);
      const u32 y = (j ^ (lay.verifier ? delta_of(a, in, i) : 0)) >> 1;
      u8* const row = pair_row(s, rows, i, y);
      alignas(8) u8 seed[32];
      copy16(seed, row);
      copy16(seed + 16, row + 16);
      prg2_planes(seed, seed + 16, iv, i ^ 0x80000000u, i ^ 0x80000000u, row, row_blocks,
                  lay.verifier && y == 0 ? 0xF0F0F0F0u : ~0u);
      for (u32 b = 0; b < 32; ++b) seed[b] = 0;  // secret
      break;
    }
    case Stage::hash_instances: h1(com + 48 * u64(s.first_leaf(r)), 48 * u64(s.leaves(r)), hi + 32 * r); break;
    case Stage::hash_final: commitment_hash(a, sig); break;
    case Stage::reduce: {
      // Pair row y holds rows 2y (low nibbles) and 2y + 1 (high nibbles) of block b on planes.
      // Column 0 is the sum of the odd rows: the high nibbles of every pair; column c >= 1
      // the sum of both nibbles over the pairs with bit c - 1 of y set; u the sum of all.
      const u32 i = r / row_blocks, b = r % row_blocks, d = s.depth(i), pairs = 1u << (d - 1);
      const u8* row = rows + row_stride * u64(s.first_leaf(i)) + 32 * b;
      Planes all{}, col[kMaxDepth - 1]{};
      for (u32 y = 0; y < pairs; ++y, row += 2 * row_stride) {
        const Planes v = load_planes(row);
        TEMPO_VOLEITH_UNROLL
        for (u32 q = 0; q < 8; ++q) all.p[q] ^= v.p[q];
        TEMPO_VOLEITH_UNROLL
        for (u32 c = 0; c + 1 < kMaxDepth; ++c) {  // unrolled: col stays in registers
          if (c + 1 >= d) break;
          const u32 m = 0u - ((y >> c) & 1u);  // y is public
          TEMPO_VOLEITH_UNROLL
          for (u32 q = 0; q < 8; ++q) col[c].p[q] ^= v.p[q] & m;
        }
      }
      const u32 n = b + 1 < row_blocks ? 16 : ell_hat_bytes - 16 * b;  // the row's last block: 2 bytes
      // Verify: column j of instance i >= 1 is corrected by the signature's c_i where bit j of
      // delta_i is set (public: delta comes from chall3). Done here, on the block in hand,
      // instead of by the column hashes over whole columns.
      const u8* const corr = lay.verifier && i > 0 ? in + lay.sig() + ell_hat_bytes * u64(i - 1) + 16 * b : nullptr;
      const u32 delta = corr != nullptr ? delta_of(a, in, i) : 0u;
      // Writes one block of a column, bytes 16 b .. 16 b + n: the low nibbles' block with
      // the high nibbles added (fold), or the high nibbles' block alone (column 0), plus
      // the correction where `correct`.
      auto put = [&](u8* o, Planes v, bool fold, bool correct) {
        TEMPO_VOLEITH_UNROLL
        for (u32 q = 0; q < 8; ++q) v.p[q] = ((fold ? v.p[q] : 0u) ^ (v.p[q] >> 4)) & 0x0F0F0F0Fu;
        u64 w[4];
        planes_to_prg(v, w);
        TEMPO_VOLEITH_UNROLL
        for (u32 k = 0; k < 16; ++k)
          if (k < n) o[k] = u8(u8(w[k / 8] >> (8 * (k % 8))) ^ (correct ? corr[k] : 0u));
      };
      if (!lay.verifier) put(vole + lay.vole_u() + ell_hat_bytes * i + 16 * b, all, true, false);
      u8* const cols = vole + lay.vole_cols() + 16 * b;
      put(cols + ell_hat_bytes * s.first_col(i), all, false, (delta & 1u) != 0);
      TEMPO_VOLEITH_UNROLL
      for (u32 c = 0; c + 1 < kMaxDepth; ++c) {
        if (c + 1 >= d) break;
        put(cols + ell_hat_bytes * (s.first_col(i) + c + 1), col[c], true, ((delta >> (c + 1)) & 1u) != 0);
      }
      if (i + 1 == s.tau)  // the last w_grind columns have no instance: zero (as on the CPU)
        for (u32 c = s.first_col(s.tau); c < lambda; ++c)
          for (u32 k = 0; k < n; ++k) cols[ell_hat_bytes * c + k] = 0;
      break;
    }
  }
}

// Thread `t` of launch `l` (t < count * l.threads_per_sig()): the first stage's threads,
// then the second stage's.
TEMPO_VOLEITH_HD void run_launch_thread(const Args& a, const Launch& l, u64 t) {
  const u64 first = a.count * l.per_sig;
  if (t < first) {
    run_thread(a, l, t);
    return;
  }
  Launch m = l;
  m.stage = l.also;
  m.per_sig = l.also_per_sig;
  m.also_per_sig = 0;
  run_thread(a, m, t - first);
}

}  // namespace tempo::faest::dev
