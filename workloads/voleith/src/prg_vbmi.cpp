// Rijndael-256 with VAES and AVX-512 VBMI: one whole state per 256-bit register, and
// Rijndael-256's ShiftRows (row offsets 0, 1, 3, 4) as AES's per-half ShiftRows after one
// cross-lane byte permutation (VPERMB), so a round is two instructions. On x86-64 this file
// alone is compiled with -maes -mvaes -mavx2 -mavx512f -mavx512vl -mavx512vbmi; prg_vaes()
// calls it only on CPUs that have VBMI (rijndael256_vbmi_ok()).
#include "prg_kernels.hpp"

#if defined(__x86_64__) && defined(__VAES__) && defined(__AVX512VBMI__) && defined(__AVX512VL__)
#include <immintrin.h>

#include <tempo/secure_zero.hpp>

namespace tempo::voleith::detail {
namespace {

constexpr std::uint8_t rcon[14] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36, 0x6c, 0xd8, 0xab, 0x4d};

inline __m128i prefix_xor(__m128i k) {
  k = _mm_xor_si128(k, _mm_slli_si128(k, 4));
  return _mm_xor_si128(k, _mm_slli_si128(k, 8));
}
inline __m128i sub_rot_last(__m128i k, std::uint8_t rc) {
  return _mm_aesenclast_si128(_mm_shuffle_epi8(k, _mm_set1_epi32(0x0c0f0e0d)), _mm_set1_epi32(rc));
}
inline __m128i sub_last(__m128i k) { return _mm_aesenclast_si128(_mm_shuffle_epi32(k, 0xff), _mm_setzero_si128()); }

// Output byte i of the permuted state takes byte perm[i]: the bytes that Rijndael-256's
// ShiftRows moves across the halves, and within each half the inverse of the move AES's
// ShiftRows will make. (The AES-NI kernel builds the same as blend + shuffle per half.)
__m256i shift_perm() {
  alignas(32) std::uint8_t idx[32];
  const unsigned off[4] = {0, 1, 3, 4};  // Rijndael-256, 8 columns
  const unsigned aes_off[4] = {0, 1, 2, 3};  // AES, 4 columns per half
  for (unsigned half = 0; half < 2; ++half)
    for (unsigned c = 0; c < 4; ++c)
      for (unsigned r = 0; r < 4; ++r) {
        // AESENC on this half puts byte (4c + r) at column (c - aes_off[r]) mod 4; we want
        // that position to receive Rijndael-256's byte for column (4 half + (c - aes_off[r]) mod 4).
        const unsigned out_col = (c + 4 - aes_off[r]) % 4;
        const unsigned want_col = (4 * half + out_col + off[r]) % 8;
        idx[16 * half + 4 * c + r] = static_cast<std::uint8_t>(4 * want_col + r);
      }
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(idx));
}

// VPERMB; the zero-masking form, as GCC 12 warns on the plain one's undefined pass-through.
inline __m256i permute(__m256i perm, __m256i x) { return _mm256_maskz_permutexvar_epi8(~__mmask32{0}, perm, x); }

template <Counter C, std::size_t G>
void rijndael256(const __m256i perm, Keys keys, std::size_t j0, const PrgStream* streams, unsigned nstreams) {
  // Round keys of the G keys, round by round so that the G schedules' latencies overlap.
  __m256i rk[G][15];
  __m128i k0[G], k1[G];
  for (std::size_t g = 0; g < G; ++g) {
    alignas(32) std::uint8_t key[32] = {};
    std::memcpy(key, keys[j0 + g], keys.bytes);
    k0[g] = _mm_load_si128(reinterpret_cast<const __m128i*>(key));
    k1[g] = _mm_load_si128(reinterpret_cast<const __m128i*>(key + 16));
    secure_zero(key, sizeof key);
    rk[g][0] = _mm256_set_m128i(k1[g], k0[g]);
  }
  for (unsigned r = 1; r <= 14; ++r) {
    for (std::size_t g = 0; g < G; ++g) k0[g] = _mm_xor_si128(prefix_xor(k0[g]), sub_rot_last(k1[g], rcon[r - 1]));
    for (std::size_t g = 0; g < G; ++g) {
      k1[g] = _mm_xor_si128(prefix_xor(k1[g]), sub_last(k0[g]));
      rk[g][r] = _mm256_set_m128i(k1[g], k0[g]);
    }
  }
  secure_zero(k0, sizeof k0);
  secure_zero(k1, sizeof k1);
  for (unsigned s = 0; s < nstreams; ++s) {
    const PrgStream& sp = streams[s];
    const __m256i base = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sp.base));
    __m256i ctr[G];
    for (std::size_t g = 0; g < G; ++g) {
      const std::uint32_t tw = sp.tweaks != nullptr ? sp.tweaks[j0 + g] : sp.tweak;
      ctr[g] = C == Counter::ctr32
                   ? _mm256_add_epi32(base, _mm256_set_epi32(0, 0, 0, 0, static_cast<int>(tw), 0, 0, 0))
                   : _mm256_xor_si256(base, _mm256_set_epi32(0, 0, 0, 0, 0, 0, static_cast<int>(tw >> 24),
                                                             static_cast<int>(tw << 8)));
    }
    const std::size_t nb = blocks_of(sp);
    for (std::size_t b = 0; b < nb; ++b) {
      const __m256i bb = _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, static_cast<int>(b));
      __m256i x[G];
      for (std::size_t g = 0; g < G; ++g)
        x[g] = _mm256_xor_si256(C == Counter::ctr32 ? _mm256_add_epi32(ctr[g], bb) : _mm256_xor_si256(ctr[g], bb),
                                rk[g][0]);
      for (unsigned r = 1; r < 14; ++r)
        for (std::size_t g = 0; g < G; ++g) x[g] = _mm256_aesenc_epi128(permute(perm, x[g]), rk[g][r]);
      for (std::size_t g = 0; g < G; ++g) {
        x[g] = _mm256_aesenclast_epi128(permute(perm, x[g]), rk[g][14]);
        alignas(32) std::uint8_t tmp[32];
        _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), x[g]);
        put_block<32>(sp, j0 + g, b, tmp);
        secure_zero(tmp, sizeof tmp);
      }
    }
  }
  secure_zero(rk, sizeof rk);
}

template <Counter C>
void run(Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  static const __m256i perm = shift_perm();
  std::size_t j = 0;
  for (; j + 8 <= n; j += 8) rijndael256<C, 8>(perm, keys, j, streams, nstreams);
  for (; j + 4 <= n; j += 4) rijndael256<C, 4>(perm, keys, j, streams, nstreams);
  for (; j < n; ++j) rijndael256<C, 1>(perm, keys, j, streams, nstreams);
}

}  // namespace

bool rijndael256_vbmi_ok() {
  static const bool ok = __builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512vbmi") &&
                         __builtin_cpu_supports("avx512vl");
  return ok;
}

void rijndael256_vbmi(Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  with_counter(counter, [&](auto c) { run<decltype(c)::value>(keys, n, streams, nstreams); });
}

}  // namespace tempo::voleith::detail
#else
namespace tempo::voleith::detail {
bool rijndael256_vbmi_ok() { return false; }
// Never called: rijndael256_vbmi_ok() is false where this file has no VBMI code.
void rijndael256_vbmi(Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams) {
  prg_portable(Cipher::rijndael256, counter, keys, n, streams, nstreams);
}
}  // namespace tempo::voleith::detail
#endif
