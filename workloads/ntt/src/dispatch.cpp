// Picks the CPU kernel set once per process (TEMPO_NTT_CPU caps it), per modulus size.
#include <cstdlib>
#include <string_view>

#include "tables.hpp"

namespace tempo::ntt::detail {

#if !defined(TEMPO_NTT_HAVE_X86)
const Kernels* avx2_kernels() { return nullptr; }
const Kernels* avx512_kernels() { return nullptr; }
const Kernels* avx512ifma_kernels() { return nullptr; }
#endif

const Kernels& pick_kernels(u64 q) {
  static const int cap = [] {
    const char* env = std::getenv("TEMPO_NTT_CPU");
    const std::string_view v = env ? env : "";
    if (v == "portable") return 0;
    if (v == "avx2") return 1;
    return 2;
  }();
  if (cap >= 2) {
    if (q < (u64{1} << 50))
      if (const Kernels* k = avx512ifma_kernels()) return *k;
    if (const Kernels* k = avx512_kernels()) return *k;
  }
  if (cap >= 1)
    if (const Kernels* k = avx2_kernels()) return *k;
  return portable_kernels();
}

}  // namespace tempo::ntt::detail
