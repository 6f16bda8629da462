// Portable constant-time backend: bitsliced AES (aes_portable.hpp) and carry-less
// multiplication by integer multiplies with holes (gf_portable.hpp).
#include "aes_portable.hpp"
#include "backend.hpp"
#include "gf_portable.hpp"
#include "gpu_halves.hpp"
#include "scheme.hpp"

namespace tempo::faest::detail {
namespace {

struct Portable {
  static gf128 mul(gf128 a, gf128 b) { return portable_gf::mul(a, b); }
  static std::uint64_t mul64(std::uint64_t a, std::uint64_t b) { return portable_gf::mul64(a, b); }
  static void leaf_hash(std::uint8_t out[48], const std::uint8_t uhash[48], const std::uint8_t x[64]) {
    portable_gf::leaf_hash(out, uhash, x);
  }
  static void prg(const std::uint8_t* keys, std::size_t n, const std::uint8_t iv[16], const std::uint32_t* tweaks,
                  std::uint32_t tweak, std::uint8_t* out, std::size_t outlen) {
    constexpr std::size_t group = 16;
    const std::size_t nblocks = (outlen + 15) / 16;
    std::uint8_t rk[group * 176];
    std::vector<std::uint8_t> blocks(group * nblocks * 16);
    for (std::size_t g = 0; g < n; g += group) {
      const std::size_t m = n - g < group ? n - g : group;
      ct::expand_keys(keys + 16 * g, m, 4, rk);
      for (std::size_t i = 0; i < m; ++i) {
        std::uint8_t ctr[16];
        tweak_iv(ctr, iv, tweaks ? tweaks[g + i] : tweak);
        const std::uint32_t c0 = get_le32(ctr);
        for (std::size_t b = 0; b < nblocks; ++b) {
          put_le32(ctr, c0 + std::uint32_t(b));
          std::memcpy(blocks.data() + 16 * (i * nblocks + b), ctr, 16);
        }
      }
      ct::encrypt_blocks(rk, 176, 10, blocks.data(), m * nblocks, nblocks);
      for (std::size_t i = 0; i < m; ++i) std::memcpy(out + (g + i) * outlen, blocks.data() + 16 * i * nblocks, outlen);
    }
    secure_zero(rk, sizeof rk);
    secure_zero(blocks.data(), blocks.size());
  }
};

void sign(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key, const std::uint8_t* w,
          const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho, std::size_t rho_len,
          std::uint8_t* sig) {
  sign_core<Portable>(t, p, pk, key, w, msg, msg_len, rho, rho_len, sig);
}
bool verify(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len,
            const std::uint8_t* sig) {
  return verify_core<Portable>(t, p, pk, msg, msg_len, sig);
}

}  // namespace

const BackendOps& portable_backend() {
  static const BackendOps ops{"portable", &Portable::mul, &Portable::mul64, &Portable::leaf_hash, &Portable::prg,
                              &sign, &verify, &gpu_ops<Portable>()};
  return ops;
}

}  // namespace tempo::faest::detail
