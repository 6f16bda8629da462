// The QuickSilver proof that the committed witness is an AES-128 evaluation of the public
// key (FAEST v2, Sections 6.3-6.5; faest-ref 2.0.5 faest_aes.c.in for lambda = 128, Nst = 4,
// R = 10, Ske = 40). Prover: values and tags, degree-0/1/2 coefficients hashed by ZkHash3.
// Verifier: keys (q + delta * value). Templated on the field backend B (B::mul).
#pragma once

#include <cstdint>
#include <cstring>

#include <tempo/voleith/detail/aes_planes.hpp>  // transpose8 (host and device)

#include "common.hpp"

namespace tempo::faest::detail {

// Constants of faest-ref fields.c / faest_aes.c.in for GF(2^128) (low word first).
inline constexpr gf128 k_alpha[7] = {
    {0xa13fe8ac5560ce0dull, 0x053d8555a9979a1cull}, {0xec7759ca3488aee1ull, 0x4cf4b7439cbfbb84ull},
    {0xbfcf02ae363946a8ull, 0x35ad604f7d51d2c6ull}, {0x6b8330483c2e9849ull, 0x0dcb364640a222feull},
    {0x252b49277b1b82b4ull, 0x549810e11a88dea5ull}, {0xc72bf2ef2521ff22ull, 0xd681a5686c0c1f75ull},
    {0x7a7a8e94e136f9bcull, 0x0950311a4fb78fe0ull}};
inline constexpr gf128 k_beta_squares[5] = {
    {0xaca8c2a7190f676bull, 0xdb4a932e2cae3d8bull}, {0x34d2f7fba603e341ull, 0x500317bd159d73bbull},
    {0xcbc26e38bdbd6c62ull, 0xf210539fd8dd2772ull}, {0x53b85b6402b1e849ull, 0x7959d70ce1ee6942ull},
    {0xaca8c2a7190f676bull, 0xdb4a932e2cae3d8bull}};
inline constexpr gf128 k_beta_cubes[4] = {
    {0x53b85b6402b1e849ull, 0x7959d70ce1ee6942ull}, {0xaca8c2a7190f676bull, 0xdb4a932e2cae3d8bull},
    {0x34d2f7fba603e341ull, 0x500317bd159d73bbull}, {0xcbc26e38bdbd6c62ull, 0xf210539fd8dd2772ull}};
inline constexpr gf128 k_c[9] = {
    {0xec7759ca3488aee0ull, 0x4cf4b7439cbfbb84ull}, {0xbfcf02ae363946a9ull, 0x35ad604f7d51d2c6ull},
    {0x4c3607bab51b5acaull, 0xb32fd29a04c0be08ull}, {0xc95c10ed4f932c54ull, 0x186ca7a286376521ull},
    {0x1f8e5cdeb7aab282ull, 0xca760596e52ed74aull}, {0x0000000000000001ull, 0x0000000000000000ull},
    {0xd8a5ae31928b4da1ull, 0x1cf7a0fe8922c83full}, {0x88fd3d5cb6e7dff9ull, 0x7534634307ce7cbeull},
    {0x433f53640b5ab39aull, 0x872430dcdf135bccull}};
inline constexpr gf128 k_c_squares[9] = {
    {0x6b8330483c2e9848ull, 0x0dcb364640a222feull}, {0xc72bf2ef2521ff23ull, 0xd681a5686c0c1f75ull},
    {0x4d48b16661e860edull, 0x49c9321635282198ull}, {0xda3bd0e460a50d97ull, 0xf68b54c3d7c88a6cull},
    {0xe1e073c178e70787ull, 0x9283a13819861c13ull}, {0x0000000000000001ull, 0x0000000000000000ull},
    {0xa0415e708193f42aull, 0xffdb65d9987f058cull}, {0x4fd6cfb393c620dbull, 0xa3b5c62b6bc263cbull},
    {0x1c6e94d79177c893ull, 0xdaec11278a2c0a89ull}};
inline constexpr gf128 k_bc_2 = {0xa13fe8ac5560ce0dull, 0x053d8555a9979a1cull};
inline constexpr gf128 k_bc_3 = {0xa13fe8ac5560ce0cull, 0x053d8555a9979a1cull};
inline constexpr gf128 k_bc_2_sq = {0xec7759ca3488aee1ull, 0x4cf4b7439cbfbb84ull};
inline constexpr gf128 k_bc_3_sq = {0xec7759ca3488aee0ull, 0x4cf4b7439cbfbb84ull};
inline constexpr std::uint8_t k_rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};

TEMPO_FAEST_HD constexpr std::uint8_t bits_sq(std::uint8_t x) {
  auto b = [x](int i) { return unsigned(x >> i) & 1u; };
  return std::uint8_t((b(0) ^ b(4) ^ b(6)) | (b(4) ^ b(6) ^ b(7)) << 1 | (b(1) ^ b(5)) << 2 |
                      (b(4) ^ b(5) ^ b(6) ^ b(7)) << 3 | (b(2) ^ b(4) ^ b(7)) << 4 | (b(5) ^ b(6)) << 5 |
                      (b(3) ^ b(5)) << 6 | (b(6) ^ b(7)) << 7);
}
TEMPO_FAEST_HD constexpr std::uint8_t rotr8(std::uint8_t x, unsigned c) {
  return std::uint8_t((x >> c) | (x << (8 - c)));
}

// The squaring map on the 8 bit-tags of a byte (same linear map as bits_sq).
TEMPO_FAEST_HD constexpr void sq_bit(gf128 out[8], const gf128 in[8]) {
  out[7] = in[6] ^ in[7];
  out[0] = in[0] ^ in[4] ^ in[6];
  out[1] = in[4] ^ out[7];
  out[2] = in[1] ^ in[5];
  out[3] = out[1] ^ in[5];
  out[4] = in[2] ^ in[4] ^ in[7];
  out[5] = in[5] ^ in[6];
  out[6] = in[3] ^ in[5];
}

TEMPO_FAEST_HD gf128 sum_poly(const gf128* xs) {  // sum xs[j] * x^j, j < 128
  gf128 r = xs[127];
  for (int j = 126; j >= 0; --j) r = gf_dbl(r) ^ xs[j];
  return r;
}

// Every constant of the circuit in one place, for the host (k_owf) and the device (a
// __constant__ copy in each CUDA translation unit); code shared by both reads owf_consts().
// conj[j]: byte_combine after j squarings as an 8-term inner product (sq_bit is
// GF(2)-linear, so the constant of tag b is byte_combine of the squared unit vector e_b, a
// sum of alphas); sbox[s]: the S-box's affine sums, coefficients rotated as sbox_affine
// indexes them.
struct OwfConsts {
  gf128 alpha[7], beta_squares[5], beta_cubes[4], c[9], c_squares[9];
  gf128 bc_2, bc_3, bc_2_sq, bc_3_sq;
  gf128 conj[8][8];
  gf128 sbox[2][8];
  std::uint8_t rcon[10];
};
constexpr OwfConsts make_owf_consts() {
  OwfConsts k{};
  for (unsigned i = 0; i < 7; ++i) k.alpha[i] = k_alpha[i];
  for (unsigned i = 0; i < 5; ++i) k.beta_squares[i] = k_beta_squares[i];
  for (unsigned i = 0; i < 4; ++i) k.beta_cubes[i] = k_beta_cubes[i];
  for (unsigned i = 0; i < 9; ++i) k.c[i] = k_c[i], k.c_squares[i] = k_c_squares[i];
  k.bc_2 = k_bc_2, k.bc_3 = k_bc_3, k.bc_2_sq = k_bc_2_sq, k.bc_3_sq = k_bc_3_sq;
  for (unsigned i = 0; i < 10; ++i) k.rcon[i] = k_rcon[i];
  const gf128 alpha8[8] = {{1, 0}, k_alpha[0], k_alpha[1], k_alpha[2], k_alpha[3], k_alpha[4], k_alpha[5], k_alpha[6]};
  for (unsigned b = 0; b < 8; ++b) {
    gf128 e[8] = {}, t[8] = {};
    e[b] = gf128{1, 0};
    for (unsigned j = 0; j < 8; ++j) {
      for (unsigned q = 0; q < 8; ++q) k.conj[j][b] ^= gf_mask(alpha8[q], unsigned(e[q].lo));
      sq_bit(t, e);
      for (unsigned q = 0; q < 8; ++q) e[q] = t[q];
    }
  }
  for (unsigned q = 0; q < 8; ++q) {
    k.sbox[0][q] = k_c[q];
    k.sbox[1][q] = k_c_squares[(q + 7) % 8];
  }
  return k;
}
inline constexpr OwfConsts k_owf = make_owf_consts();
#if defined(__CUDACC__)
static __constant__ OwfConsts k_owf_device = make_owf_consts();
#endif
TEMPO_FAEST_HD const OwfConsts& owf_consts() {
#if defined(__CUDA_ARCH__)
  return k_owf_device;
#else
  return k_owf;
#endif
}

