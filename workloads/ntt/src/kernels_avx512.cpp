// AVX-512 kernel sets (this file alone is compiled with -mavx512f -mavx512dq -mavx512ifma;
// chosen at run time). IFMA needs q < 2^50, the 32-bit form q < 2^30.
#include <immintrin.h>

#include <cstddef>

#include "simd_ntt.hpp"

namespace tempo::ntt::detail {
namespace avx512 {
#include "ops_avx512.inc"
}  // namespace avx512
namespace {

template <int S>
Kernels make(const char* name, unsigned bits) {
  using V = avx512::Ops512<S>;
  return Kernels{name, simd::forward<V>, simd::inverse<V>, simd::pointwise<V>, simd::prepare<V>, bits};
}

}  // namespace

// Called only after dispatch.cpp (compiled without AVX-512) checked the CPU: code here may
// use AVX-512 anywhere, static initialisers included, so nothing runs before that check.
std::vector<const Kernels*> avx512_kernels_checked(bool ifma) {
  static const Kernels k64 = make<64>("avx512", 62);
  static const Kernels k52 = make<52>("avx512ifma", 50);
  static const Kernels k32 = make<32>("avx512-q30", 30);
  std::vector<const Kernels*> v{&k32};
  if (ifma) v.push_back(&k52);
  v.push_back(&k64);
  return v;
}

}  // namespace tempo::ntt::detail
