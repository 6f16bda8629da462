// PCLMULQDQ kernels (with tempo::voleith's AES-NI or VAES PRF). On x86-64 this file alone is
// compiled with -mpclmul -msse4.1; it is used only after a run-time check of the CPU
// (ni_kernels() and vaes_kernels() return nullptr otherwise, and on other architectures).
#include "kernels.hpp"

#if defined(__x86_64__) && defined(__PCLMUL__) && defined(__SSE4_1__)
#define TEMPO_PERK_NI 1
#include <immintrin.h>

#include <cstring>


#include "field.hpp"
#endif

namespace tempo::perk::detail {

#if TEMPO_PERK_NI
namespace {

inline __m128i ld(const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
inline void st(std::uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
void aes_prf_ni(unsigned level, const std::uint8_t* const* seeds, std::size_t n, const PrfStream* streams,
                unsigned nstreams) {
  aes_prf_on(voleith::Isa::aesni, level, seeds, n, streams, nstreams);
}
void aes_prf_vaes(unsigned level, const std::uint8_t* const* seeds, std::size_t n, const PrfStream* streams,
                  unsigned nstreams) {
  aes_prf_on(voleith::Isa::vaes, level, seeds, n, streams, nstreams);
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
  static const bool ok = voleith::cpu_has(voleith::Isa::aesni) && __builtin_cpu_supports("pclmul");
  static const Kernels k{"aesni+pclmul", &aes_prf_ni, &tower12, &tower18, &tower24, &gf_lambda_mul_ni, &gf64_mul_ni};
  return ok ? &k : nullptr;
}
const Kernels* vaes_kernels() {
  static const bool ok = voleith::cpu_has(voleith::Isa::vaes) && __builtin_cpu_supports("pclmul");
  static const Kernels k{"vaes+pclmul", &aes_prf_vaes, &tower12, &tower18, &tower24, &gf_lambda_mul_ni, &gf64_mul_ni};
  return ok ? &k : nullptr;
}
#else
const Kernels* ni_kernels() { return nullptr; }
const Kernels* vaes_kernels() { return nullptr; }
#endif

}  // namespace tempo::perk::detail
