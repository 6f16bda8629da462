// AVX-512VL Keccak-p[1600] on four states at once: the AVX2 layout (one 256-bit register
// holds the same lane of all four states), with the instructions AVX-512VL adds for
// 256-bit registers: vprolq rotates a lane in one instruction (AVX2: shift, shift, or),
// vpternlogq computes chi's a ^ (~b & c) and theta's three-way xors in one. Compiled with
// -mavx512f -mavx512vl; only reached after a run-time CPU check (cpu_has_avx512vl).
// The 8-way version is the same round on 512-bit registers (one zmm holds lane i of eight
// states; 25 of the 32 zmm registers hold a whole round's input).
#include <cstdint>

#include <tempo/keccak/detail/x4.hpp>

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>

#include "keccak_round.hpp"
#include "x4_m256_ops.hpp"

namespace tempo::keccak::detail {
namespace {

struct Avx512VlOps : M256Ops {
  // Truth tables over (a, b, c) = bits (2, 1, 0) of the index: 0xD2 = a ^ (~b & c),
  // 0x96 = a ^ b ^ c.
  static V chi(V a, V b, V c) noexcept { return _mm256_ternarylogic_epi64(a, b, c, 0xD2); }
  static V x5(V a, V b, V c, V d, V e) noexcept {
    return _mm256_ternarylogic_epi64(_mm256_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96);
  }
  template <int n>
  static V rol(V a) noexcept { return _mm256_rol_epi64(a, n); }
};

struct M512Ops {
  using V = __m512i;
  static V load(const std::uint64_t* s, int i) noexcept { return _mm512_loadu_si512(s + 8 * i); }
  static void store(std::uint64_t* s, int i, V v) noexcept { _mm512_storeu_si512(s + 8 * i, v); }
  static V x(V a, V b) noexcept { return _mm512_xor_si512(a, b); }
  static V andn(V a, V b) noexcept { return _mm512_andnot_si512(a, b); }
  static V rc(std::uint64_t c) noexcept { return _mm512_set1_epi64(static_cast<long long>(c)); }
  static V chi(V a, V b, V c) noexcept { return _mm512_ternarylogic_epi64(a, b, c, 0xD2); }
  static V x5(V a, V b, V c, V d, V e) noexcept {
    return _mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96);
  }
  template <int n>
  // The zero-masking form with every lane kept: GCC 12 warns on the plain form's undefined
  // pass-through operand.
  static V rol(V a) noexcept { return _mm512_maskz_rol_epi64(0xff, a, n); }
};

}  // namespace

bool permute_x4_interleaved_avx512(std::uint64_t lanes[100], int rounds) noexcept {
  keccak_rounds<Avx512VlOps>(lanes, 24 - rounds);
  return true;
}

bool permute_x8_interleaved_avx512(std::uint64_t lanes[200], int rounds) noexcept {
  keccak_rounds<M512Ops>(lanes, 24 - rounds);
  return true;
}

}  // namespace tempo::keccak::detail

#else  // built without AVX-512VL (non-x86 target, or a compiler without the flags): never selected

namespace tempo::keccak::detail {
bool permute_x4_interleaved_avx512(std::uint64_t*, int) noexcept { return false; }
bool permute_x8_interleaved_avx512(std::uint64_t*, int) noexcept { return false; }
}  // namespace tempo::keccak::detail

#endif