// sum x[b] * c[b] for b < 8: B::dot8 where the backend has one (four products per
// instruction on AVX-512), else eight multiplications.
template <class B>
TEMPO_FAEST_HD gf128 dot8(const gf128* x, const gf128* c) {
  if constexpr (requires { B::dot8(x, c); }) {
    if (B::fused()) return B::dot8(x, c);
  }
  gf128 r{};
  for (unsigned b = 0; b < 8; ++b) r ^= B::mul(x[b], c[b]);
  return r;
}

// out[j] = a[(j + 4) % 8] * b[j % 4] (+ c[(j + 4) % 8] * d[j % 4] when c is not null), j < 8:
// the prover's products of the conjugates and the norm's y. B::rot_mul8 where the backend has
// one (AVX-512: eight products in two instructions per coefficient pair), else mul.
template <class B>
TEMPO_FAEST_HD void rot_mul8(const gf128* a, const gf128* b, const gf128* c, const gf128* d, gf128* out) {
  if constexpr (requires { B::rot_mul8(a, b, c, d, out); }) {
    if (B::fused()) return B::rot_mul8(a, b, c, d, out);
  }
  for (unsigned j = 0; j < 8; ++j) {
    out[j] = B::mul(a[(j + 4) % 8], b[j % 4]);
    if (c != nullptr) out[j] ^= B::mul(c[(j + 4) % 8], d[j % 4]);
  }
}

// out[q] = x[0] + beta_sq[q] x[1] + beta_sq[q + 1] x[2] + beta_cube[q] x[3], q < 4: the norm's
// four conjugates from its 4 tags (B::norm_conj4 where the backend has one).
template <class B>
TEMPO_FAEST_HD void norm_conj4(const gf128* x, gf128* out) {
  if constexpr (requires { B::norm_conj4(x, out); }) {
    if (B::fused()) return B::norm_conj4(x, out);
  }
  for (unsigned q = 0; q < 4; ++q)
    out[q] = x[0] ^ B::mul(owf_consts().beta_squares[q], x[1]) ^ B::mul(owf_consts().beta_squares[q + 1], x[2]) ^
             B::mul(owf_consts().beta_cubes[q], x[3]);
}

// One MixColumns column on 4 values: o[r] = a[r] v2 + a[r + 1] v3 + a[r + 2] + a[r + 3]
// (indices mod 4; B::mix_column where the backend has one).
template <class B>
TEMPO_FAEST_HD void mix_column(const gf128* a, gf128 v2, gf128 v3, gf128* o) {
  if constexpr (requires { B::mix_column(a, v2, v3, o); }) {
    if (B::fused()) return B::mix_column(a, v2, v3, o);
  }
  o[0] = B::mul(a[0], v2) ^ a[2] ^ B::mul(a[1], v3) ^ a[3];
  o[1] = B::mul(a[1], v2) ^ a[0] ^ B::mul(a[2], v3) ^ a[3];
  o[2] = B::mul(a[2], v2) ^ a[0] ^ B::mul(a[3], v3) ^ a[1];
  o[3] = B::mul(a[3], v2) ^ a[1] ^ B::mul(a[0], v3) ^ a[2];
}

// out[j] = dot8(x, c[j]) for j < 8 (B::dot8x8 where the backend has one: one call per byte).
template <class B>
TEMPO_FAEST_HD void dot8x8(const gf128* x, const gf128 (*c)[8], gf128* out) {
  if constexpr (requires { B::dot8x8(x, c, out); }) {
    if (B::fused()) return B::dot8x8(x, c, out);
  }
  for (unsigned j = 0; j < 8; ++j) out[j] = dot8<B>(x, c[j]);
}

template <class B>
struct Gf {
  TEMPO_FAEST_HD static gf128 byte_combine(const gf128 x[8]) { return dot8<B>(x, owf_consts().conj[0]); }
  TEMPO_FAEST_HD static gf128 byte_combine_sq(const gf128 x[8]) { return dot8<B>(x, owf_consts().conj[1]); }
  TEMPO_FAEST_HD static gf128 byte_combine_bits(std::uint8_t x) {
    gf128 r = gf_from_bit(x);
    for (int i = 1; i < 8; ++i) r ^= gf_mask(owf_consts().alpha[i - 1], unsigned(x >> i));
    return r;
  }
  TEMPO_FAEST_HD static gf128 byte_combine_bits_sq(std::uint8_t x) { return byte_combine_bits(bits_sq(x)); }
};

// QuickSilver's universal hash over the constraint coefficients (faest-ref zk_hash_128).
template <class B>
struct ZkHash {
  gf128 h0{}, h1{}, s{}, t{};
  const std::uint8_t* sd = nullptr;
  TEMPO_FAEST_HD explicit ZkHash(const std::uint8_t* chall2) : sd(chall2) {
    s = gf_load(chall2 + 32);
    std::memcpy(&t.lo, chall2 + 48, 8);
  }
  TEMPO_FAEST_HD void update(gf128 v) {
    h0 = B::mul(h0, s) ^ v;
    h1 = B::mul(h1, t) ^ v;
  }
  TEMPO_FAEST_HD gf128 finalize(gf128 x1) const { return B::mul(gf_load(sd), h0) ^ B::mul(gf_load(sd + 16), h1) ^ x1; }
  // This run followed by another one's n updates, given its state (h0n, h1n), s^n and t^n.
  TEMPO_FAEST_HD void then(gf128 h0n, gf128 h1n, gf128 sn, gf128 tn) {
    h0 = B::mul(h0, sn) ^ h0n;
    h1 = B::mul(h1, tn) ^ h1n;
  }
};

// x^n for a public n.
template <class B>
TEMPO_FAEST_HD gf128 gf_pow(gf128 x, unsigned n) {
  gf128 r{1, 0};
  for (; n != 0; n >>= 1, x = B::mul(x, x))
    if (n & 1) r = B::mul(r, x);
  return r;
}

