// AVX2 Keccak-p[1600] on four states at once: one 256-bit register holds the same lane of
// all four states. Compiled with -mavx2; only reached after a run-time CPU check.
#include <cstdint>

#include <tempo/keccak/detail/x4.hpp>

#if defined(__AVX2__)
#include <immintrin.h>

#include "keccak_round.hpp"
#include "x4_m256_ops.hpp"

namespace tempo::keccak::detail {
namespace {

struct Avx2Ops : M256Ops {
  template <int n>
  static V rol(V a) noexcept {
    // Byte-multiple rotations are a single shuffle instead of shift+shift+or.
    if constexpr (n == 8) {
      const V m = _mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14,
                                   7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14);
      return _mm256_shuffle_epi8(a, m);
    } else if constexpr (n == 56) {
      const V m = _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8,
                                   1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8);
      return _mm256_shuffle_epi8(a, m);
    } else {
      return _mm256_or_si256(_mm256_slli_epi64(a, n), _mm256_srli_epi64(a, 64 - n));
    }
  }
};

}  // namespace

bool permute_x4_interleaved_avx2(std::uint64_t lanes[100], int rounds) noexcept {
  keccak_rounds<Avx2Ops>(lanes, 24 - rounds);
  return true;
}

}  // namespace tempo::keccak::detail

#else  // built without AVX2 (non-x86 target): never selected

namespace tempo::keccak::detail {
bool permute_x4_interleaved_avx2(std::uint64_t*, int) noexcept { return false; }
}  // namespace tempo::keccak::detail

#endif
