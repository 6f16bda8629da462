// AVX2 kernel sets (this file alone is compiled with -mavx2; chosen at run time).
#include "ops_avx2.hpp"
#include "simd_ntt.hpp"

namespace tempo::ntt::detail {
namespace {

template <int S>
Kernels make(const char* name, unsigned bits) {
  using V = avx2::Ops<S>;
  return Kernels{name, simd::forward<V>, simd::inverse<V>, simd::pointwise<V>, simd::prepare<V>, bits,
                 scan_then<simd::forward<V>>, scan_then<simd::inverse<V>>};
}

}  // namespace

// Called only after dispatch.cpp (compiled without AVX2) checked the CPU.
std::vector<const Kernels*> avx2_kernels_checked() {
  static const Kernels k64 = make<64>("avx2", 62);
  static const Kernels k32 = make<32>("avx2-q30", 30);
  return {&k32, &k64};
}

}  // namespace tempo::ntt::detail
