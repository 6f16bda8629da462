// FAEST's leaf commitments and ConvertToVOLE fused with their AES-128-CTR PRG on VAES +
// VPCLMULQDQ + AVX-512 (four keys per 512-bit register). The generic path writes every PRG
// block to memory and reads it back (64 bytes per leaf for the commitment, 210 per leaf for
// the VOLE rows); here the blocks stay in registers: the leaf hash is computed four leaves at
// a time, and the VOLE sums are accumulated without ever storing a row. Same bytes as the
// generic path. Included by backend_vaes.cpp only (compiled with -maes -mpclmul); the
// functions here carry their own target attribute and run only where available() says so.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tempo/secure_zero.hpp>
#include <tempo/voleith/detail/avx512_lane.hpp>

#include "common.hpp"
#include "gf128_reduce.hpp"

namespace tempo::faest::detail::vaes512 {
namespace {
// Outside the target region, so that the callers' checks inline: read once, at static
// initialization (hence __builtin_cpu_init first).
const bool cpu_ok = (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                                               __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("vaes") &&
                                               __builtin_cpu_supports("vpclmulqdq"));
inline bool available() { return cpu_ok; }
}  // namespace
}  // namespace tempo::faest::detail::vaes512

#pragma GCC push_options
#pragma GCC target("avx2,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")

namespace tempo::faest::detail::vaes512 {
namespace {

constexpr std::uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};

inline __m512i xor3(__m512i a, __m512i b, __m512i c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }

// The AES-128 key schedules of four keys (one per 128-bit lane): word i of round key r is
// w[i] = w[i - 4] ^ (i % 4 == 0 ? SubWord(RotWord(w[i - 1])) ^ rcon : w[i - 1]), i.e. the
// prefix XOR of the previous round key plus the broadcast SubWord term.
inline void expand4(__m512i k, __m512i rk[11]) {
  rk[0] = k;
  for (unsigned r = 1; r <= 10; ++r) {
    const __m512i t = _mm512_aesenclast_epi128(_mm512_shuffle_epi8(k, _mm512_set1_epi32(0x0c0f0e0d)),
                                               _mm512_set1_epi32(rcon[r - 1]));
    const __m512i y = _mm512_xor_si512(k, _mm512_bslli_epi128(k, 4));
    k = xor3(y, _mm512_bslli_epi128(y, 8), t);
    rk[r] = k;
  }
}

inline __m512i bcast(const std::uint8_t* p) {
  return _mm512_maskz_broadcast_i32x4(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
// Four 16-byte keys, one per lane.
inline __m512i load4keys(const std::uint8_t* const* k) {
  auto ld = [&](unsigned q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(k[q])); };
  __m512i v = _mm512_maskz_broadcast_i32x4(0x000f, ld(0));
  v = _mm512_mask_broadcast_i32x4(v, 0x00f0, ld(1));
  v = _mm512_mask_broadcast_i32x4(v, 0x0f00, ld(2));
  return _mm512_mask_broadcast_i32x4(v, 0xf000, ld(3));
}

inline __m512i aes_enc(__m512i x, const __m512i rk[11]) {
  x = _mm512_xor_si512(x, rk[0]);
  for (unsigned r = 1; r < 10; ++r) x = _mm512_aesenc_epi128(x, rk[r]);
  return _mm512_aesenclast_epi128(x, rk[10]);
}

// The counter block of every lane: iv with tweak added to word 3 (mod 2^32).
inline __m512i counter_base(const std::uint8_t iv[16], std::uint32_t tweak) {
  const __m512i b = _mm512_maskz_broadcast_i32x4(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(iv)));
  return _mm512_add_epi32(b, _mm512_maskz_set1_epi32(0x8888, static_cast<int>(tweak)));
}
// Block index b added to word 0 of every lane.
inline __m512i counter_at(__m512i base, std::uint32_t b) {
  return _mm512_add_epi32(base, _mm512_maskz_set1_epi32(0x1111, static_cast<int>(b)));
}

// The zero-masking forms of extract, broadcast and shifts throughout: GCC 12 warns on the
// plain ones' undefined pass-through. lane(): voleith's, shared with its AVX-512 PRG.
using voleith::detail::lane;
inline void store16(std::uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }

// The GGM tree's PRG on G groups of four adjacent nodes from node a (see expand_nodes).
template <unsigned G>
inline void expand_node_groups(const std::uint8_t* seeds, std::uint32_t a, __m512i ivb, std::uint8_t* out,
                               __m512i (*rk)[11]) {
  const __m512i lo_idx = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0), hi_idx = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  __m512i x[G][2];
  for (unsigned h = 0; h < G; ++h) {
    expand4(_mm512_loadu_si512(seeds + 64 * h), rk[h]);
    const std::uint32_t t = a + 4 * h;
    const __m512i ctr = _mm512_add_epi32(ivb, _mm512_set_epi32(int(t + 3), 0, 0, 0, int(t + 2), 0, 0, 0, int(t + 1), 0,
                                                               0, 0, int(t), 0, 0, 0));
    x[h][0] = _mm512_xor_si512(ctr, rk[h][0]);
    x[h][1] = _mm512_xor_si512(counter_at(ctr, 1), rk[h][0]);
  }
  for (unsigned r = 1; r < 10; ++r)
    for (unsigned h = 0; h < G; ++h)
      for (unsigned b = 0; b < 2; ++b) x[h][b] = _mm512_aesenc_epi128(x[h][b], rk[h][r]);
  for (unsigned h = 0; h < G; ++h) {
    for (unsigned b = 0; b < 2; ++b) x[h][b] = _mm512_aesenclast_epi128(x[h][b], rk[h][10]);
    // Node q's 32 bytes are block 0 then block 1 of lane q.
    _mm512_storeu_si512(out + 128 * h, _mm512_permutex2var_epi64(x[h][0], lo_idx, x[h][1]));
    _mm512_storeu_si512(out + 128 * h + 64, _mm512_permutex2var_epi64(x[h][0], hi_idx, x[h][1]));
  }
}

