// AES-NI PRG kernels. On x86-64 this file alone is compiled with -maes -msse4.1; prg() calls
// it only after checking the CPU (cpu_has), and on other CPUs it is never reached.
#include "prg_kernels.hpp"

#if defined(__x86_64__) && defined(__AES__) && defined(__SSE4_1__)
#include <immintrin.h>

#include <tempo/secure_zero.hpp>

namespace tempo::voleith::detail {
namespace {

inline __m128i ld(const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void st(std::uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
// (w0, w1, w2, w3) -> (w0, w0^w1, w0^w1^w2, w0^w1^w2^w3)
inline __m128i prefix_xor(__m128i k) {
  k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
  return _mm_xor_si128(k, _mm_slli_si128(k, 8));
}

constexpr std::uint8_t rcon[14] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36, 0x6c, 0xd8, 0xab, 0x4d};

// SubWord(RotWord(last word)) ^ rcon in every lane: AESENCLAST of a state whose four columns
// are equal leaves ShiftRows without effect (and pipelines better than AESKEYGENASSIST).
inline __m128i sub_rot_last(__m128i k, std::uint8_t rc) {
  const __m128i rot = _mm_set1_epi32(0x0c0f0e0d);
  return _mm_aesenclast_si128(_mm_shuffle_epi8(k, rot), _mm_set1_epi32(rc));
}
inline __m128i sub_last(__m128i k) { return _mm_aesenclast_si128(_mm_shuffle_epi32(k, 0xff), _mm_setzero_si128()); }

// The key's tweak applied to the stream's base block (the first 16 bytes).
template <Counter C>
inline __m128i tweaked(__m128i base, std::uint32_t tw) {
  if constexpr (C == Counter::ctr32) return _mm_add_epi32(base, _mm_set_epi32(static_cast<int>(tw), 0, 0, 0));
  return _mm_xor_si128(base, _mm_set_epi32(0, 0, static_cast<int>(tw >> 24), static_cast<int>(tw << 8)));
}
// ... and block b.
template <Counter C>
inline __m128i block_of(__m128i ctr, std::uint32_t b) {
  if constexpr (C == Counter::ctr32) return _mm_add_epi32(ctr, _mm_cvtsi32_si128(static_cast<int>(b)));
  return _mm_xor_si128(ctr, _mm_cvtsi32_si128(static_cast<int>(b)));
}

// The tail block (truncated, or kept < 16) through a buffer.
inline void store_tail(const PrgStream& s, std::size_t j, std::size_t b, __m128i v) {
  alignas(16) std::uint8_t tmp[16];
  st(tmp, v);
  put_block<16>(s, j, b, tmp);
}

// G keys at a time (a compile-time G keeps the states in registers; the independent chains
// interleave and hide the AESENC latency).
template <Counter C, std::size_t G>
void aes128(Keys keys, std::size_t j0, const PrgStream* streams, unsigned nstreams) {
  __m128i rk[G][11];
  for (std::size_t g = 0; g < G; ++g) rk[g][0] = ld(keys[j0 + g]);
  for (unsigned r = 1; r <= 10; ++r)
    for (std::size_t g = 0; g < G; ++g)
      rk[g][r] = _mm_xor_si128(prefix_xor(rk[g][r - 1]), sub_rot_last(rk[g][r - 1], rcon[r - 1]));
  for (unsigned s = 0; s < nstreams; ++s) {
    const PrgStream& sp = streams[s];
    const __m128i base = ld(sp.base);
    __m128i ctr[G];
    for (std::size_t g = 0; g < G; ++g) ctr[g] = tweaked<C>(base, sp.tweaks != nullptr ? sp.tweaks[j0 + g] : sp.tweak);
    // Output pointers and the count of whole blocks in locals (see prg_vaes.cpp).
    std::uint8_t* o[G];
    for (std::size_t g = 0; g < G; ++g) o[g] = sp.out + (j0 + g) * sp.stride;
    const std::size_t nb = blocks_of(sp), full = sp.kept == 16 ? sp.len / 16 : 0;
    for (std::size_t b = 0; b < nb; ++b) {
      __m128i x[G];
      for (std::size_t g = 0; g < G; ++g) x[g] = _mm_xor_si128(block_of<C>(ctr[g], std::uint32_t(b)), rk[g][0]);
      for (unsigned r = 1; r < 10; ++r)
        for (std::size_t g = 0; g < G; ++g) x[g] = _mm_aesenc_si128(x[g], rk[g][r]);
      for (std::size_t g = 0; g < G; ++g) x[g] = _mm_aesenclast_si128(x[g], rk[g][10]);
      if (b < full) {
        for (std::size_t g = 0; g < G; ++g) st(o[g] + 16 * b, x[g]);
      } else {
        for (std::size_t g = 0; g < G; ++g) store_tail(sp, j0 + g, b, x[g]);
      }
    }
  }
  secure_zero(rk, sizeof rk);
}

// Rijndael-256: a 256-bit state in two halves; before each AESENC the bytes move between and
// within the halves so that AES's ShiftRows on each half gives Rijndael-256's (row offsets
// 0, 1, 3, 4).
template <Counter C, std::size_t G>
void rijndael256(Keys keys, std::size_t j0, const PrgStream* streams, unsigned nstreams) {
  __m128i rk[G][15][2];
  for (std::size_t g = 0; g < G; ++g) {
    alignas(16) std::uint8_t key[32] = {};
    std::memcpy(key, keys[j0 + g], keys.bytes);
    rk[g][0][0] = ld(key);
    rk[g][0][1] = ld(key + 16);
    secure_zero(key, sizeof key);
  }
  for (unsigned r = 1; r <= 14; ++r)
    for (std::size_t g = 0; g < G; ++g) {
      const __m128i k0 = _mm_xor_si128(prefix_xor(rk[g][r - 1][0]), sub_rot_last(rk[g][r - 1][1], rcon[r - 1]));
      rk[g][r][0] = k0;
      rk[g][r][1] = _mm_xor_si128(prefix_xor(rk[g][r - 1][1]), sub_last(k0));
    }
  const __m128i shuf = _mm_set_epi32(0x03020d0c, 0x0f0e0908, 0x0b0a0504, 0x07060100);
  const __m128i blend = _mm_set_epi32(static_cast<int>(0x80000000u), static_cast<int>(0x80800000u),
                                      static_cast<int>(0x80800000u), static_cast<int>(0x80808000u));
  for (unsigned s = 0; s < nstreams; ++s) {
    const PrgStream& sp = streams[s];
    const __m128i base0 = ld(sp.base), base1 = ld(sp.base + 16);
    __m128i ctr[G];
    for (std::size_t g = 0; g < G; ++g) ctr[g] = tweaked<C>(base0, sp.tweaks != nullptr ? sp.tweaks[j0 + g] : sp.tweak);
    const std::size_t nb = blocks_of(sp);
    for (std::size_t b = 0; b < nb; ++b) {
      __m128i x0[G], x1[G];
      for (std::size_t g = 0; g < G; ++g) {
        x0[g] = _mm_xor_si128(block_of<C>(ctr[g], std::uint32_t(b)), rk[g][0][0]);
        x1[g] = _mm_xor_si128(base1, rk[g][0][1]);
      }
      for (unsigned r = 1; r <= 14; ++r)
        for (std::size_t g = 0; g < G; ++g) {
          const __m128i t0 = _mm_shuffle_epi8(_mm_blendv_epi8(x0[g], x1[g], blend), shuf);
          const __m128i t1 = _mm_shuffle_epi8(_mm_blendv_epi8(x1[g], x0[g], blend), shuf);
          if (r < 14) {
            x0[g] = _mm_aesenc_si128(t0, rk[g][r][0]);
            x1[g] = _mm_aesenc_si128(t1, rk[g][r][1]);
          } else {
            x0[g] = _mm_aesenclast_si128(t0, rk[g][r][0]);
            x1[g] = _mm_aesenclast_si128(t1, rk[g][r][1]);
          }
        }
      for (std::size_t g = 0; g < G; ++g) {
        alignas(16) std::uint8_t tmp[32];
        st(tmp, x0[g]);
        st(tmp + 16, x1[g]);
        put_block<32>(sp, j0 + g, b, tmp);
        secure_zero(tmp, sizeof tmp);
      }
    }
  }
  secure_zero(rk, sizeof rk);
}

template <Counter C>
void run(Cipher cipher, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  constexpr std::size_t G = 8;
  std::size_t j = 0;
  if (cipher == Cipher::aes128) {
    for (; j + G <= n; j += G) aes128<C, G>(keys, j, streams, nstreams);
    for (; j + 4 <= n; j += 4) aes128<C, 4>(keys, j, streams, nstreams);
    for (; j < n; ++j) aes128<C, 1>(keys, j, streams, nstreams);
  } else {
    for (; j + 4 <= n; j += 4) rijndael256<C, 4>(keys, j, streams, nstreams);
    for (; j < n; ++j) rijndael256<C, 1>(keys, j, streams, nstreams);
  }
}

}  // namespace

void prg_ni(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  with_counter(counter, [&](auto c) { run<decltype(c)::value>(cipher, keys, n, streams, nstreams); });
}

}  // namespace tempo::voleith::detail
#else
namespace tempo::voleith::detail {
// Never called: cpu_has(Isa::aesni) is false where this file has no AES-NI code.
void prg_ni(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  prg_portable(cipher, counter, keys, n, streams, nstreams);
}
}  // namespace tempo::voleith::detail
#endif
