// FAEST's AES-128 PRG (Counter::ctr32) on VAES + AVX-512: four keys per 512-bit register,
// so the per-key schedules (every GGM node is a key) and the rounds take half the
// instructions of the 256-bit kernel. On x86-64 this file alone is compiled with -maes
// -mavx2 -mvaes -mavx512f -mavx512bw; prg_vaes() calls it only where aes128_vaes512_ok().
#include "prg_kernels.hpp"

#if defined(__x86_64__) && defined(__VAES__) && defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>

#include <tempo/secure_zero.hpp>
#include <tempo/voleith/detail/avx512_lane.hpp>

namespace tempo::voleith::detail {
namespace {

constexpr std::uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};

inline __m512i ld4(Keys keys, std::size_t j) {
  __m512i k = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(keys[j])));
  k = _mm512_inserti32x4(k, _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys[j + 1])), 1);
  k = _mm512_inserti32x4(k, _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys[j + 2])), 2);
  return _mm512_inserti32x4(k, _mm_loadu_si128(reinterpret_cast<const __m128i*>(keys[j + 3])), 3);
}
inline __m512i prefix_xor(__m512i k) {
  k = _mm512_xor_si512(k, _mm512_bslli_epi128(k, 4));
  return _mm512_xor_si512(k, _mm512_bslli_epi128(k, 8));
}
// SubWord(RotWord(last word)) ^ rcon per 128-bit lane (see prg_ni.cpp).
inline __m512i sub_rot_last(__m512i k, std::uint8_t rc) {
  return _mm512_aesenclast_epi128(_mm512_shuffle_epi8(k, _mm512_set1_epi32(0x0c0f0e0d)), _mm512_set1_epi32(rc));
}

inline int i32(std::uint32_t v) { return static_cast<int>(v); }

// The four keys' counter blocks before the block index: base with each key's tweak added
// to word 3 (Counter::ctr32; PERK's tweak_xor stays on the 256-bit kernel).
inline __m512i tweaked4(__m512i base, const std::uint32_t t[4]) {
  return _mm512_add_epi32(base, _mm512_set_epi32(i32(t[3]), 0, 0, 0, i32(t[2]), 0, 0, 0, i32(t[1]), 0, 0, 0,
                                                 i32(t[0]), 0, 0, 0));
}

// 4P keys from j0, four per register.
template <std::size_t P>
void aes128(Keys keys, std::size_t j0, const PrgStream* streams, unsigned nstreams) {
  __m512i rk[P][11];
  for (std::size_t i = 0; i < P; ++i) rk[i][0] = ld4(keys, j0 + 4 * i);
  for (unsigned r = 1; r <= 10; ++r)
    for (std::size_t i = 0; i < P; ++i)
      rk[i][r] = _mm512_xor_si512(prefix_xor(rk[i][r - 1]), sub_rot_last(rk[i][r - 1], rcon[r - 1]));
  for (unsigned s = 0; s < nstreams; ++s) {
    const PrgStream& sp = streams[s];
    // The zero-masking forms of broadcast (and of extract: lane(), detail/avx512_lane.hpp):
    // GCC 12 warns on the plain ones' undefined pass-through (as with VPERMB in prg_vbmi.cpp).
    const __m512i base = _mm512_maskz_broadcast_i32x4(0xffff, _mm_loadu_si128(reinterpret_cast<const __m128i*>(sp.base)));
    __m512i ctr[P];
    for (std::size_t i = 0; i < P; ++i) {
      std::uint32_t t[4];
      for (unsigned l = 0; l < 4; ++l) t[l] = sp.tweaks != nullptr ? sp.tweaks[j0 + 4 * i + l] : sp.tweak;
      ctr[i] = tweaked4(base, t);
    }
    // Output pointers and the whole-block count in locals, as in prg_vaes.cpp (aliasing).
    std::uint8_t* o[4 * P];
    for (std::size_t g = 0; g < 4 * P; ++g) o[g] = sp.out + (j0 + g) * sp.stride;
    const std::size_t nb = blocks_of(sp), full = sp.kept == 16 ? sp.len / 16 : 0;
    for (std::size_t b = 0; b < nb; ++b) {
      const __m512i bb = _mm512_set_epi32(0, 0, 0, i32(static_cast<std::uint32_t>(b)), 0, 0, 0,
                                          i32(static_cast<std::uint32_t>(b)), 0, 0, 0,
                                          i32(static_cast<std::uint32_t>(b)), 0, 0, 0,
                                          i32(static_cast<std::uint32_t>(b)));
      __m512i x[P];
      for (std::size_t i = 0; i < P; ++i) x[i] = _mm512_xor_si512(_mm512_add_epi32(ctr[i], bb), rk[i][0]);
      for (unsigned r = 1; r < 10; ++r)
        for (std::size_t i = 0; i < P; ++i) x[i] = _mm512_aesenc_epi128(x[i], rk[i][r]);
      for (std::size_t i = 0; i < P; ++i) x[i] = _mm512_aesenclast_epi128(x[i], rk[i][10]);
      for (std::size_t i = 0; i < P; ++i)
        for (unsigned l = 0; l < 4; ++l) {
          if (b < full) {
            _mm_storeu_si128(reinterpret_cast<__m128i*>(o[4 * i + l] + 16 * b), lane(x[i], l));
          } else {
            alignas(16) std::uint8_t tmp[16];
            _mm_storeu_si128(reinterpret_cast<__m128i*>(tmp), lane(x[i], l));
            put_block<16>(sp, j0 + 4 * i + l, b, tmp);
            secure_zero(tmp, sizeof tmp);
          }
        }
    }
  }
  secure_zero(rk, sizeof rk);
}

}  // namespace

bool aes128_vaes512_ok() {
  static const bool ok = __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f") &&
                         __builtin_cpu_supports("avx512bw");
  return ok;
}

std::size_t aes128_ctr32_vaes512(Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  std::size_t j = 0;
  for (; j + 32 <= n; j += 32) aes128<8>(keys, j, streams, nstreams);  // eight registers cover the latency
  for (; j + 16 <= n; j += 16) aes128<4>(keys, j, streams, nstreams);
  for (; j + 4 <= n; j += 4) aes128<1>(keys, j, streams, nstreams);
  return j;
}

}  // namespace tempo::voleith::detail
#else
namespace tempo::voleith::detail {
bool aes128_vaes512_ok() { return false; }
// Never called: aes128_vaes512_ok() is false where this file has no AVX-512 code.
std::size_t aes128_ctr32_vaes512(Keys, std::size_t, const PrgStream*, unsigned) { return 0; }
}  // namespace tempo::voleith::detail
#endif