// The GGM tree's PRG on a run of n adjacent nodes from node a0 (FAEST: node a's children are
// AES-128-CTR(seed_a, iv + a)[0..32)): seeds 16n bytes, out 32n bytes; n a multiple of 4.
inline void expand_nodes(const std::uint8_t* seeds, std::size_t n, std::uint32_t a0, const std::uint8_t iv[16],
                         std::uint8_t* out) {
  const __m512i ivb = bcast(iv);
  __m512i rk[4][11];
  std::size_t q = 0;
  for (; q + 16 <= n; q += 16) expand_node_groups<4>(seeds + 16 * q, a0 + std::uint32_t(q), ivb, out + 32 * q, rk);
  for (; q + 4 <= n; q += 4) expand_node_groups<1>(seeds + 16 * q, a0 + std::uint32_t(q), ivb, out + 32 * q, rk);
  secure_zero(rk, sizeof rk);
}

// Leaf commitments of G groups of four keys from group g0 (see leaf_commit): G independent
// key schedules and hashes side by side, so one group's latency hides behind the other's.
// rk, x: the caller's (wiped once by it).
template <unsigned G>
inline void leaf_commit_groups(const std::uint8_t* const* keys, unsigned n, unsigned g0, __m512i base,
                               const __m512i u[3], std::uint8_t* const* com, std::uint8_t* sd, __m512i (*rk)[11],
                               __m512i (*x)[4]) {
  for (unsigned h = 0; h < G; ++h) expand4(load4keys(keys + 4 * (g0 + h)), rk[h]);
  for (unsigned b = 0; b < 4; ++b)
    for (unsigned h = 0; h < G; ++h) x[h][b] = aes_enc(counter_at(base, b), rk[h]);
  for (unsigned h = 0; h < G; ++h) {
    const unsigned g = g0 + h;
    // uhash * x0: three 128 x 128 products into c[0..3] (128-bit words of the 512-bit product).
    __m512i c[4];
    c[0] = c[1] = c[2] = c[3] = _mm512_setzero_si512();
    for (unsigned i = 0; i < 3; ++i) {
      const __m512i x0 = x[h][0];
      const __m512i lo = _mm512_clmulepi64_epi128(u[i], x0, 0x00), hi = _mm512_clmulepi64_epi128(u[i], x0, 0x11);
      const __m512i mid =
          _mm512_xor_si512(_mm512_clmulepi64_epi128(u[i], x0, 0x01), _mm512_clmulepi64_epi128(u[i], x0, 0x10));
      c[i] = xor3(c[i], lo, _mm512_bslli_epi128(mid, 8));
      c[i + 1] = xor3(c[i + 1], hi, _mm512_bsrli_epi128(mid, 8));
    }
    // Fold 64-bit words 6 and 7 (c[3]) into words 0..2: z^384 = z^12 + z^3 + z^2 + 1.
    const __m512i t = c[3];
    const __m512i fold = xor3(_mm512_xor_si512(t, _mm512_maskz_slli_epi64(0xff, t, 2)),
                              _mm512_maskz_slli_epi64(0xff, t, 3), _mm512_maskz_slli_epi64(0xff, t, 12));
    const __m512i carry = xor3(_mm512_maskz_srli_epi64(0xff, t, 62), _mm512_maskz_srli_epi64(0xff, t, 61),
                               _mm512_maskz_srli_epi64(0xff, t, 52));
    c[0] = xor3(c[0], fold, _mm512_bslli_epi128(carry, 8));  // word 6 -> 0, its carry -> 1; word 7 -> 1
    c[1] = xor3(c[1], x[h][2], _mm512_bsrli_epi128(carry, 8));  // word 7's carry -> 2
    c[0] = _mm512_xor_si512(c[0], x[h][1]);
    c[2] = _mm512_xor_si512(c[2], x[h][3]);
    const unsigned m = n - 4 * g < 4 ? n - 4 * g : 4;
    if (m == 4) {
      _mm512_storeu_si512(sd + 64 * g, x[h][0]);
    } else {
      for (unsigned l = 0; l < m; ++l) store16(sd + 64 * g + 16 * l, lane(x[h][0], l));
    }
    for (unsigned l = 0; l < m; ++l) {
      std::uint8_t* o = com[4 * g + l];
      store16(o, lane(c[0], l));
      store16(o + 16, lane(c[1], l));
      store16(o + 32, lane(c[2], l));
    }
  }
}