// Three ZkHash with the same keys. Where the backend has B::zk3_update, their states live side
// by side (lane k of h0s, h1s: hash k) and one update multiplies all three at once.
template <class B>
struct ZkHash3 {
  ZkHash<B> h[3];
  alignas(64) gf128 h0s[4] = {}, h1s[4] = {};
  bool packed = false;
  TEMPO_FAEST_HD explicit ZkHash3(const std::uint8_t* chall2)
      : h{ZkHash<B>(chall2), ZkHash<B>(chall2), ZkHash<B>(chall2)} {
    if constexpr (requires { B::zk3_update(h0s, h1s, h[0].s, h[0].t, h0s); }) packed = B::fused();
  }
  TEMPO_FAEST_HD void update(gf128 v0, gf128 v1, gf128 v2) {
    if constexpr (requires { B::zk3_update(h0s, h1s, h[0].s, h[0].t, h0s); }) {
      if (packed) {
        alignas(64) const gf128 v[4] = {v0, v1, v2, gf128{}};
        B::zk3_update(h0s, h1s, h[0].s, h[0].t, v);
        return;
      }
    }
    h[0].update(v0);
    h[1].update(v1);
    h[2].update(v2);
  }
  TEMPO_FAEST_HD void raise_and_update(gf128 v1, gf128 v2) { update(gf128{}, v1, v2); }
  TEMPO_FAEST_HD gf128 finalize(unsigned k, gf128 x1) {
    unpack();
    return h[k].finalize(x1);
  }
  // The three states as (h0, h1) pairs, st[0 .. 6).
  TEMPO_FAEST_HD void save(gf128* st) {
    unpack();
    for (unsigned k = 0; k < 3; ++k) st[2 * k] = h[k].h0, st[2 * k + 1] = h[k].h1;
  }
  // This run followed by another one's n updates (its save()), given s^n and t^n.
  TEMPO_FAEST_HD void then(const gf128* st, gf128 sn, gf128 tn) {
    unpack();
    for (unsigned k = 0; k < 3; ++k) h[k].then(st[2 * k], st[2 * k + 1], sn, tn);
  }
  TEMPO_FAEST_HD void unpack() {
    if (!packed) return;
    for (unsigned k = 0; k < 3; ++k) h[k].h0 = h0s[k], h[k].h1 = h1s[k];
    packed = false;
  }
  TEMPO_FAEST_HD ~ZkHash3() {
    wipe(h, sizeof h);
    wipe(h0s, sizeof h0s);
    wipe(h1s, sizeof h1s);
  }
};

// Bits b (< 32) of every word of the expanded key's tags (prover) or keys (verifier), k[32 j
// + b] for j < 44, from those of the witness w: the key schedule's linear part (words 0 .. 3
// the witness's first 128 elements, every fourth word after them the next 32, the others
// k[j - 4] + k[j - 1]). The device runs the 32 bits on 32 threads.
// Bits [b0, b1) at a time, word by word (the host runs all 32: contiguous rows).
TEMPO_FAEST_HD void expand_key_bits(gf128* k, const gf128* w, unsigned b0, unsigned b1) {
  for (unsigned j = 0; j < 4; ++j)
    for (unsigned b = b0; b < b1; ++b) k[32 * j + b] = w[32 * j + b];
  for (unsigned j = 4; j < 44; ++j)
    for (unsigned b = b0; b < b1; ++b)
      k[32 * j + b] = j % 4 == 0 ? w[128 + 8 * (j - 4) + b] : k[32 * (j - 4) + b] ^ k[32 * (j - 1) + b];
}

// Per state byte, round_byte's S-box input: (d0, d1, d2) for the S-box, then for its square
// (the verifier's: one value for each).
inline constexpr unsigned round_byte_gf = 6;

// ---- prover ---------------------------------------------------------------------------------
template <class B>
struct AesProver {
  using G = Gf<B>;
  ZkHash3<B>& hs;

  TEMPO_FAEST_HD static void inverse_affine_byte(std::uint8_t& y, gf128 y_tag[8], std::uint8_t x,
                                                 const gf128 x_tag[8]) {
    y = std::uint8_t(rotr8(x, 7) ^ rotr8(x, 5) ^ rotr8(x, 2) ^ 0x5);
    for (int b = 0; b < 8; ++b) y_tag[b] = x_tag[(b + 7) % 8] ^ x_tag[(b + 5) % 8] ^ x_tag[(b + 2) % 8];
  }

  // The expanded key's bytes (176): words 0 .. 3 the witness's first 128 bits, every fourth
  // word after them the witness's next 32 bits (the S-box outputs of the key schedule), the
  // others k[j - 4] + k[j - 1]. Its tags: expand_key_bits.
  TEMPO_FAEST_HD static void expand_key_bytes(std::uint8_t k[176], const std::uint8_t* w) {
    std::memcpy(k, w, 16);
    for (unsigned j = 4, i_wd = 128; j < 44; ++j) {
      if (j % 4 == 0) {
        std::memcpy(k + 4 * j, w + i_wd / 8, 4);
        i_wd += 32;
      } else {
        for (unsigned b = 0; b < 4; ++b) k[4 * j + b] = std::uint8_t(k[4 * (j - 4) + b] ^ k[4 * (j - 1) + b]);
      }
    }
  }

