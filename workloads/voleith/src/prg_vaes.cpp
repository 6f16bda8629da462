// VAES + AVX2 PRG kernels: AES-128 with two keys per 256-bit register, twice the blocks per
// instruction of AES-NI (four per 512-bit one where the CPU has AVX-512: prg_vaes512.cpp);
// Rijndael-256 with VBMI where the CPU has it (prg_vbmi.cpp), else
// AES-NI's kernel. On x86-64 this file alone is compiled with -maes -mavx2 -mvaes; prg()
// calls it only after checking the CPU.
#include "prg_kernels.hpp"

#if defined(__x86_64__) && defined(__VAES__) && defined(__AVX2__) && defined(__AES__)
#include <immintrin.h>

#include <tempo/secure_zero.hpp>

namespace tempo::voleith::detail {
namespace {

constexpr std::uint8_t rcon[14] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36, 0x6c, 0xd8, 0xab, 0x4d};

inline __m256i ld2(const std::uint8_t* lo, const std::uint8_t* hi) {
  return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(lo))),
                                 _mm_loadu_si128(reinterpret_cast<const __m128i*>(hi)), 1);
}
inline __m256i prefix_xor(__m256i k) {
  k = _mm256_xor_si256(k, _mm256_slli_si256(k, 4));
  return _mm256_xor_si256(k, _mm256_slli_si256(k, 8));
}
// SubWord(RotWord(last word)) ^ rcon per 128-bit lane (see prg_ni.cpp).
inline __m256i sub_rot_last(__m256i k, std::uint8_t rc) {
  const __m256i rot = _mm256_set1_epi32(0x0c0f0e0d);
  return _mm256_aesenclast_epi128(_mm256_shuffle_epi8(k, rot), _mm256_set1_epi32(rc));
}

template <Counter C>
inline __m256i tweaked2(__m256i base, std::uint32_t t0, std::uint32_t t1) {
  if constexpr (C == Counter::ctr32)
    return _mm256_add_epi32(base, _mm256_set_epi32(static_cast<int>(t1), 0, 0, 0, static_cast<int>(t0), 0, 0, 0));
  return _mm256_xor_si256(base, _mm256_set_epi32(0, 0, static_cast<int>(t1 >> 24), static_cast<int>(t1 << 8), 0, 0,
                                                 static_cast<int>(t0 >> 24), static_cast<int>(t0 << 8)));
}
template <Counter C>
inline __m256i block_of(__m256i ctr, __m256i b) {
  if constexpr (C == Counter::ctr32) return _mm256_add_epi32(ctr, b);
  return _mm256_xor_si256(ctr, b);
}

// The tail block (truncated, or kept < 16) through a buffer.
inline void store_tail(const PrgStream& s, std::size_t j, std::size_t b, __m128i v) {
  alignas(16) std::uint8_t tmp[16];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(tmp), v);
  put_block<16>(s, j, b, tmp);
}