// Leaf commitments (FAEST v2 BAVC, faest-ref leaf_hash_128): for each of n keys, x = the
// first 64 bytes of AES-128-CTR(key, iv + tweak), the seed sd = x[0..16) and
// com = uhash * x[0..16) + x[16..64) in GF(2^384) = GF(2)[z] / (z^384 + z^12 + z^3 + z^2 + 1).
// keys[q]: 16 bytes each, the list padded to whole groups of four (any readable key);
// com[q]: 48 bytes each; sd: 16 * n bytes.
inline void leaf_commit(const std::uint8_t* const* keys, unsigned n, const std::uint8_t iv[16], std::uint32_t tweak,
                        const std::uint8_t uhash[48], std::uint8_t* const* com, std::uint8_t* sd) {
  const __m512i base = counter_base(iv, tweak);
  __m512i u[3];
  for (unsigned i = 0; i < 3; ++i)
    u[i] = _mm512_maskz_broadcast_i32x4(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(uhash + 16 * i)));
  const unsigned groups = (n + 3) / 4;
  __m512i rk[2][11], x[2][4];
  unsigned g = 0;
  for (; g + 2 <= groups; g += 2) leaf_commit_groups<2>(keys, n, g, base, u, com, sd, rk, x);
  if (g < groups) leaf_commit_groups<1>(keys, n, g, base, u, com, sd, rk, x);
  secure_zero(rk, sizeof rk);
  secure_zero(x, sizeof x);
}