  // Key schedule constraints of round key t (t < 10: its four S-boxes, 8 updates), from
  // the expanded key k and its tags.
  TEMPO_FAEST_HD void key_sboxes(unsigned t, const std::uint8_t* w, const gf128* w_tag, const std::uint8_t k[176],
                                 const gf128* k_tag) {
    std::uint8_t w_flat[4];
    gf128 w_flat_tag[32];
    const std::uint8_t* x = w + 16;
    const gf128* x_tag = w_tag + 128;
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned j = 4 * t + r;
      std::uint8_t xt = std::uint8_t(x[j] ^ k[16 * t + r]);
      gf128 xt_tag[8];
      for (unsigned b = 0; b < 8; ++b) xt_tag[b] = x_tag[j * 8 + b] ^ k_tag[128 * t + 8 * r + b];
      if (r == 0) xt ^= owf_consts().rcon[t];
      inverse_affine_byte(w_flat[r], w_flat_tag + 8 * r, xt, xt_tag);
    }
    const unsigned iwd = 96 + 128 * t;
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned rp = (r + 1) % 4;
      const std::uint8_t kb = k[(iwd + 8 * rp) / 8], wb = w_flat[r];
      const gf128 k_hat = G::byte_combine_bits(kb), k_hat_sq = G::byte_combine_bits_sq(kb);
      const gf128 w_hat = G::byte_combine_bits(wb), w_hat_sq = G::byte_combine_bits_sq(wb);
      const gf128 k_hat_tag = G::byte_combine(k_tag + iwd + 8 * rp);
      const gf128 k_hat_tag_sq = G::byte_combine_sq(k_tag + iwd + 8 * rp);
      const gf128 w_hat_tag = G::byte_combine(w_flat_tag + 8 * r);
      const gf128 w_hat_tag_sq = G::byte_combine_sq(w_flat_tag + 8 * r);
      gf128 v1 = B::mul(k_hat_sq, w_hat_tag) ^ k_hat_tag ^ B::mul(k_hat_tag_sq, w_hat);
      hs.raise_and_update(B::mul(k_hat_tag_sq, w_hat_tag), v1);
      v1 = B::mul(k_hat, w_hat_tag_sq) ^ w_hat_tag ^ B::mul(k_hat_tag, w_hat_sq);
      hs.raise_and_update(B::mul(k_hat_tag, w_hat_tag_sq), v1);
    }
    wipe(w_flat, sizeof w_flat);
    wipe(w_flat_tag, sizeof w_flat_tag);
  }

  // The keygen rule's constraint (bit 0 * bit 1 of the key = 0): the first update.
  TEMPO_FAEST_HD void keygen_rule(const std::uint8_t* w, const gf128* w_tag) {
    const gf128 v1 = gf_mask(w_tag[0], get_bit(w, 1)) ^ gf_mask(w_tag[1], get_bit(w, 0));
    hs.raise_and_update(B::mul(w_tag[0], w_tag[1]), v1);
  }

  // Round r of the encryption's constraints (round_updates updates). Its input state comes
  // from the witness and the key alone (the previous round's s_tilde through MixColumns,
  // plus round key 2r), so the rounds are independent, and within a round the bytes are
  // independent up to the S-box outputs' MixColumns: round_byte (per state byte: its norm's
  // constraint and the S-box's affine input), then round_column (per column: ShiftRows,
  // MixColumns, the round key and the S-box outputs' constraints). The device runs each
  // byte and each column on a thread of its own and joins their hashes (ZkHash3::then).
  TEMPO_FAEST_HD void enc_round(unsigned r, const std::uint8_t in[16], const std::uint8_t out[16],
                                const std::uint8_t* w, const gf128* w_tag, const std::uint8_t k[176],
                                const gf128 k_tag[1408]) {
    gf128 st[16][round_byte_gf];
    std::uint8_t sb[4];
    gf128 sb_tag[32];
    for (unsigned c = 0; c < 4; ++c) {
      round_state_column(r, c, in, w, w_tag, k, k_tag, sb, sb_tag);
      for (unsigned rr = 0; rr < 4; ++rr) round_byte(r, 4 * c + rr, w, w_tag, sb[rr], sb_tag + 8 * rr, st[4 * c + rr]);
    }
    for (unsigned c = 0; c < 4; ++c) round_column(r, c, out, w, w_tag, k, k_tag, st);
    wipe(sb, sizeof sb), wipe(sb_tag, sizeof sb_tag), wipe(st, sizeof st);
  }

  // Column c of round r's input state: bytes sb[0 .. 4) (state bytes 4c .. 4c + 3) and
  // their tags. Round 0: input + key 0 (the input's tags are 0); round r > 0: MixColumns of
  // the previous round's s_tilde (from the witness) + round key 2r.
  TEMPO_FAEST_HD static void round_state_column(unsigned r, unsigned c, const std::uint8_t in[16],
                                                const std::uint8_t* w, const gf128* w_tag, const std::uint8_t k[176],
                                                const gf128 k_tag[1408], std::uint8_t sb[4], gf128 sb_tag[32]) {
    if (r == 0) {
      for (unsigned rr = 0; rr < 4; ++rr) sb[rr] = std::uint8_t(in[4 * c + rr] ^ k[4 * c + rr]);
      for (unsigned b = 0; b < 32; ++b) sb_tag[b] = k_tag[32 * c + b];
      return;
    }
    bitwise_mix_one_column(sb, sb_tag, w + (64 + 192 * (r - 1)) / 8 + 4 * c, w_tag + 64 + 192 * (r - 1) + 32 * c);
    for (unsigned rr = 0; rr < 4; ++rr) sb[rr] = std::uint8_t(sb[rr] ^ k[2 * r * 16 + 4 * c + rr]);
    for (unsigned b = 0; b < 32; ++b) sb_tag[b] ^= k_tag[2 * r * 128 + 32 * c + b];
  }

  // State byte i of round r (value x, tags x_tag): its conjugates, its norm's constraint
  // (one update) and the S-box's affine input, st = (d0, d1, d2) for the S-box and then
  // for its square.
  TEMPO_FAEST_HD void round_byte(unsigned r, unsigned i, const std::uint8_t* w, const gf128* w_tag, std::uint8_t x,
                                 const gf128 x_tag[8], gf128 st[round_byte_gf]) {
    struct {
      gf128 c[8], ct[8], y[4], y_tag[4], sd0[8], sd1[8], sd2[8];
    } l;  // wiped at the end, in one call
    auto& [c, ct, y, y_tag, sd0, sd1, sd2] = l;
    for (unsigned j = 0; j < 7; ++j) {
      c[j] = G::byte_combine_bits(x);
      x = bits_sq(x);
    }
    c[7] = G::byte_combine_bits(x);
    dot8x8<B>(x_tag, owf_consts().conj, ct);
    const unsigned norm = unsigned(w[(192 * r + 4 * i) / 8] >> ((i % 2) * 4)) & 0xf;
    for (unsigned q = 0; q < 4; ++q)
      y[q] = gf_mask(owf_consts().beta_squares[q], norm >> 1) ^ gf_from_bit(norm) ^
             gf_mask(owf_consts().beta_squares[q + 1], norm >> 2) ^ gf_mask(owf_consts().beta_cubes[q], norm >> 3);
    norm_conj4<B>(w_tag + 192 * r + 4 * i, y_tag);
    const gf128 c1t4 = B::mul(c[1], ct[4]), c4t1 = B::mul(c[4], ct[1]), t14 = B::mul(ct[1], ct[4]);
    const gf128 v1 = B::mul(y[0], t14) ^ B::mul(y_tag[0], c4t1) ^ B::mul(y_tag[0], c1t4);
    const gf128 v2 = B::mul(y[0], c1t4) ^ B::mul(y[0], c4t1) ^ B::mul(B::mul(y_tag[0], c[1]), c[4]) ^ ct[0];
    hs.update(B::mul(y_tag[0], t14), v1, v2);
    rot_mul8<B>(c, y, nullptr, nullptr, sd2);
    rot_mul8<B>(c, y_tag, ct, y, sd1);
    rot_mul8<B>(ct, y_tag, nullptr, nullptr, sd0);
    for (unsigned b = 0; b < 2; ++b) {
      const gf128* coef = owf_consts().sbox[b];  // C[c] for in[8i + (c + sq) % 8]
      st[3 * b] = dot8<B>(sd0, coef);
      st[3 * b + 1] = dot8<B>(sd1, coef);
      st[3 * b + 2] = dot8<B>(sd2, coef) ^ (b ? owf_consts().c_squares : owf_consts().c)[8];
    }
    wipe(&l, sizeof l);
  }

  // Column c of round r: ShiftRows and MixColumns of the S-box inputs st (all 16 bytes'
  // round_byte outputs; the column reads four of them), the round key 2r + 1, and the
  // constraints of the S-box outputs of bytes 4c .. 4c + 3 (8 updates).
  TEMPO_FAEST_HD void round_column(unsigned r, unsigned c, const std::uint8_t out[16], const std::uint8_t* w,
                                   const gf128* w_tag, const std::uint8_t k[176], const gf128 k_tag[1408],
                                   const gf128 (*st)[round_byte_gf]) {
    gf128 m[2][3][4];  // [S-box or its square][degree 0, 1, 2][row]
    for (unsigned b = 0; b < 2; ++b) {
      const gf128 v2 = b ? owf_consts().bc_2_sq : owf_consts().bc_2, v3 = b ? owf_consts().bc_3_sq : owf_consts().bc_3;
      for (unsigned d = 0; d < 3; ++d) {
        gf128 col[4];
        for (unsigned rr = 0; rr < 4; ++rr) col[rr] = st[4 * ((c + rr) % 4) + rr][3 * b + d];  // ShiftRows
        mix_column<B>(col, v2, v3, m[b][d]);
        wipe(col, sizeof col);
      }
    }
    for (unsigned rr = 0; rr < 4; ++rr) {
      const unsigned i = 4 * c + rr;
      const gf128 k0v = G::byte_combine_bits(k[(2 * r + 1) * 16 + i]);
      const gf128 k0t = G::byte_combine(k_tag + (2 * r + 1) * 128 + 8 * i);
      m[0][2][rr] ^= k0v;  // the round key as a degree-1 value
      m[0][1][rr] ^= k0t;
      m[1][0][rr] ^= B::mul(k0t, k0t);  // its square, degree 2
      m[1][2][rr] ^= B::mul(k0v, k0v);
    }
    std::uint8_t sdd, s;
    gf128 sdd_tag[8], s_tag[8];
    for (unsigned rr = 0; rr < 4; ++rr) {
      // s_tilde's byte at the inverse ShiftRows position of byte i, then the inverse affine map.
      const unsigned j = 4 * ((c + 4 - rr) % 4) + rr;
      if (r == 4) {
        sdd = std::uint8_t(out[j] ^ k[160 + j]);  // the output's tags are 0
        for (unsigned b = 0; b < 8; ++b) sdd_tag[b] = k_tag[1280 + 8 * j + b];
      } else {
        sdd = w[(64 + 192 * r) / 8 + j];
        for (unsigned b = 0; b < 8; ++b) sdd_tag[b] = w_tag[64 + 192 * r + 8 * j + b];
      }
      inverse_affine_byte(s, s_tag, sdd, sdd_tag);
      const gf128 s1 = G::byte_combine_bits(s), s0 = G::byte_combine(s_tag);
      const gf128 ss1 = G::byte_combine_bits_sq(s), ss0 = G::byte_combine_sq(s_tag);
      gf128 v1 = B::mul(ss0, m[0][1][rr]) ^ B::mul(ss1, m[0][0][rr]);
      gf128 v2 = B::mul(ss0, m[0][2][rr]) ^ B::mul(ss1, m[0][1][rr]) ^ s0;
      hs.update(B::mul(ss0, m[0][0][rr]), v1, v2);
      v1 = B::mul(s0, m[1][1][rr]) ^ B::mul(s1, m[1][0][rr]) ^ m[0][0][rr];
      v2 = B::mul(s0, m[1][2][rr]) ^ B::mul(s1, m[1][1][rr]) ^ m[0][1][rr];
      hs.update(B::mul(s0, m[1][0][rr]), v1, v2);
    }
    wipe(&sdd, 1), wipe(&s, 1), wipe(sdd_tag, sizeof sdd_tag), wipe(s_tag, sizeof s_tag), wipe(m, sizeof m);
  }

  // MixColumns on one column in bits: bytes a[0 .. 4) with their tags at (8 per byte) ->
  // out and out_tag.
  TEMPO_FAEST_HD static void bitwise_mix_one_column(std::uint8_t out[4], gf128 out_tag[32], const std::uint8_t a[4],
                                                    const gf128 at[32]) {
    std::uint8_t b[4];
    gf128 bt[32];
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned x = a[r], hi = (x >> 7) & 1;
      b[r] = std::uint8_t(hi | (((x & 1) ^ hi) << 1) | (((x >> 1) & 1) << 2) | ((((x >> 2) & 1) ^ hi) << 3) |
                          ((((x >> 3) & 1) ^ hi) << 4) | (((x >> 4) & 7) << 5));
      const gf128* t = at + 8 * r;
      gf128* o = bt + 8 * r;
      o[0] = t[7], o[1] = t[0] ^ t[7], o[2] = t[1], o[3] = t[2] ^ t[7], o[4] = t[3] ^ t[7];
      o[5] = t[4], o[6] = t[5], o[7] = t[6];
    }
    out[0] = std::uint8_t(b[0] ^ a[3] ^ a[2] ^ b[1] ^ a[1]);
    out[1] = std::uint8_t(b[1] ^ a[0] ^ a[3] ^ b[2] ^ a[2]);
    out[2] = std::uint8_t(b[2] ^ a[1] ^ a[0] ^ b[3] ^ a[3]);
    out[3] = std::uint8_t(b[3] ^ a[2] ^ a[1] ^ b[0] ^ a[0]);
    for (unsigned i = 0; i < 8; ++i) {
      out_tag[i] = bt[i] ^ at[24 + i] ^ at[16 + i] ^ bt[8 + i] ^ at[8 + i];
      out_tag[8 + i] = bt[8 + i] ^ at[i] ^ at[24 + i] ^ bt[16 + i] ^ at[16 + i];
      out_tag[16 + i] = bt[16 + i] ^ at[8 + i] ^ at[i] ^ bt[24 + i] ^ at[24 + i];
      out_tag[24 + i] = bt[24 + i] ^ at[16 + i] ^ at[8 + i] ^ bt[i] ^ at[i];
    }
    wipe(b, sizeof b), wipe(bt, sizeof bt);
  }

  // w: the witness (160 bytes), w_tag: its 1280 tags followed by the 256 mask tags; k_tag:
  // room for the expanded key's 1408 tags (wiped here).
  TEMPO_FAEST_HD void constraints(const std::uint8_t* w, const gf128* w_tag, const std::uint8_t in[16],
                                  const std::uint8_t out[16], gf128* k_tag) {
    std::uint8_t k[176];
    keys(w, w_tag, k, k_tag);
    for (unsigned r = 0; r < 5; ++r) enc_round(r, in, out, w + lke_bytes, w_tag + 448, k, k_tag);
    wipe(k, sizeof k);
    wipe(k_tag, 1408 * sizeof(gf128));
  }
  // The constraints before the encryption's (81 updates): keygen's rule (bit 0 *
  // bit 1 of the key = 0) and the key schedule, which fills k and k_tag.
  TEMPO_FAEST_HD void keys(const std::uint8_t* w, const gf128* w_tag, std::uint8_t k[176], gf128* k_tag) {
    keygen_rule(w, w_tag);
    expand_key_bytes(k, w);
    expand_key_bits(k_tag, w_tag, 0, 32);
    for (unsigned t = 0; t < 10; ++t) key_sboxes(t, w, w_tag, k, k_tag);
  }
};

