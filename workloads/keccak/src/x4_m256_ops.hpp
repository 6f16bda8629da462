// The lane operations the AVX2 and AVX-512VL 4-way kernels share (one __m256i holds lane i
// of the four interleaved states). Internal header, included only by files compiled with
// -mavx2 or wider; internal linkage for the reason keccak_round.hpp gives.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace tempo::keccak::detail {
namespace {

struct M256Ops {
  using V = __m256i;
  static V load(const std::uint64_t* s, int i) noexcept {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 4 * i));
  }
  static void store(std::uint64_t* s, int i, V v) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(s + 4 * i), v);
  }
  static V x(V a, V b) noexcept { return _mm256_xor_si256(a, b); }
  static V andn(V a, V b) noexcept { return _mm256_andnot_si256(a, b); }
  static V rc(std::uint64_t c) noexcept { return _mm256_set1_epi64x(static_cast<long long>(c)); }
};

}  // namespace
}  // namespace tempo::keccak::detail