// sum x[b] * c[b] in GF(2^128) for b < 8: the eight 256-bit products four per instruction,
// summed per lane, then one reduction (x^128 = x^7 + x^2 + x + 1).
inline gf128 dot8(const gf128* x, const gf128* c) {
  const __m512i x0 = _mm512_loadu_si512(x), x1 = _mm512_loadu_si512(x + 4);
  const __m512i c0 = _mm512_loadu_si512(c), c1 = _mm512_loadu_si512(c + 4);
  const __m512i mid = xor3(_mm512_clmulepi64_epi128(x0, c0, 0x01), _mm512_clmulepi64_epi128(x0, c0, 0x10),
                           _mm512_xor_si512(_mm512_clmulepi64_epi128(x1, c1, 0x01),
                                            _mm512_clmulepi64_epi128(x1, c1, 0x10)));
  const __m512i lo = xor3(_mm512_clmulepi64_epi128(x0, c0, 0x00), _mm512_clmulepi64_epi128(x1, c1, 0x00),
                          _mm512_bslli_epi128(mid, 8));
  const __m512i hi = xor3(_mm512_clmulepi64_epi128(x0, c0, 0x11), _mm512_clmulepi64_epi128(x1, c1, 0x11),
                          _mm512_bsrli_epi128(mid, 8));
  const __m256i lo2 = _mm256_xor_si256(_mm512_maskz_extracti64x4_epi64(0xf, lo, 0), _mm512_maskz_extracti64x4_epi64(0xf, lo, 1));
  const __m256i hi2 = _mm256_xor_si256(_mm512_maskz_extracti64x4_epi64(0xf, hi, 0), _mm512_maskz_extracti64x4_epi64(0xf, hi, 1));
  __m128i c_lo = _mm_xor_si128(_mm256_castsi256_si128(lo2), _mm256_extracti128_si256(lo2, 1));
  __m128i c_hi = _mm_xor_si128(_mm256_castsi256_si128(hi2), _mm256_extracti128_si256(hi2, 1));
  gf128_reduce(c_lo, c_hi);
  gf128 out;
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&out), c_lo);
  return out;
}

// x[q] * y[q] for four lanes, added unreduced into lo and hi (each lane's low and high 128 bits).
inline void clmul4(__m512i x, __m512i y, __m512i& lo, __m512i& hi) {
  const __m512i mid = _mm512_xor_si512(_mm512_clmulepi64_epi128(x, y, 0x01), _mm512_clmulepi64_epi128(x, y, 0x10));
  lo = xor3(lo, _mm512_clmulepi64_epi128(x, y, 0x00), _mm512_bslli_epi128(mid, 8));
  hi = xor3(hi, _mm512_clmulepi64_epi128(x, y, 0x11), _mm512_bsrli_epi128(mid, 8));
}
// Each lane of (lo, hi) reduced, as NiField::mul reduces.
inline __m512i reduce4(__m512i lo, __m512i hi) {
  gf128_reduce(lo, hi);
  return lo;
}
inline __m512i load4(const gf128* p) { return _mm512_loadu_si512(p); }
// out[j] = a[(j + 4) % 8] * b[j % 4] (+ c[(j + 4) % 8] * d[j % 4] when c is not null), j < 8:
// out[0..4) from a[4..8), out[4..8) from a[0..4).
inline void rot_mul8(const gf128* a, const gf128* b, const gf128* c, const gf128* d, gf128* out) {
  const __m512i bv = load4(b);
  for (unsigned h = 0; h < 2; ++h) {
    const unsigned from = h == 0 ? 4 : 0;
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
    clmul4(load4(a + from), bv, lo, hi);
    if (c != nullptr) clmul4(load4(c + from), load4(d), lo, hi);
    _mm512_storeu_si512(out + 4 * h, reduce4(lo, hi));
  }
}