// The hash updates of each round's constraints (16 norms, 32 S-box outputs), prover and
// verifier alike.
inline constexpr unsigned round_updates = 48;

// ---- verifier -------------------------------------------------------------------------------
template <class B>
struct AesVerifier {
  using G = Gf<B>;
  ZkHash<B>& h;
  gf128 delta, delta_sq;

  TEMPO_FAEST_HD gf128 cst(unsigned bit) const { return gf_mask(delta, bit); }
  TEMPO_FAEST_HD void inverse_affine_byte(gf128 y[8], const gf128 x[8]) const {
    for (int b = 0; b < 8; ++b) y[b] = x[(b + 7) % 8] ^ x[(b + 5) % 8] ^ x[(b + 2) % 8];
    y[0] ^= delta;
    y[2] ^= delta;
  }

  // Key schedule constraints of round key t (as the prover's key_sboxes), from the expanded
  // key's keys k (expand_key_bits).
  TEMPO_FAEST_HD void key_sboxes(unsigned t, const gf128* w, const gf128* k) {
    gf128 w_flat[32];
    const gf128* x = w + 128;
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned j = 4 * t + r;
      gf128 xt[8];
      for (unsigned b = 0; b < 8; ++b) {
        xt[b] = x[j * 8 + b] ^ k[128 * t + 8 * r + b];
        if (r == 0) xt[b] ^= cst(unsigned(owf_consts().rcon[t] >> b));
      }
      inverse_affine_byte(w_flat + 8 * r, xt);
    }
    const unsigned iwd = 96 + 128 * t;
    for (unsigned r = 0; r < 4; ++r) {
      const unsigned rp = (r + 1) % 4;
      const gf128 kh = G::byte_combine(k + iwd + 8 * rp), kh_sq = G::byte_combine_sq(k + iwd + 8 * rp);
      const gf128 wh = G::byte_combine(w_flat + 8 * r), wh_sq = G::byte_combine_sq(w_flat + 8 * r);
      h.update(B::mul(B::mul(kh_sq, wh) ^ B::mul(delta, kh), delta));
      h.update(B::mul(B::mul(kh, wh_sq) ^ B::mul(delta, wh), delta));
    }
  }
  TEMPO_FAEST_HD void keygen_rule(const gf128* w) { h.update(B::mul(B::mul(w[0], w[1]), delta)); }

  // Round r (as the prover's enc_round: independent of the other rounds, in bytes and then
  // columns); in and out: the public AES input and output, whose keys are delta times their
  // bits.
  TEMPO_FAEST_HD void enc_round(unsigned r, const std::uint8_t in[16], const std::uint8_t out[16], const gf128* w,
                                const gf128* k) {
    gf128 st[16][round_byte_gf];
    for (unsigned c = 0; c < 4; ++c) {
      gf128 sb[32];
      round_state_column(r, c, in, w, k, sb);
      for (unsigned rr = 0; rr < 4; ++rr) round_byte(r, 4 * c + rr, w, sb + 8 * rr, st[4 * c + rr]);
    }
    for (unsigned c = 0; c < 4; ++c) round_column(r, c, out, w, k, st);
  }

  // The keys of column c of round r's input state (as the prover's round_state_column).
  TEMPO_FAEST_HD void round_state_column(unsigned r, unsigned c, const std::uint8_t in[16], const gf128* w,
                                         const gf128* k, gf128 sb[32]) const {
    if (r == 0) {
      for (unsigned b = 0; b < 32; ++b) sb[b] = cst(get_bit(in, 32 * c + b)) ^ k[32 * c + b];
      return;
    }
    const std::uint8_t zero[4] = {};
    std::uint8_t dummy[4];
    AesProver<B>::bitwise_mix_one_column(dummy, sb, zero, w + 64 + 192 * (r - 1) + 32 * c);
    for (unsigned b = 0; b < 32; ++b) sb[b] ^= k[2 * r * 128 + 32 * c + b];
  }

  // State byte i of round r (keys x): its norm's constraint (one update) and the S-box's
  // affine input, st[0] for the S-box and st[1] for its square.
  TEMPO_FAEST_HD void round_byte(unsigned r, unsigned i, const gf128* w, const gf128 x[8], gf128 st[round_byte_gf]) {
    gf128 c[8], y[4], sdash[8];
    dot8x8<B>(x, owf_consts().conj, c);  // conjugates of the key values
    norm_conj4<B>(w + 192 * r + 4 * i, y);
    h.update(B::mul(B::mul(y[0], c[1]), c[4]) ^ B::mul(B::mul(c[0], delta), delta));
    rot_mul8<B>(c, y, nullptr, nullptr, sdash);
    for (unsigned b = 0; b < 2; ++b) {
      const gf128* C = b ? owf_consts().c_squares : owf_consts().c;
      st[b] = dot8<B>(sdash, owf_consts().sbox[b]) ^ B::mul(C[8], delta_sq);
    }
  }

  // Column c of round r (as the prover's round_column): 8 updates.
  TEMPO_FAEST_HD void round_column(unsigned r, unsigned c, const std::uint8_t out[16], const gf128* w, const gf128* k,
                                   const gf128 (*st)[round_byte_gf]) {
    gf128 m[2][4];
    for (unsigned b = 0; b < 2; ++b) {
      const gf128 v2 = b ? owf_consts().bc_2_sq : owf_consts().bc_2, v3 = b ? owf_consts().bc_3_sq : owf_consts().bc_3;
      gf128 col[4];
      for (unsigned rr = 0; rr < 4; ++rr) col[rr] = st[4 * ((c + rr) % 4) + rr][b];  // ShiftRows
      mix_column<B>(col, v2, v3, m[b]);
    }
    for (unsigned rr = 0; rr < 4; ++rr) {
      const gf128 k0 = G::byte_combine(k + (2 * r + 1) * 128 + 8 * (4 * c + rr));
      m[0][rr] ^= B::mul(k0, delta);
      m[1][rr] ^= B::mul(k0, k0);
    }
    for (unsigned rr = 0; rr < 4; ++rr) {
      // s_tilde's byte at the inverse ShiftRows position of byte 4c + rr, then the inverse
      // affine map.
      const unsigned j = 4 * ((c + 4 - rr) % 4) + rr;
      gf128 sdd[8], s[8];
      for (unsigned b = 0; b < 8; ++b)
        sdd[b] = r == 4 ? cst(get_bit(out, 8 * j + b)) ^ k[1280 + 8 * j + b] : w[64 + 192 * r + 8 * j + b];
      inverse_affine_byte(s, sdd);
      const gf128 sk = G::byte_combine(s), ssk = G::byte_combine_sq(s);
      h.update(B::mul(ssk, m[0][rr]) ^ B::mul(delta_sq, sk));
      h.update(B::mul(sk, m[1][rr]) ^ B::mul(delta, m[0][rr]));
    }
  }

  // w: the keys of the witness and masks (1536); k: room for the expanded key's 1408 keys.
  TEMPO_FAEST_HD void constraints(const gf128* w, const std::uint8_t in[16], const std::uint8_t out[16], gf128* k) {
    keys(w, k);
    for (unsigned r = 0; r < 5; ++r) enc_round(r, in, out, w + 448, k);
  }
  // The constraints before the encryption's (81 updates); fills k.
  TEMPO_FAEST_HD void keys(const gf128* w, gf128* k) {
    keygen_rule(w);
    expand_key_bits(k, w, 0, 32);
    for (unsigned t = 0; t < 10; ++t) key_sboxes(t, w, k);
  }
};

