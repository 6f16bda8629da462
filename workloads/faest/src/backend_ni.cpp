// AES-NI + PCLMULQDQ backend. This file alone is compiled with -maes -mpclmul; it is used
// only after a run-time check of the CPU (ni_backend() returns nullptr otherwise).
#include "backend_ni_common.hpp"

namespace tempo::faest::detail {
namespace {

struct Ni : NiField {
  // M keys at once (M a compile-time constant, so the states stay in registers).
  template <std::size_t M>
  static void prg_group(const std::uint8_t* keys, const std::uint8_t iv[16], const std::uint32_t* tweaks,
                        std::uint32_t tweak, std::uint8_t* out, std::size_t outlen) {
    const std::size_t full = outlen / 16, rest = outlen % 16;
    __m128i rk[M][11], ctr[M], s[M];
    const __m128i one = _mm_set_epi32(0, 0, 0, 1);
    expand_keys<M>(keys, rk);
    for (std::size_t i = 0; i < M; ++i) {
      std::uint8_t c[16];
      tweak_iv(c, iv, tweaks ? tweaks[i] : tweak);
      ctr[i] = ld(c);
    }
    for (std::size_t b = 0; b < full + (rest ? 1 : 0); ++b) {
      for (std::size_t i = 0; i < M; ++i) {
        s[i] = _mm_xor_si128(ctr[i], rk[i][0]);
        ctr[i] = _mm_add_epi32(ctr[i], one);
      }
      for (int r = 1; r < 10; ++r)
        for (std::size_t i = 0; i < M; ++i) s[i] = _mm_aesenc_si128(s[i], rk[i][r]);
      for (std::size_t i = 0; i < M; ++i) s[i] = _mm_aesenclast_si128(s[i], rk[i][10]);
      for (std::size_t i = 0; i < M; ++i) {
        std::uint8_t* o = out + i * outlen + 16 * b;
        if (b < full) {
          st(o, s[i]);
        } else {
          std::uint8_t tmp[16];
          st(tmp, s[i]);
          std::memcpy(o, tmp, rest);
        }
      }
    }
    secure_zero(rk, sizeof rk);
    secure_zero(s, sizeof s);
  }
  static void prg(const std::uint8_t* keys, std::size_t n, const std::uint8_t iv[16], const std::uint32_t* tweaks,
                  std::uint32_t tweak, std::uint8_t* out, std::size_t outlen) {
    const std::size_t full = n / 8 * 8, tail = n % 8;  // tail < 8: a bounded loop
    for (std::size_t g = 0; g < full; g += 8)
      prg_group<8>(keys + 16 * g, iv, tweaks ? tweaks + g : nullptr, tweak, out + g * outlen, outlen);
    for (std::size_t q = 0; q < tail; ++q) {
      const std::size_t g = full + q;
      prg_group<1>(keys + 16 * g, iv, tweaks ? tweaks + g : nullptr, tweak, out + g * outlen, outlen);
    }
  }
};

void sign(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key, const std::uint8_t* w,
          const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho, std::size_t rho_len,
          std::uint8_t* sig) {
  sign_core<Ni>(t, p, pk, key, w, msg, msg_len, rho, rho_len, sig);
}
bool verify(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len,
            const std::uint8_t* sig) {
  return verify_core<Ni>(t, p, pk, msg, msg_len, sig);
}

}  // namespace

const BackendOps* ni_backend() {
  static const bool ok = __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul");
  static const BackendOps ops{"aesni+pclmul", &Ni::mul, &Ni::mul64, &Ni::leaf_hash, &Ni::prg, &sign,
                              &verify, &gpu_ops<Ni>()};
  return ok ? &ops : nullptr;
}

}  // namespace tempo::faest::detail
