// AES-NI + PCLMULQDQ kernels. On x86-64 this file alone is compiled with -maes -mpclmul
// -msse4.1; it is used only after a run-time check of the CPU (ni_kernels() returns nullptr
// otherwise, and on other architectures).
#include "kernels.hpp"

#if defined(__x86_64__) && defined(__AES__) && defined(__PCLMUL__) && defined(__SSE4_1__)
#define TEMPO_PERK_NI 1
#include <immintrin.h>

#include <cstring>

#include <tempo/secure_zero.hpp>

#include "field.hpp"
#endif

namespace tempo::perk::detail {

#if TEMPO_PERK_NI
namespace {

inline __m128i ld(const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void st(std::uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
// (w0, w1, w2, w3) -> (w0, w0^w1, w0^w1^w2, w0^w1^w2^w3)
inline __m128i prefix_xor(__m128i k) {
  k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
  return _mm_xor_si128(k, _mm_slli_si128(k, 8));
}

constexpr std::uint8_t rcon[14] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36, 0x6c, 0xd8, 0xab, 0x4d};

// SubWord(RotWord(last word)) ^ rcon in every lane: AESENCLAST of a state whose four
// columns are equal leaves ShiftRows without effect.
inline __m128i sub_rot_last(__m128i k, std::uint8_t rc) {
  const __m128i rot = _mm_set1_epi32(0x0c0f0e0d);
  return _mm_aesenclast_si128(_mm_shuffle_epi8(k, rot), _mm_set1_epi32(rc));
}
inline __m128i sub_last(__m128i k) { return _mm_aesenclast_si128(_mm_shuffle_epi32(k, 0xff), _mm_setzero_si128()); }

// G keys at a time (G a compile-time constant: the states stay in registers and the
// independent chains interleave).
template <std::size_t G>
void prf_aes128(const std::uint8_t* const* seeds, const PrfStream* streams, unsigned nstreams, std::size_t j0) {
  __m128i rk[G][11];
  for (std::size_t g = 0; g < G; ++g) rk[g][0] = ld(seeds[g]);
  for (unsigned r = 1; r <= 10; ++r)
    for (std::size_t g = 0; g < G; ++g)
      rk[g][r] = _mm_xor_si128(prefix_xor(rk[g][r - 1]), sub_rot_last(rk[g][r - 1], rcon[r - 1]));
  for (unsigned s = 0; s < nstreams; ++s) {
    const PrfStream& sp = streams[s];
    const __m128i base = ld(sp.base);
    for (unsigned b = 0; b < sp.nblocks; ++b) {
      __m128i x[G];
      for (std::size_t g = 0; g < G; ++g) {
        const std::uint32_t tw = sp.tweaks ? sp.tweaks[j0 + g] : 0;
        const __m128i t = _mm_set_epi32(0, 0, static_cast<int>(tw >> 24), static_cast<int>((tw << 8) | b));
        x[g] = _mm_xor_si128(_mm_xor_si128(base, t), rk[g][0]);
      }
      for (unsigned r = 1; r < 10; ++r)
        for (std::size_t g = 0; g < G; ++g) x[g] = _mm_aesenc_si128(x[g], rk[g][r]);
      for (std::size_t g = 0; g < G; ++g) st(sp.out + (j0 + g) * sp.stride + 16 * b, _mm_aesenclast_si128(x[g], rk[g][10]));
    }
  }
  secure_zero(rk, sizeof rk);
}

// Rijndael-256: a 256-bit state in two halves; before each AESENC the bytes move between and
// within the halves so that AES's ShiftRows on each half gives Rijndael-256's (row offsets
// 0, 1, 3, 4).
template <std::size_t G>
void prf_rijndael256(unsigned lb, const std::uint8_t* const* seeds, const PrfStream* streams, unsigned nstreams,
                     std::size_t j0) {
  __m128i rk[G][15][2];
  for (std::size_t g = 0; g < G; ++g) {
    std::uint8_t key[32] = {};
    std::memcpy(key, seeds[g], lb);
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
    const PrfStream& sp = streams[s];
    const __m128i base0 = ld(sp.base), base1 = ld(sp.base + 16);
    for (unsigned b = 0; b < sp.nblocks; ++b) {
      __m128i x0[G], x1[G];
      for (std::size_t g = 0; g < G; ++g) {
        const std::uint32_t tw = sp.tweaks ? sp.tweaks[j0 + g] : 0;
        const __m128i t = _mm_set_epi32(0, 0, static_cast<int>(tw >> 24), static_cast<int>((tw << 8) | b));
        x0[g] = _mm_xor_si128(_mm_xor_si128(base0, t), rk[g][0][0]);
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
        std::uint8_t* o = sp.out + (j0 + g) * sp.stride + std::size_t{lb} * b;
        std::uint8_t tmp[32];
        st(tmp, x0[g]);
        st(tmp + 16, x1[g]);
        std::memcpy(o, tmp, lb);
        secure_zero(tmp, sizeof tmp);
      }
    }
  }
  secure_zero(rk, sizeof rk);
}

void aes_prf_ni(unsigned level, const std::uint8_t* const* seeds, std::size_t n, const PrfStream* streams,
                unsigned nstreams) {
  constexpr std::size_t G = 4;
  const std::size_t full = n / G * G;
  const unsigned lb = level == 1 ? 16 : level == 3 ? 24 : 32;
  for (std::size_t j = 0; j < full; j += G) {
    if (level == 1)
      prf_aes128<G>(seeds + j, streams, nstreams, j);
    else
      prf_rijndael256<G>(lb, seeds + j, streams, nstreams, j);
  }
  for (std::size_t j = full; j < n; ++j) {
    if (level == 1)
      prf_aes128<1>(seeds + j, streams, nstreams, j);
    else
      prf_rijndael256<1>(lb, seeds + j, streams, nstreams, j);
  }
}

// Tower products by Kronecker substitution: two 11-bit coefficients per 64-bit word, 32 bits
// apart, so one PCLMULQDQ gives three 21-bit coefficient sums of the product.
template <unsigned E>
void tower_mul_ni(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b) {
  constexpr unsigned W = E / 2;
  __m128i A[W], B[W], S[2 * W - 1];
  for (unsigned w = 0; w < W; ++w) {
    A[w] = _mm_set_epi32(0, 0, a[2 * w + 1], a[2 * w]);
    B[w] = _mm_set_epi32(0, 0, b[2 * w + 1], b[2 * w]);
  }
  for (unsigned k = 0; k < 2 * W - 1; ++k) S[k] = _mm_setzero_si128();
  for (unsigned i = 0; i < W; ++i)
    for (unsigned j = 0; j < W; ++j) S[i + j] = _mm_xor_si128(S[i + j], _mm_clmulepi64_si128(A[i], B[j], 0x00));
  std::uint32_t acc[2 * E] = {};
  for (unsigned k = 0; k < 2 * W - 1; ++k) {
    alignas(16) std::uint32_t lane[4];
    _mm_store_si128(reinterpret_cast<__m128i*>(lane), S[k]);
    acc[2 * k] ^= lane[0];
    acc[2 * k + 1] ^= lane[1];
    acc[2 * k + 2] ^= lane[2];
  }
  tower_reduce<E>(acc, out);
}
void tower12(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_ni<12>(o, a, b); }
void tower18(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_ni<18>(o, a, b); }
void tower24(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_ni<24>(o, a, b); }

inline void clmul64(std::uint64_t a, std::uint64_t b, std::uint64_t& lo, std::uint64_t& hi) {
  const __m128i r = _mm_clmulepi64_si128(_mm_cvtsi64_si128(static_cast<long long>(a)),
                                         _mm_cvtsi64_si128(static_cast<long long>(b)), 0x00);
  lo = static_cast<std::uint64_t>(_mm_cvtsi128_si64(r));
  hi = static_cast<std::uint64_t>(_mm_extract_epi64(r, 1));
}

void gf_lambda_mul_ni(unsigned n, std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b) {
  // A lambda: a specialization of this file's own, built with this file's instruction set.
  gf_lambda_mul_with([](std::uint64_t x, std::uint64_t y, std::uint64_t& lo, std::uint64_t& hi) {
    clmul64(x, y, lo, hi);
  }, n, out, a, b);
}

std::uint64_t gf64_mul_ni(std::uint64_t a, std::uint64_t b) {
  std::uint64_t lo, hi;
  clmul64(a, b, lo, hi);
  return gf64_reduce(lo, hi);
}

}  // namespace

const Kernels* ni_kernels() {
  static const bool ok =
      __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  static const Kernels k{"aesni+pclmul", &aes_prf_ni, &tower12, &tower18, &tower24, &gf_lambda_mul_ni, &gf64_mul_ni};
  return ok ? &k : nullptr;
}
#else
const Kernels* ni_kernels() { return nullptr; }
#endif

}  // namespace tempo::perk::detail
