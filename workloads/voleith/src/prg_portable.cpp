// The portable constant-time PRG: bit-plane AES / Rijndael-256 (detail/aes_portable.hpp),
// 16 keys and up to 16 blocks per key sharing each S-box plane pass.
#include <tempo/secure_zero.hpp>
#include <tempo/voleith/detail/aes_portable.hpp>

#include "prg_kernels.hpp"

namespace tempo::voleith::detail {

void prg_portable(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams,
                  unsigned nstreams) {
  const ct::Shape sh = cipher == Cipher::aes128 ? ct::aes128 : ct::rijndael256;
  const unsigned key_bytes = 4 * sh.nk, bb = 4 * sh.nb;
  constexpr std::size_t group = 16, max_blocks = 16;
  std::uint8_t kbuf[group * 32], rk[group * 480], blocks[group * max_blocks * 32];  // 480: Rijndael-256 round keys
  for (std::size_t g0 = 0; g0 < n; g0 += group) {
    const std::size_t m = n - g0 < group ? n - g0 : group;
    std::memset(kbuf, 0, sizeof kbuf);
    for (std::size_t j = 0; j < m; ++j) std::memcpy(kbuf + j * key_bytes, keys[g0 + j], keys.bytes);
    ct::expand_keys(sh, kbuf, m, rk);
    for (unsigned s = 0; s < nstreams; ++s) {
      const PrgStream& st = streams[s];
      const std::size_t nb = blocks_of(st);
      for (std::size_t b0 = 0; b0 < nb; b0 += max_blocks) {
        const std::size_t cnt = nb - b0 < max_blocks ? nb - b0 : max_blocks;
        for (std::size_t j = 0; j < m; ++j) {
          const std::uint32_t tw = st.tweaks != nullptr ? st.tweaks[g0 + j] : st.tweak;
          for (std::size_t b = 0; b < cnt; ++b)
            counter_block(counter, st.base, bb, tw, static_cast<std::uint32_t>(b0 + b), blocks + (j * cnt + b) * bb);
        }
        ct::encrypt_blocks(sh, rk, sh.rk_bytes(), blocks, m * cnt, cnt);
        for (std::size_t j = 0; j < m; ++j)
          for (std::size_t b = 0; b < cnt; ++b) put_block<32>(st, g0 + j, b0 + b, blocks + (j * cnt + b) * bb);
      }
    }
  }
  secure_zero(kbuf, sizeof kbuf);
  secure_zero(rk, sizeof rk);
  secure_zero(blocks, sizeof blocks);
}

}  // namespace tempo::voleith::detail