// ---- one signature's VOLEHash and QuickSilver (shared with the device) ---------------------
// VOLEHash (faest-ref vole_hash_128) of N columns at once: x[k] is one ell_hat-bit column,
// out[k] lambda + 16 bits. The N Horner chains are independent; interleaving them keeps the
// carry-less multiplier busy instead of waiting on one chain's latency.
template <class B, unsigned N>
TEMPO_FAEST_HD void vole_hash_n(std::uint8_t* const out[N], const std::uint8_t* chall1,
                                const std::uint8_t* const x[N]) {
  const gf128 s = gf_load(chall1 + 64);
  gf128 t{};
  std::memcpy(&t.lo, chall1 + 80, 8);
  gf128 h0[N];
  std::uint64_t h1[N], w;
  for (unsigned k = 0; k < N; ++k) {
    h0[k] = gf_load(x[k]);
    std::memcpy(&h1[k], x[k], 8);
  }
  for (unsigned j = 1; j < 12; ++j)
    for (unsigned k = 0; k < N; ++k) h0[k] = B::mul(h0[k], s) ^ gf_load(x[k] + 16 * j);
  for (unsigned j = 1; j < 24; ++j)
    for (unsigned k = 0; k < N; ++k) {
      std::memcpy(&w, x[k] + 8 * j, 8);
      h1[k] = B::mul64(h1[k], t.lo) ^ w;
    }
  for (unsigned k = 0; k < N; ++k) {
    const gf128 h1f{h1[k], 0};
    const gf128 h2 = B::mul(gf_load(chall1), h0[k]) ^ B::mul(gf_load(chall1 + 16), h1f);
    const gf128 h3 = B::mul(gf_load(chall1 + 32), h0[k]) ^ B::mul(gf_load(chall1 + 48), h1f);
    std::uint8_t tmp[16];
    gf_store(out[k], h2);
    gf_store(tmp, h3);
    std::memcpy(out[k] + 16, tmp, 2);
    for (unsigned b = 0; b < utilde_bytes; ++b) out[k][b] ^= x[k][(ell + 2 * lambda) / 8 + b];
  }
}
template <class B>
TEMPO_FAEST_HD void vole_hash(std::uint8_t out[utilde_bytes], const std::uint8_t* chall1, const std::uint8_t* x) {
  std::uint8_t* const o[1] = {out};
  const std::uint8_t* const in[1] = {x};
  vole_hash_n<B, 1>(o, chall1, in);
}

// Rows 8 rb .. 8 rb + 7 of the ell_hat x lambda bit matrix given by its 128 columns: one
// byte of every column, transposed (the device runs one rb per thread: Stage::rows).
inline constexpr unsigned row_bytes = (ell + 2 * lambda) / 8;  // 192
TEMPO_FAEST_HD void columns_to_rows_byte(const std::uint8_t* cols, gf128* rows, unsigned rb) {
  std::uint8_t rowbytes[8][16];
  for (unsigned g = 0; g < 16; ++g) {
    std::uint64_t x = 0;
    for (unsigned c = 0; c < 8; ++c) x |= std::uint64_t(cols[std::size_t(8 * g + c) * ell_hat_bytes + rb]) << (8 * c);
    x = voleith::dev::transpose8(x);
    for (unsigned b = 0; b < 8; ++b) rowbytes[b][g] = std::uint8_t(x >> (8 * b));
  }
  for (unsigned b = 0; b < 8; ++b) rows[8 * rb + b] = gf_load(rowbytes[b]);
}

// Rows 0 .. ell + 2 lambda of the ell_hat x lambda bit matrix given by its 128 columns
// (B::columns_to_rows where the backend has one).
template <class B>
TEMPO_FAEST_HD void columns_to_rows(const std::uint8_t* cols, gf128* rows) {
  if constexpr (requires { B::columns_to_rows(cols, rows); }) {
    if (B::fused()) return B::columns_to_rows(cols, rows);
  }
  for (unsigned rb = 0; rb < row_bytes; ++rb) columns_to_rows_byte(cols, rows, rb);
}