// The 16 bytes at x[k] + off of four columns, one per lane.
inline __m512i columns4(const std::uint8_t* const x[4], std::size_t off) {
  auto ld = [&](unsigned k) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(x[k] + off)); };
  __m512i v = _mm512_maskz_broadcast_i32x4(0x000f, ld(0));
  v = _mm512_mask_broadcast_i32x4(v, 0x00f0, ld(1));
  v = _mm512_mask_broadcast_i32x4(v, 0x0f00, ld(2));
  return _mm512_mask_broadcast_i32x4(v, 0xf000, ld(3));
}
// GF(2^64) = GF(2)[z] / (z^64 + z^4 + z^3 + z + 1) products of the low 64-bit words of each
// lane (the high words are left unspecified), as NiField::mul64 reduces.
inline __m512i mul64x4(__m512i a, __m512i b) {
  const __m512i p = _mm512_clmulepi64_epi128(a, b, 0x00);
  const __m512i hi = _mm512_bsrli_epi128(p, 8);
  const __m512i l2 = xor3(xor3(p, hi, _mm512_maskz_slli_epi64(0xff, hi, 1)), _mm512_maskz_slli_epi64(0xff, hi, 3),
                          _mm512_maskz_slli_epi64(0xff, hi, 4));
  const __m512i ov = xor3(_mm512_maskz_srli_epi64(0xff, hi, 63), _mm512_maskz_srli_epi64(0xff, hi, 61),
                          _mm512_maskz_srli_epi64(0xff, hi, 60));
  return xor3(xor3(l2, ov, _mm512_maskz_slli_epi64(0xff, ov, 1)), _mm512_maskz_slli_epi64(0xff, ov, 3),
              _mm512_maskz_slli_epi64(0xff, ov, 4));
}
// VOLEHash (owf.hpp vole_hash_n) of four ell_hat-bit columns, one per lane: the Horner
// chains of all four in the same instructions.
inline void vole_hash4(std::uint8_t* const out[4], const std::uint8_t* chall1, const std::uint8_t* const x[4]) {
  const __m512i s = bcast(chall1 + 64);
  const __m512i t = _mm512_maskz_broadcast_i32x4(  // the GF(2^64) key: the last 8 bytes of chall1
      0xffff, _mm_loadl_epi64(reinterpret_cast<const __m128i*>(chall1 + 80)));
  __m512i blk[12];
  for (unsigned j = 0; j < 12; ++j) blk[j] = columns4(x, 16 * j);
  __m512i h0 = blk[0], h1 = blk[0];
  for (unsigned j = 1; j < 12; ++j) {
    __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
    clmul4(h0, s, lo, hi);
    h0 = _mm512_xor_si512(reduce4(lo, hi), blk[j]);
  }
  for (unsigned j = 1; j < 24; ++j) {
    const __m512i w = (j & 1) ? _mm512_bsrli_epi128(blk[j / 2], 8) : blk[j / 2];
    h1 = _mm512_xor_si512(mul64x4(h1, t), w);
  }
  h1 = _mm512_maskz_mov_epi64(0x55, h1);  // (h1, 0) as an element of GF(2^128)
  __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
  clmul4(bcast(chall1), h0, lo, hi);
  clmul4(bcast(chall1 + 16), h1, lo, hi);
  const __m512i h2 = _mm512_xor_si512(reduce4(lo, hi), columns4(x, (ell + 2 * lambda) / 8));
  lo = hi = _mm512_setzero_si512();
  clmul4(bcast(chall1 + 32), h0, lo, hi);
  clmul4(bcast(chall1 + 48), h1, lo, hi);
  const __m512i h3 = reduce4(lo, hi);
  for (unsigned k = 0; k < 4; ++k) {
    store16(out[k], lane(h2, k));
    const unsigned e = unsigned(_mm_extract_epi16(lane(h3, k), 0));
    out[k][16] = std::uint8_t(e ^ x[k][(ell + 2 * lambda) / 8 + 16]);
    out[k][17] = std::uint8_t((e >> 8) ^ x[k][(ell + 2 * lambda) / 8 + 17]);
  }
}

// owf.hpp's columns_to_rows: rows 0 .. ell + 2 lambda of the bit matrix given by its 128
// columns (ell_hat_bytes each); bit c of a row is column c's bit. Four row bytes of sixteen
// columns per gather; bit j of 64 column bytes per mask test.
inline void columns_to_rows(const std::uint8_t* cols, gf128* rows) {
  constexpr unsigned nrow_bytes = (ell + 2 * lambda) / 8;  // 192
  __m512i idx[8];
  for (unsigned k = 0; k < 8; ++k)
    idx[k] = _mm512_mullo_epi32(_mm512_add_epi32(_mm512_set1_epi32(int(16 * k)),
                                                 _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)),
                                _mm512_set1_epi32(int(ell_hat_bytes)));
  for (unsigned rb4 = 0; rb4 < nrow_bytes; rb4 += 4) {
    __m512i g[8];  // lane c of g[k]: row bytes rb4 .. rb4 + 3 of column 16k + c
    for (unsigned k = 0; k < 8; ++k)
      g[k] = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), 0xffff, idx[k], cols + rb4, 1);
    for (unsigned r = 0; r < 4; ++r) {
      __m512i z[2];
      for (unsigned h = 0; h < 2; ++h) {
        auto bytes = [&](unsigned k) {
          return _mm512_maskz_cvtepi32_epi8(0xffff, _mm512_maskz_srli_epi32(0xffff, g[k], 8 * r));
        };
        __m512i v = _mm512_maskz_broadcast_i32x4(0x000f, bytes(4 * h));
        v = _mm512_mask_broadcast_i32x4(v, 0x00f0, bytes(4 * h + 1));
        v = _mm512_mask_broadcast_i32x4(v, 0x0f00, bytes(4 * h + 2));
        z[h] = _mm512_mask_broadcast_i32x4(v, 0xf000, bytes(4 * h + 3));
      }
      gf128* out = rows + 8 * (rb4 + r);
      for (unsigned j = 0; j < 8; ++j) {
        const __m512i bit = _mm512_set1_epi8(static_cast<char>(1u << j));
        out[j].lo = _mm512_test_epi8_mask(z[0], bit);
        out[j].hi = _mm512_test_epi8_mask(z[1], bit);
      }
    }
  }
}