// 2P keys at a time, two per register.
template <Counter C, std::size_t P>
void aes128(Keys keys, std::size_t j0, const PrgStream* streams, unsigned nstreams) {
  __m256i rk[P][11];
  for (std::size_t i = 0; i < P; ++i) rk[i][0] = ld2(keys[j0 + 2 * i], keys[j0 + 2 * i + 1]);
  for (unsigned r = 1; r <= 10; ++r)
    for (std::size_t i = 0; i < P; ++i)
      rk[i][r] = _mm256_xor_si256(prefix_xor(rk[i][r - 1]), sub_rot_last(rk[i][r - 1], rcon[r - 1]));
  for (unsigned s = 0; s < nstreams; ++s) {
    const PrgStream& sp = streams[s];
    const __m256i base = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(sp.base)));
    __m256i ctr[P];
    for (std::size_t i = 0; i < P; ++i) {
      const std::size_t j = j0 + 2 * i;
      ctr[i] = tweaked2<C>(base, sp.tweaks != nullptr ? sp.tweaks[j] : sp.tweak,
                           sp.tweaks != nullptr ? sp.tweaks[j + 1] : sp.tweak);
    }
    // Output pointers and the count of whole 16-byte blocks in locals: the stores through
    // them could otherwise alias the stream's fields and force reloads.
    std::uint8_t* o[2 * P];
    for (std::size_t g = 0; g < 2 * P; ++g) o[g] = sp.out + (j0 + g) * sp.stride;
    const std::size_t nb = blocks_of(sp), full = sp.kept == 16 ? sp.len / 16 : 0;
    for (std::size_t b = 0; b < nb; ++b) {
      const __m256i bb = _mm256_set_epi32(0, 0, 0, static_cast<int>(b), 0, 0, 0, static_cast<int>(b));
      __m256i x[P];
      for (std::size_t i = 0; i < P; ++i) x[i] = _mm256_xor_si256(block_of<C>(ctr[i], bb), rk[i][0]);
      for (unsigned r = 1; r < 10; ++r)
        for (std::size_t i = 0; i < P; ++i) x[i] = _mm256_aesenc_epi128(x[i], rk[i][r]);
      for (std::size_t i = 0; i < P; ++i) x[i] = _mm256_aesenclast_epi128(x[i], rk[i][10]);
      if (b < full) {
        for (std::size_t i = 0; i < P; ++i) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(o[2 * i] + 16 * b), _mm256_castsi256_si128(x[i]));
          _mm_storeu_si128(reinterpret_cast<__m128i*>(o[2 * i + 1] + 16 * b), _mm256_extracti128_si256(x[i], 1));
        }
      } else {
        for (std::size_t i = 0; i < P; ++i) {
          store_tail(sp, j0 + 2 * i, b, _mm256_castsi256_si128(x[i]));
          store_tail(sp, j0 + 2 * i + 1, b, _mm256_extracti128_si256(x[i], 1));
        }
      }
    }
  }
  secure_zero(rk, sizeof rk);
}

template <Counter C>
void run(Cipher cipher, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  std::size_t j = 0;
  if (cipher == Cipher::aes128) {
    // FAEST's PRG only: PERK's PRF measured slower on the 512-bit kernel.
    if (C == Counter::ctr32 && aes128_vaes512_ok()) j = aes128_ctr32_vaes512(keys, n, streams, nstreams);
    for (; j + 16 <= n; j += 16) aes128<C, 8>(keys, j, streams, nstreams);  // eight registers cover the latency
    for (; j + 8 <= n; j += 8) aes128<C, 4>(keys, j, streams, nstreams);
    for (; j + 2 <= n; j += 2) aes128<C, 1>(keys, j, streams, nstreams);
  } else if (rijndael256_vbmi_ok()) {
    rijndael256_vbmi(C, keys, n, streams, nstreams);
    return;
  }
  // Rijndael-256 without VBMI: the AES-NI kernel (VAES + AVX2 needs a lane-crossing permute
  // and a blend per round, no faster than AES-NI's two halves); an odd last AES-128 key.
  if (j < n) {
    Keys rest = keys;
    if (keys.list != nullptr)
      rest.list += j;
    else
      rest.first += j * keys.stride;
    PrgStream shifted[4];
    for (unsigned s = 0; s < nstreams; ++s) {
      const PrgStream& sp = streams[s];
      shifted[s] = sp;
      shifted[s].out = sp.out + j * sp.stride;
      if (sp.tweaks != nullptr) shifted[s].tweaks = sp.tweaks + j;
    }
    prg_ni(cipher, C, rest, n - j, shifted, nstreams);
  }
}

}  // namespace

void prg_vaes(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  with_counter(counter, [&](auto c) { run<decltype(c)::value>(cipher, keys, n, streams, nstreams); });
}

}  // namespace tempo::voleith::detail
#else
namespace tempo::voleith::detail {
// Never called: cpu_has(Isa::vaes) is false where this file has no VAES code.
void prg_vaes(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  prg_ni(cipher, counter, keys, n, streams, nstreams);
}
}  // namespace tempo::voleith::detail
#endif