// The scratch of the QuickSilver functions below, in field elements: the 1536 rows (tags or
// keys of the witness and masks), the expanded key's 1408 tags or keys, the prover's
// expanded key bytes (176), and on the device the hash states of the parts (six elements
// each: 15 parts, then 20 per round) and the rounds' S-box inputs (round_byte's outputs).
inline constexpr unsigned qs_rows = ell + 2 * lambda;
inline constexpr unsigned qs_key = qs_rows;
inline constexpr unsigned qs_key_bytes = qs_key + 1408;
inline constexpr unsigned qs_parts = qs_key_bytes + 11;
inline constexpr unsigned qs_round_subs = qs_parts + 6 * 15;
inline constexpr unsigned qs_st = qs_round_subs + 6 * 5 * 20;
inline constexpr unsigned qs_scratch_gf = qs_st + 5 * 16 * round_byte_gf;

// The prover's a0, a1, a2 from its hashes, the masks' tags (rows ell .. ell + 2 lambda) and
// the masks u_star.
template <class B>
TEMPO_FAEST_HD void prove_outputs(ZkHash3<B>& hs, const gf128* rows, const std::uint8_t* u_star, std::uint8_t a0[16],
                                  std::uint8_t a1[16], std::uint8_t a2[16]) {
  const gf128 v0 = sum_poly(rows + ell), v1 = sum_poly(rows + ell + lambda);
  const gf128 u0 = gf_load(u_star), u1 = gf_load(u_star + 16);
  gf_store(a0, hs.finalize(0, v0));
  gf_store(a1, hs.finalize(1, u0 ^ v1));
  gf_store(a2, hs.finalize(2, u1));
}

// The verifier's correction of rows [i0, i1) of q: the witness rows (i < ell) get
// delta * d_i (the mask rows stay as they are).
TEMPO_FAEST_HD void correct_rows(gf128* q, const std::uint8_t* d, gf128 delta, unsigned i0, unsigned i1) {
  for (unsigned i = i0; i < i1 && i < ell; ++i) q[i] ^= gf_mask(delta, get_bit(d, i));
}
// The verifier's rows: the keys of q from its columns, corrected (correct_rows).
template <class B>
TEMPO_FAEST_HD void verify_rows(const std::uint8_t* qcols, const std::uint8_t* d, gf128 delta, gf128* q) {
  columns_to_rows<B>(qcols, q);
  correct_rows(q, d, delta, 0, ell);
}
// The verifier's a0 = a1 delta + a2 delta^2 + q_tilde, q_tilde = the hash finalized with the
// masks' key q_star (from rows ell .. ell + 2 lambda).
template <class B>
TEMPO_FAEST_HD void verify_outputs(const ZkHash<B>& zh, const gf128* q, gf128 delta, const std::uint8_t* a1,
                                   const std::uint8_t* a2, std::uint8_t a0[16]) {
  const gf128 q_star = sum_poly(q + ell) ^ B::mul(sum_poly(q + ell + lambda), delta);
  const gf128 q_tilde = zh.finalize(q_star);
  gf_store(a0, B::mul(gf_load(a1), delta) ^ B::mul(gf_load(a2), B::mul(delta, delta)) ^ q_tilde);
}

// QuickSilver prover: w (ell bits) with masks u_star (2 lambda bits) and the VOLE columns
// (their rows are the tags); a0 feeds chall3, a1 and a2 go into the signature. The scratch
// (qs_scratch_gf elements) is wiped.
template <class B>
TEMPO_FAEST_HD void aes_prove_core(const std::uint8_t* w, const std::uint8_t* u_star, const std::uint8_t* cols,
                                   const std::uint8_t* pk, const std::uint8_t* chall2, std::uint8_t a0[16],
                                   std::uint8_t a1[16], std::uint8_t a2[16], gf128* scratch) {
  gf128* const w_tag = scratch;
  columns_to_rows<B>(cols, w_tag);
  {
    ZkHash3<B> hs(chall2);
    AesProver<B> prover{hs};
    prover.constraints(w, w_tag, pk, pk + 16, scratch + qs_key);
    prove_outputs(hs, w_tag, u_star, a0, a1, a2);
  }
  wipe(w_tag, qs_rows * sizeof(gf128));
}

// QuickSilver verifier: from d = w + u, the columns of q = v + delta * u and (a1, a2),
// the a0 that an honest prover would have sent (scratch: qs_scratch_gf elements).
template <class B>
TEMPO_FAEST_HD void aes_verify_core(const std::uint8_t* d, const std::uint8_t* qcols, const std::uint8_t* pk,
                                    const std::uint8_t* chall2, const std::uint8_t* chall3, const std::uint8_t* a1,
                                    const std::uint8_t* a2, std::uint8_t a0[16], gf128* scratch) {
  const gf128 delta = gf_load(chall3);
  gf128* const q = scratch;
  verify_rows<B>(qcols, d, delta, q);
  ZkHash<B> zh(chall2);
  AesVerifier<B> verifier{zh, delta, B::mul(delta, delta)};
  verifier.constraints(q, pk, pk + 16, scratch + qs_key);
  verify_outputs(zh, q, delta, a1, a2, a0);
}

// The same proofs in parts, for the device, each step on threads of its own:
//   rows         columns_to_rows_byte / verify_rows_byte: 8 rows from one byte of every column;
//   key          prove_key_bit / verify_key_bit: bit b of every word of the expanded key;
//   key parts    prove_key_part / verify_key_part (t < 10): the key schedule's constraints of
//                round key t (part 0 opens with keygen's rule);
//   round bytes  prove_round_byte / verify_round_byte (round r, byte i): the norm's
//                constraint and the S-box input, kept in the scratch for
//   round columns prove_round_column / verify_round_column (round r, column c): the S-box
//                outputs' constraints;
//   round join   prove_round_join / verify_round_join: round r's 20 parts chained into one;
//   join         prove_join / verify_join: the 15 parts (key parts, rounds) chained into the
//                sequential run's hashes.
// Every part is hashed from zero into its own state; a join chains states in the sequential
// order (ZkHash::then: h * s^n + h_next, n the next part's update count).
inline constexpr unsigned qs_key_parts = 10, qs_all_parts = qs_key_parts + 5;
inline constexpr unsigned key_part_updates = 8;  // part 0: one more, first
inline constexpr unsigned round_sub_parts = 20;  // 16 bytes (1 update each), 4 columns (8)
static_assert(qs_round_subs == qs_parts + 6 * qs_all_parts && qs_st == qs_round_subs + 6 * 5 * round_sub_parts);

TEMPO_FAEST_HD gf128* part_state(gf128* scratch, unsigned part) { return scratch + qs_parts + 6 * part; }
TEMPO_FAEST_HD const gf128* part_state(const gf128* scratch, unsigned part) { return scratch + qs_parts + 6 * part; }
TEMPO_FAEST_HD gf128* round_sub_state(gf128* scratch, unsigned r, unsigned x) {
  return scratch + qs_round_subs + 6 * (round_sub_parts * r + x);
}
TEMPO_FAEST_HD gf128 (*round_st(gf128* scratch, unsigned r))[round_byte_gf] {
  return reinterpret_cast<gf128(*)[round_byte_gf]>(scratch + qs_st + 16 * round_byte_gf * r);
}

TEMPO_FAEST_HD void verify_rows_byte(const std::uint8_t* qcols, const std::uint8_t* d, const std::uint8_t* chall3,
                                     gf128* scratch, unsigned rb) {
  columns_to_rows_byte(qcols, scratch, rb);
  correct_rows(scratch, d, gf_load(chall3), 8 * rb, 8 * rb + 8);
}
template <class B>
TEMPO_FAEST_HD void prove_key_bit(const std::uint8_t* w, gf128* scratch, unsigned b) {
  expand_key_bits(scratch + qs_key, scratch, b, b + 1);
  if (b == 0) AesProver<B>::expand_key_bytes(reinterpret_cast<std::uint8_t*>(scratch + qs_key_bytes), w);
}
TEMPO_FAEST_HD void verify_key_bit(gf128* scratch, unsigned b) { expand_key_bits(scratch + qs_key, scratch, b, b + 1); }

