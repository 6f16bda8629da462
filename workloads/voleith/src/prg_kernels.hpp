// The PRG kernels of each instruction set (prg_portable.cpp, prg_ni.cpp, prg_vaes.cpp; each
// file is compiled with its own instruction flags) and the scalar counter-block rule they share.
#pragma once

#include <cstring>
#include <type_traits>

#include <tempo/voleith/prg.hpp>

namespace tempo::voleith::detail {

void prg_portable(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams);
void prg_ni(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams);
void prg_vaes(Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams);
// Rijndael-256 on VAES + AVX-512 VBMI (prg_vbmi.cpp), when rijndael256_vbmi_ok().
bool rijndael256_vbmi_ok();
void rijndael256_vbmi(Counter counter, Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams);
// AES-128 with Counter::ctr32 on VAES + AVX-512 (prg_vaes512.cpp), when aes128_vaes512_ok():
// the first keys in whole groups of four; returns how many it did.
bool aes128_vaes512_ok();
std::size_t aes128_ctr32_vaes512(Keys keys, std::size_t n, const PrgStream* streams, unsigned nstreams);

inline std::uint32_t load_le32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
inline void store_le32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// Block b of a key with tweak tw (Counter's rule), block_bytes bytes into x.
inline void counter_block(Counter counter, const std::uint8_t* base, unsigned block_bytes, std::uint32_t tw,
                          std::uint32_t b, std::uint8_t* x) {
  std::memcpy(x, base, block_bytes);
  if (counter == Counter::ctr32) {
    store_le32(x, load_le32(x) + b);
    store_le32(x + 12, load_le32(x + 12) + tw);
  } else {
    x[0] = static_cast<std::uint8_t>(x[0] ^ b);
    for (unsigned k = 0; k < 4; ++k) x[1 + k] = static_cast<std::uint8_t>(x[1 + k] ^ (tw >> (8 * k)));
  }
}

// f(std::integral_constant<Counter, counter>{}): the kernels are templates on the rule.
template <class F>
void with_counter(Counter counter, F&& f) {
  if (counter == Counter::ctr32)
    f(std::integral_constant<Counter, Counter::ctr32>{});
  else
    f(std::integral_constant<Counter, Counter::tweak_xor>{});
}

inline std::size_t blocks_of(const PrgStream& s) { return (s.len + s.kept - 1) / s.kept; }

// Block b's kept bytes (from a cipher block of BlockBytes bytes) into key j's output; the
// usual sizes as fixed-size copies (a variable one is a libc call per block).
template <unsigned BlockBytes>
inline void put_block(const PrgStream& s, std::size_t j, std::size_t b, const std::uint8_t* block) {
  const std::size_t at = b * s.kept, take = s.len - at < s.kept ? s.len - at : s.kept;
  std::uint8_t* dst = s.out + j * s.stride + at;
  if (take == BlockBytes) {
    std::memcpy(dst, block, BlockBytes);
    return;
  }
  if constexpr (BlockBytes == 32) {
    if (take == 24) {  // PERK level 3: lambda/8 bytes of each Rijndael-256 block
      std::memcpy(dst, block, 24);
      return;
    }
  }
  std::memcpy(dst, block, take);
}

}  // namespace tempo::voleith::detail
