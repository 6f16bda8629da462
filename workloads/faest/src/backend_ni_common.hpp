// Shared by the AES-NI and VAES backends (each TU compiled with its own instruction flags,
// so everything here lives in an anonymous namespace of the including file).
#pragma once
#include <immintrin.h>

#include "backend.hpp"
#include "gf128_reduce.hpp"
#include "gpu_halves.hpp"
#include "scheme.hpp"

namespace tempo::faest::detail {
namespace {

inline __m128i ld(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
inline void st(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }

struct NiField {
  // Always inlined: GCC's size heuristics can leave it out of line in large callers, and a
  // call per product then costs QuickSilver about a third of its time.
  [[gnu::always_inline]] static gf128 mul(gf128 a, gf128 b) {
    const __m128i x = ld(&a), y = ld(&b);
    const __m128i lo = _mm_clmulepi64_si128(x, y, 0x00), hi = _mm_clmulepi64_si128(x, y, 0x11);
    const __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(x, y, 0x01), _mm_clmulepi64_si128(x, y, 0x10));
    __m128i c_lo = _mm_xor_si128(lo, _mm_slli_si128(mid, 8));
    __m128i c_hi = _mm_xor_si128(hi, _mm_srli_si128(mid, 8));
    gf128_reduce(c_lo, c_hi);
    gf128 out;
    st(&out, c_lo);
    return out;
  }
  static std::uint64_t mul64(std::uint64_t a, std::uint64_t b) {
    const __m128i p = _mm_clmulepi64_si128(_mm_cvtsi64_si128(std::int64_t(a)), _mm_cvtsi64_si128(std::int64_t(b)), 0);
    alignas(16) std::uint64_t w[2];
    _mm_store_si128(reinterpret_cast<__m128i*>(w), p);
    const std::uint64_t lo = w[0], hi = w[1];
    const std::uint64_t l2 = lo ^ hi ^ (hi << 1) ^ (hi << 3) ^ (hi << 4);
    const std::uint64_t ov = (hi >> 63) ^ (hi >> 61) ^ (hi >> 60);
    return l2 ^ ov ^ (ov << 1) ^ (ov << 3) ^ (ov << 4);
  }
  static void leaf_hash(std::uint8_t out[48], const std::uint8_t uhash[48], const std::uint8_t x[64]) {
    const __m128i xv = ld(x);
    __m128i c[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
    for (int i = 0; i < 3; ++i) {  // u = 3 x 128 bits; c holds 512 bits in 128-bit words
      const __m128i u = ld(uhash + 16 * i);
      const __m128i lo = _mm_clmulepi64_si128(u, xv, 0x00), hi = _mm_clmulepi64_si128(u, xv, 0x11);
      const __m128i mid = _mm_xor_si128(_mm_clmulepi64_si128(u, xv, 0x01), _mm_clmulepi64_si128(u, xv, 0x10));
      c[i] = _mm_xor_si128(c[i], _mm_xor_si128(lo, _mm_slli_si128(mid, 8)));
      c[i + 1] = _mm_xor_si128(c[i + 1], _mm_xor_si128(hi, _mm_srli_si128(mid, 8)));
    }
    alignas(16) std::uint64_t w[8];
    for (int i = 0; i < 4; ++i) _mm_store_si128(reinterpret_cast<__m128i*>(w + 2 * i), c[i]);
    portable_reduce384(w);
    std::uint64_t t[6];
    std::memcpy(t, x + 16, 48);
    for (int i = 0; i < 6; ++i) w[i] ^= t[i];
    std::memcpy(out, w, 48);
  }
  static void portable_reduce384(std::uint64_t c[8]) {
    for (int wi = 7; wi >= 6; --wi) {
      const std::uint64_t t = c[wi];
      c[wi - 6] ^= t ^ (t << 2) ^ (t << 3) ^ (t << 12);
      c[wi - 5] ^= (t >> 62) ^ (t >> 61) ^ (t >> 52);
    }
  }
};

// The AES-128 key schedule with AESKEYGENASSIST (constant time).
template <int Rcon>
inline __m128i key_step(__m128i k) {
  const __m128i t = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k, Rcon), 0xff);
  k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
  k = _mm_xor_si128(k, _mm_slli_si128(k, 8));
  return _mm_xor_si128(k, t);
}
inline void expand_key(const std::uint8_t key[16], __m128i rk[11]) {
  rk[0] = ld(key);
  rk[1] = key_step<0x01>(rk[0]), rk[2] = key_step<0x02>(rk[1]), rk[3] = key_step<0x04>(rk[2]);
  rk[4] = key_step<0x08>(rk[3]), rk[5] = key_step<0x10>(rk[4]), rk[6] = key_step<0x20>(rk[5]);
  rk[7] = key_step<0x40>(rk[6]), rk[8] = key_step<0x80>(rk[7]), rk[9] = key_step<0x1b>(rk[8]);
  rk[10] = key_step<0x36>(rk[9]);
}

// faest.cpp's owf and extend (ExtendWitness) on AES-NI and GFNI: the state entering round r
// is aesenc's running value, the state after SubBytes and ShiftRows aesenclast with a zero
// key, and the inverse norm's x^238 = (x^-1)^17 the GFNI inverse and four squarings.
__attribute__((target("aes,sse4.1,gfni"))) void owf_witness_gfni(const std::uint8_t key[16],
                                                                  const std::uint8_t in[16], std::uint8_t out[16],
                                                                  std::uint8_t* w) {
  __m128i rk[11];
  expand_key(key, rk);
  std::memcpy(w, key, 16);
  alignas(16) std::uint8_t t[16];
  for (unsigned j = 0; j < 10; ++j) {
    st(t, rk[j + 1]);
    std::memcpy(w + 16 + 4 * j, t, 4);
  }
  std::uint8_t* o = w + lke_bytes;
  __m128i s = _mm_xor_si128(ld(in), rk[0]);
  for (unsigned round = 1; round < 10; ++round) {
    if (round % 2 == 1) {
      const __m128i inv = _mm_gf2p8affineinv_epi64_epi8(s, _mm_set1_epi64x(0x0102040810204080ll), 0);
      __m128i y = _mm_gf2p8mul_epi8(inv, inv);
      y = _mm_gf2p8mul_epi8(y, y);
      y = _mm_gf2p8mul_epi8(y, y);
      y = _mm_gf2p8mul_epi8(y, y);
      st(t, _mm_gf2p8mul_epi8(y, inv));  // x^-17 = x^238
      for (unsigned i = 0; i < 16; i += 2) {
        auto norm = [](unsigned v) { return (v & 1) | ((v >> 6) & 1) << 1 | ((v >> 7) & 1) << 2 | ((v >> 2) & 1) << 3; };
        *o++ = std::uint8_t(norm(t[i]) | norm(t[i + 1]) << 4);
      }
    } else {
      st(o, _mm_aesenclast_si128(s, _mm_setzero_si128()));
      o += 16;
    }
    s = _mm_aesenc_si128(s, rk[round]);
  }
  st(out, _mm_aesenclast_si128(s, rk[10]));
  secure_zero(rk, sizeof rk);
  secure_zero(t, sizeof t);
}

// owf_witness_gfni where the CPU has GFNI (besides the AES-NI the backend requires).
inline auto owf_witness_ni() -> void (*)(const std::uint8_t*, const std::uint8_t*, std::uint8_t*, std::uint8_t*) {
  return __builtin_cpu_supports("gfni") && __builtin_cpu_supports("sse4.1") ? &owf_witness_gfni : nullptr;
}

}  // namespace
}  // namespace tempo::faest::detail
