// 128-bit lane l of a 512-bit register, for the AVX-512 kernels: voleith's PRG
// (prg_vaes512.cpp, compiled with -mavx512f) and FAEST's fused leaf commitments and
// ConvertToVOLE (vaes512.hpp, in a #pragma GCC target region). The function carries its own
// target, so it inlines into both; include this outside any target region.
#pragma once

#include <immintrin.h>

namespace tempo::voleith::detail {
namespace {  // per translation unit: its includers compile with different instruction flags

// The zero-masking form of extract, even for lane 0 (GCC 12 builds the cast from the
// extract): GCC 12 warns on the plain one's undefined pass-through.
__attribute__((target("avx512f"))) inline __m128i lane(__m512i x, unsigned l) {
  switch (l) {
    case 0: return _mm512_maskz_extracti32x4_epi32(0xf, x, 0);
    case 1: return _mm512_maskz_extracti32x4_epi32(0xf, x, 1);
    case 2: return _mm512_maskz_extracti32x4_epi32(0xf, x, 2);
    default: return _mm512_maskz_extracti32x4_epi32(0xf, x, 3);
  }
}

}  // namespace
}  // namespace tempo::voleith::detail
