// VAES backend: the AES-NI backend's field arithmetic, and a PRG that runs two AES keys per
// 256-bit register (VAES + AVX2), twice the blocks per instruction. Compiled with
// -maes -mpclmul -mavx2 -mvaes; used only after a run-time check of the CPU.
#include "backend_ni_common.hpp"

namespace tempo::faest::detail {
namespace {

inline __m256i key_step2(__m256i k, int rc) {
  __m256i t = _mm256_aesenclast_epi128(_mm256_shuffle_epi32(k, 0xff), _mm256_setzero_si256());
  t = _mm256_xor_si256(_mm256_or_si256(_mm256_srli_epi32(t, 8), _mm256_slli_epi32(t, 24)), _mm256_set1_epi32(rc));
  k = _mm256_xor_si256(k, _mm256_slli_si256(k, 4));
  k = _mm256_xor_si256(k, _mm256_slli_si256(k, 8));
  return _mm256_xor_si256(k, t);
}

struct Vaes : NiField {
  // 2P keys at once, two per register.
  template <std::size_t P>
  static void prg_group(const std::uint8_t* keys, const std::uint8_t iv[16], const std::uint32_t* tweaks,
                        std::uint32_t tweak, std::uint8_t* out, std::size_t outlen) {
    static constexpr int rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
    const std::size_t full = outlen / 16, rest = outlen % 16;
    __m256i rk[P][11], ctr[P], s[P];
    for (std::size_t i = 0; i < P; ++i)
      rk[i][0] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + 32 * i));
    for (int r = 1; r <= 10; ++r)
      for (std::size_t i = 0; i < P; ++i) rk[i][r] = key_step2(rk[i][r - 1], rcon[r - 1]);
    for (std::size_t i = 0; i < P; ++i) {
      std::uint8_t c[32];
      tweak_iv(c, iv, tweaks ? tweaks[2 * i] : tweak);
      tweak_iv(c + 16, iv, tweaks ? tweaks[2 * i + 1] : tweak);
      ctr[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c));
    }
    const __m256i one = _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 1);
    for (std::size_t b = 0; b < full + (rest ? 1 : 0); ++b) {
      for (std::size_t i = 0; i < P; ++i) {
        s[i] = _mm256_xor_si256(ctr[i], rk[i][0]);
        ctr[i] = _mm256_add_epi32(ctr[i], one);
      }
      for (int r = 1; r < 10; ++r)
        for (std::size_t i = 0; i < P; ++i) s[i] = _mm256_aesenc_epi128(s[i], rk[i][r]);
      for (std::size_t i = 0; i < P; ++i) s[i] = _mm256_aesenclast_epi128(s[i], rk[i][10]);
      for (std::size_t i = 0; i < P; ++i) {
        std::uint8_t* o0 = out + (2 * i) * outlen + 16 * b;
        std::uint8_t* o1 = o0 + outlen;
        if (b < full) {
          st(o0, _mm256_castsi256_si128(s[i]));
          st(o1, _mm256_extracti128_si256(s[i], 1));
        } else {
          std::uint8_t tmp[32];
          _mm256_storeu_si256(reinterpret_cast<__m256i*>(tmp), s[i]);
          std::memcpy(o0, tmp, rest);
          std::memcpy(o1, tmp + 16, rest);
        }
      }
    }
    secure_zero(rk, sizeof rk);
    secure_zero(s, sizeof s);
  }
  static void prg(const std::uint8_t* keys, std::size_t n, const std::uint8_t iv[16], const std::uint32_t* tweaks,
                  std::uint32_t tweak, std::uint8_t* out, std::size_t outlen) {
    std::size_t g = 0;
    for (; g + 16 <= n; g += 16)  // eight registers in flight cover the VAES latency
      prg_group<8>(keys + 16 * g, iv, tweaks ? tweaks + g : nullptr, tweak, out + g * outlen, outlen);
    for (; g + 8 <= n; g += 8)
      prg_group<4>(keys + 16 * g, iv, tweaks ? tweaks + g : nullptr, tweak, out + g * outlen, outlen);
    for (std::size_t pairs = (n - g) / 2; pairs > 0 && pairs < 8; --pairs, g += 2)  // at most 7 pairs left
      prg_group<1>(keys + 16 * g, iv, tweaks ? tweaks + g : nullptr, tweak, out + g * outlen, outlen);
    if (g < n) {  // an odd last key: pair it with itself
      std::uint8_t k2[32], o2[2 * 256];
      std::memcpy(k2, keys + 16 * g, 16);
      std::memcpy(k2 + 16, keys + 16 * g, 16);
      const std::uint32_t tw[2] = {tweaks ? tweaks[g] : tweak, tweaks ? tweaks[g] : tweak};
      for (std::size_t off = 0; off < outlen; off += 256) {  // outlen may exceed the buffer
        const std::size_t len = outlen - off < 256 ? outlen - off : 256;
        std::uint8_t ivo[16];
        std::memcpy(ivo, iv, 16);
        put_le32(ivo, get_le32(iv) + std::uint32_t(off / 16));
        prg_group<1>(k2, ivo, tw, 0, o2, len);
        std::memcpy(out + g * outlen + off, o2, len);
      }
      secure_zero(k2, sizeof k2);
      secure_zero(o2, sizeof o2);
    }
  }
};

void sign(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key, const std::uint8_t* w,
          const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho, std::size_t rho_len,
          std::uint8_t* sig) {
  sign_core<Vaes>(t, p, pk, key, w, msg, msg_len, rho, rho_len, sig);
}
bool verify(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len,
            const std::uint8_t* sig) {
  return verify_core<Vaes>(t, p, pk, msg, msg_len, sig);
}

}  // namespace

const BackendOps* vaes_backend() {
  static const bool ok = __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul") &&
                         __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vaes");
  static const BackendOps ops{"vaes+pclmul", &Vaes::mul, &Vaes::mul64, &Vaes::leaf_hash, &Vaes::prg, &sign,
                              &verify, &gpu_ops<Vaes>()};
  return ok ? &ops : nullptr;
}

}  // namespace tempo::faest::detail