// ---- prover's parts
template <class B>
TEMPO_FAEST_HD void prove_key_part(unsigned t, const std::uint8_t* w, const std::uint8_t* chall2, gf128* scratch) {
  const auto* const k = reinterpret_cast<const std::uint8_t*>(scratch + qs_key_bytes);
  ZkHash3<B> hs(chall2);
  AesProver<B> prover{hs};
  if (t == 0) prover.keygen_rule(w, scratch);
  prover.key_sboxes(t, w, scratch, k, scratch + qs_key);
  hs.save(part_state(scratch, t));
}
template <class B>
TEMPO_FAEST_HD void prove_round_byte(unsigned r, unsigned i, const std::uint8_t* w, const std::uint8_t* pk,
                                     const std::uint8_t* chall2, gf128* scratch) {
  const auto* const k = reinterpret_cast<const std::uint8_t*>(scratch + qs_key_bytes);
  const unsigned c = i / 4;
  std::uint8_t sb[4];
  gf128 sb_tag[32];
  AesProver<B>::round_state_column(r, c, pk, w + lke_bytes, scratch + 448, k, scratch + qs_key, sb, sb_tag);
  ZkHash3<B> hs(chall2);
  AesProver<B> prover{hs};
  prover.round_byte(r, i, w + lke_bytes, scratch + 448, sb[i % 4], sb_tag + 8 * (i % 4), round_st(scratch, r)[i]);
  hs.save(round_sub_state(scratch, r, i));
  wipe(sb, sizeof sb), wipe(sb_tag, sizeof sb_tag);
}
template <class B>
TEMPO_FAEST_HD void prove_round_column(unsigned r, unsigned c, const std::uint8_t* w, const std::uint8_t* pk,
                                       const std::uint8_t* chall2, gf128* scratch) {
  const auto* const k = reinterpret_cast<const std::uint8_t*>(scratch + qs_key_bytes);
  ZkHash3<B> hs(chall2);
  AesProver<B> prover{hs};
  prover.round_column(r, c, pk + 16, w + lke_bytes, scratch + 448, k, scratch + qs_key, round_st(scratch, r));
  hs.save(round_sub_state(scratch, r, 16 + c));
}
template <class B>
TEMPO_FAEST_HD void prove_round_join(unsigned r, const std::uint8_t* chall2, gf128* scratch) {
  ZkHash3<B> hs(chall2);
  const gf128 s = hs.h[0].s, t = hs.h[0].t;
  const gf128 s8 = gf_pow<B>(s, 8), t8 = gf_pow<B>(t, 8);
  for (unsigned x = 0; x < round_sub_parts; ++x)  // x = 0: from zero
    hs.then(round_sub_state(scratch, r, x), x < 16 ? s : s8, x < 16 ? t : t8);
  hs.save(part_state(scratch, qs_key_parts + r));
}
// The scratch (rows, tags, parts) is not wiped here: the device's chunk scratch is zeroed
// once, in stream order, when the chunk ends (gpu::detail::StreamScratch: one coalesced
// memset). A wipe on this thread (66 KB in 8-byte stores, each lane of a warp 66 KB from the
// next) held the stage on one SM's load-store unit for most of its time.
template <class B>
TEMPO_FAEST_HD void prove_join(const std::uint8_t* u_star, const std::uint8_t* chall2, std::uint8_t a0[16],
                               std::uint8_t a1[16], std::uint8_t a2[16], const gf128* scratch) {
  ZkHash3<B> hs(chall2);
  const gf128 s = hs.h[0].s, t = hs.h[0].t;
  const gf128 sk = gf_pow<B>(s, key_part_updates), tk = gf_pow<B>(t, key_part_updates);
  const gf128 sn = gf_pow<B>(s, round_updates), tn = gf_pow<B>(t, round_updates);
  for (unsigned part = 0; part < qs_all_parts; ++part)  // part 0: from zero
    hs.then(part_state(scratch, part), part < qs_key_parts ? sk : sn, part < qs_key_parts ? tk : tn);
  prove_outputs(hs, scratch, u_star, a0, a1, a2);
}

// ---- verifier's parts (a ZkHash's state: two elements of the part's six)
template <class B>
struct PartVerifier {
  ZkHash<B> zh;
  AesVerifier<B> v;
  TEMPO_FAEST_HD PartVerifier(const std::uint8_t* chall2, const std::uint8_t* chall3)
      : zh(chall2), v{zh, gf_load(chall3), B::mul(gf_load(chall3), gf_load(chall3))} {}
  TEMPO_FAEST_HD void save(gf128* st) const { st[0] = zh.h0, st[1] = zh.h1; }
};
template <class B>
TEMPO_FAEST_HD void verify_key_part(unsigned t, const std::uint8_t* chall2, const std::uint8_t* chall3,
                                    gf128* scratch) {
  PartVerifier<B> p(chall2, chall3);
  if (t == 0) p.v.keygen_rule(scratch);
  p.v.key_sboxes(t, scratch, scratch + qs_key);
  p.save(part_state(scratch, t));
}
template <class B>
TEMPO_FAEST_HD void verify_round_byte(unsigned r, unsigned i, const std::uint8_t* pk, const std::uint8_t* chall2,
                                      const std::uint8_t* chall3, gf128* scratch) {
  PartVerifier<B> p(chall2, chall3);
  gf128 sb[32];
  p.v.round_state_column(r, i / 4, pk, scratch + 448, scratch + qs_key, sb);
  p.v.round_byte(r, i, scratch + 448, sb + 8 * (i % 4), round_st(scratch, r)[i]);
  p.save(round_sub_state(scratch, r, i));
}
template <class B>
TEMPO_FAEST_HD void verify_round_column(unsigned r, unsigned c, const std::uint8_t* pk, const std::uint8_t* chall2,
                                        const std::uint8_t* chall3, gf128* scratch) {
  PartVerifier<B> p(chall2, chall3);
  p.v.round_column(r, c, pk + 16, scratch + 448, scratch + qs_key, round_st(scratch, r));
  p.save(round_sub_state(scratch, r, 16 + c));
}
template <class B>
TEMPO_FAEST_HD void verify_round_join(unsigned r, const std::uint8_t* chall2, gf128* scratch) {
  ZkHash<B> zh(chall2);
  const gf128 s8 = gf_pow<B>(zh.s, 8), t8 = gf_pow<B>(zh.t, 8);
  for (unsigned x = 0; x < round_sub_parts; ++x) {
    const gf128* st = round_sub_state(scratch, r, x);
    zh.then(st[0], st[1], x < 16 ? zh.s : s8, x < 16 ? zh.t : t8);
  }
  gf128* out = part_state(scratch, qs_key_parts + r);
  out[0] = zh.h0, out[1] = zh.h1;
}
template <class B>
TEMPO_FAEST_HD void verify_join(const std::uint8_t* chall2, const std::uint8_t* chall3, const std::uint8_t* a1,
                                const std::uint8_t* a2, std::uint8_t a0[16], gf128* scratch) {
  ZkHash<B> zh(chall2);
  const gf128 sk = gf_pow<B>(zh.s, key_part_updates), tk = gf_pow<B>(zh.t, key_part_updates);
  const gf128 sn = gf_pow<B>(zh.s, round_updates), tn = gf_pow<B>(zh.t, round_updates);
  for (unsigned part = 0; part < qs_all_parts; ++part) {
    const gf128* st = part_state(scratch, part);
    zh.then(st[0], st[1], part < qs_key_parts ? sk : sn, part < qs_key_parts ? tk : tn);
  }
  verify_outputs(zh, scratch, gf_load(chall3), a1, a2, a0);
}

}  // namespace tempo::faest::detail