inline __m512i bcast_gf(gf128 a) {
  return _mm512_maskz_broadcast_i32x4(0xffff, _mm_set_epi64x(static_cast<long long>(a.hi), static_cast<long long>(a.lo)));
}
// owf.hpp norm_conj4: out[q] = x[0] + bs[q] x[1] + bs[q + 1] x[2] + bc[q] x[3], the constants
// (bs, bc: 5 and 4 consecutive elements) four lanes per register.
inline void norm_conj4(const gf128* x, const gf128* bs, const gf128* bc, gf128* out) {
  __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
  clmul4(load4(bs), bcast_gf(x[1]), lo, hi);
  clmul4(load4(bs + 1), bcast_gf(x[2]), lo, hi);
  clmul4(load4(bc), bcast_gf(x[3]), lo, hi);
  _mm512_storeu_si512(out, _mm512_xor_si512(reduce4(lo, hi), bcast_gf(x[0])));
}
// owf.hpp mix_column: o[r] = a[r] v2 + a[r + 1] v3 + a[r + 2] + a[r + 3] (indices mod 4).
inline void mix_column(const gf128* a, gf128 v2, gf128 v3, gf128* o) {
  const __m512i x = load4(a);
  const __m512i r1 = _mm512_maskz_shuffle_i64x2(0xff, x, x, 0x39);  // lanes 1, 2, 3, 0
  const __m512i r2 = _mm512_maskz_shuffle_i64x2(0xff, x, x, 0x4e);  // lanes 2, 3, 0, 1
  const __m512i r3 = _mm512_maskz_shuffle_i64x2(0xff, x, x, 0x93);  // lanes 3, 0, 1, 2
  __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
  clmul4(x, bcast_gf(v2), lo, hi);
  clmul4(r1, bcast_gf(v3), lo, hi);
  _mm512_storeu_si512(o, xor3(reduce4(lo, hi), r2, r3));
}
// owf.hpp ZkHash3::update: h0s = h0s * s + v, h1s = h1s * t + v, lane k = hash k.
inline void zk3_update(gf128* h0s, gf128* h1s, gf128 s, gf128 t, const gf128* v) {
  const __m512i vv = load4(v);
  __m512i lo = _mm512_setzero_si512(), hi = _mm512_setzero_si512();
  clmul4(load4(h0s), bcast_gf(s), lo, hi);
  _mm512_storeu_si512(h0s, _mm512_xor_si512(reduce4(lo, hi), vv));
  lo = hi = _mm512_setzero_si512();
  clmul4(load4(h1s), bcast_gf(t), lo, hi);
  _mm512_storeu_si512(h1s, _mm512_xor_si512(reduce4(lo, hi), vv));
}

// conj[j] = dot8(x, c[j]) for j < 8 (owf.hpp conjugates: one byte's eight conjugates).
inline void dot8x8(const gf128* x, const gf128 (*c)[8], gf128* out) {
  for (unsigned j = 0; j < 8; ++j) out[j] = dot8(x, c[j]);
}

inline constexpr unsigned vole_blocks = (ell_hat_bytes + 15) / 16;  // 14: 13 whole blocks and 2 bytes
inline constexpr unsigned vole_max_depth = 12;

