// The portable constant-time kernels: bit-plane AES / Rijndael-256, software carry-less products.
#include <cstring>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/secure_zero.hpp>

#include "aes_portable.hpp"
#include "field.hpp"
#include "kernels.hpp"

namespace tempo::perk::detail {
namespace {

void aes_prf_portable(unsigned level, const std::uint8_t* const* seeds, std::size_t n, const PrfStream* streams,
                      unsigned nstreams) {
  const ct::Shape sh = level == 1 ? ct::aes128 : ct::rijndael256;
  const unsigned key_bytes = 4 * sh.nk, block = 4 * sh.nb, lb = level == 1 ? 16 : level == 3 ? 24 : 32;
  constexpr std::size_t group = 16;
  unsigned max_blocks = 0;
  for (unsigned s = 0; s < nstreams; ++s) max_blocks = streams[s].nblocks > max_blocks ? streams[s].nblocks : max_blocks;
  std::vector<std::uint8_t> keys(group * key_bytes), rk(group * sh.rk_bytes()), blocks(group * max_blocks * block);
  for (std::size_t g0 = 0; g0 < n; g0 += group) {
    const std::size_t m = n - g0 < group ? n - g0 : group;
    std::memset(keys.data(), 0, keys.size());
    for (std::size_t j = 0; j < m; ++j) std::memcpy(keys.data() + j * key_bytes, seeds[g0 + j], lb);
    ct::expand_keys(sh, keys.data(), m, rk.data());
    for (unsigned s = 0; s < nstreams; ++s) {
      const PrfStream& st = streams[s];
      for (std::size_t j = 0; j < m; ++j) {
        const std::uint32_t tw = st.tweaks ? st.tweaks[g0 + j] : 0;
        for (unsigned b = 0; b < st.nblocks; ++b) {
          std::uint8_t* x = blocks.data() + (j * st.nblocks + b) * block;
          std::memcpy(x, st.base, block);
          x[0] = static_cast<std::uint8_t>(x[0] ^ b);
          for (unsigned k = 0; k < 4; ++k) x[1 + k] = static_cast<std::uint8_t>(x[1 + k] ^ (tw >> (8 * k)));
        }
      }
      ct::encrypt_blocks(sh, rk.data(), sh.rk_bytes(), blocks.data(), m * st.nblocks, st.nblocks);
      for (std::size_t j = 0; j < m; ++j)
        for (unsigned b = 0; b < st.nblocks; ++b)
          std::memcpy(st.out + (g0 + j) * st.stride + std::size_t{b} * lb, blocks.data() + (j * st.nblocks + b) * block,
                      lb);
    }
  }
  secure_zero(keys);
  secure_zero(rk);
  secure_zero(blocks);
}

void tower12(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_portable<12>(o, a, b); }
void tower18(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_portable<18>(o, a, b); }
void tower24(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_portable<24>(o, a, b); }

}  // namespace

const Kernels& portable_kernels() {
  static const Kernels k{"portable", &aes_prf_portable, &tower12, &tower18, &tower24, &gf_lambda_mul_portable,
                         &gf64_mul_portable};
  return k;
}

const Kernels& active_kernels() {
  static const Kernels* const ni = ni_kernels();
  const std::size_t cap = tempo::env_choice("TEMPO_PERK_ISA", {"portable", "aesni"}).value_or(1);
  if (cap >= 1 && ni != nullptr) return *ni;
  return portable_kernels();
}

}  // namespace tempo::perk::detail