// ConvertToVOLE of one instance (FAEST v2 Section 5.2) with its PRG: leaf x's row is
// AES-128-CTR(seed_x, iv + tweak)[0..ell_hat_bytes); u = the sum of all rows, v_j (row j of
// v, ell_hat_bytes each) = the sum of the rows with bit j of x set. Leaves go 16 at a time
// (four registers of four), x = 16c + 4g + l for chunk c, register g, lane l: bits 0-1 of x
// are the lane, so v_0 and v_1 come from lanes of the sum over all registers, accumulated
// across chunks and split only at the end; bits 2-3 the register; bits 4.. the chunk.
// seeds: 16 << depth bytes; u may be null; 4 <= depth <= 12.
inline void convert_to_vole(unsigned depth, const std::uint8_t* seeds, const std::uint8_t iv[16],
                            std::uint32_t tweak, std::uint8_t* u, std::uint8_t* v) {
  constexpr unsigned nb = vole_blocks;
  // acc[0]: sum of all rows (per lane), acc[1]: registers 1 and 3 (bit 2), acc[2]: registers
  // 2 and 3 (bit 3), acc[3 + k]: chunks with bit k set (bit 4 + k).
  alignas(64) __m512i acc[3 + vole_max_depth - 4][nb];
  const unsigned nacc = 3 + depth - 4;
  for (unsigned a = 0; a < nacc; ++a)
    for (unsigned b = 0; b < nb; ++b) acc[a][b] = _mm512_setzero_si512();
  const __m512i base = counter_base(iv, tweak);
  __m512i rk[4][11];
  const std::size_t chunks = std::size_t{1} << (depth - 4);
  for (std::size_t ch = 0; ch < chunks; ++ch) {
    for (unsigned g = 0; g < 4; ++g) expand4(_mm512_loadu_si512(seeds + 256 * ch + 64 * g), rk[g]);
    for (unsigned b = 0; b < nb; b += 2) {  // two blocks of four registers: eight AES chains
      __m512i x[2][4];
      for (unsigned e = 0; e < 2; ++e) {
        const __m512i ctr = counter_at(base, b + e);
        for (unsigned g = 0; g < 4; ++g) x[e][g] = _mm512_xor_si512(ctr, rk[g][0]);
      }
      for (unsigned r = 1; r < 10; ++r)
        for (unsigned e = 0; e < 2; ++e)
          for (unsigned g = 0; g < 4; ++g) x[e][g] = _mm512_aesenc_epi128(x[e][g], rk[g][r]);
      for (unsigned e = 0; e < 2; ++e) {
        for (unsigned g = 0; g < 4; ++g) x[e][g] = _mm512_aesenclast_epi128(x[e][g], rk[g][10]);
        const __m512i hi = _mm512_xor_si512(x[e][2], x[e][3]);
        const __m512i s = xor3(x[e][0], x[e][1], hi);
        acc[0][b + e] = _mm512_xor_si512(acc[0][b + e], s);
        acc[1][b + e] = xor3(acc[1][b + e], x[e][1], x[e][3]);
        acc[2][b + e] = _mm512_xor_si512(acc[2][b + e], hi);
        for (unsigned k = 0; k < depth - 4; ++k)  // the chunk index is public
          if ((ch >> k) & 1) acc[3 + k][b + e] = _mm512_xor_si512(acc[3 + k][b + e], s);
      }
    }
  }
  // The rows out: lanes summed (or lanes 1+3, 2+3 for v_0, v_1), the last block cut short.
  auto put = [&](std::uint8_t* row, unsigned a, unsigned lanes) {
    for (unsigned b = 0; b < nb; ++b) {
      const __m512i z = acc[a][b];
      __m128i r = _mm_setzero_si128();
      for (unsigned l = 0; l < 4; ++l)
        if ((lanes >> l) & 1) r = _mm_xor_si128(r, lane(z, l));
      if (16 * (b + 1) <= ell_hat_bytes) {
        store16(row + 16 * b, r);
      } else {
        alignas(16) std::uint8_t tmp[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(tmp), r);
        std::memcpy(row + 16 * b, tmp, ell_hat_bytes - 16 * b);
        secure_zero(tmp, sizeof tmp);
      }
    }
  };
  if (u != nullptr) put(u, 0, 0xf);
  put(v, 0, 0xa);
  put(v + ell_hat_bytes, 0, 0xc);
  for (unsigned j = 2; j < depth; ++j) put(v + std::size_t(j) * ell_hat_bytes, j - 1, 0xf);
  secure_zero(acc, sizeof acc);
  secure_zero(rk, sizeof rk);
}

}  // namespace
}  // namespace tempo::faest::detail::vaes512

#pragma GCC pop_options
