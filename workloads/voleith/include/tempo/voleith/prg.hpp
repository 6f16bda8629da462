// The block-cipher PRGs of FAEST and PERK: a seed is the key, the output is the encryption of
// counter blocks. The two schemes build their counter blocks differently (Counter), PERK uses
// Rijndael-256 at levels 3 and 5 (Cipher), and PERK keeps only lambda/8 bytes of each 32-byte
// block at level 3 (PrgStream::kept); the rest is common: many keys at once, each key
// expanded once and used for every stream, on the instruction set the caller picks.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tempo/voleith/isa.hpp>

namespace tempo::voleith {

enum class Cipher : unsigned char {
  aes128,       // 16-byte keys and blocks, 10 rounds
  rijndael256,  // 32-byte keys (shorter seeds zero-padded) and blocks, 14 rounds
};

// How block b of a key's stream is formed from the stream's base block and the key's tweak.
enum class Counter : unsigned char {
  // FAEST v2 PRG (AES-CTR): base with tweak added to its 32-bit little-endian word 3 and b
  // added to word 0 (both mod 2^32).
  ctr32,
  // PERK v2.1.0 PRF: base XOR b at byte 0 XOR tweak at bytes 1..4 (little-endian); b < 256.
  tweak_xor,
};

// Where the keys are: a list of pointers, or `first` and every `stride` bytes after it.
struct Keys {
  const std::uint8_t* const* list = nullptr;
  const std::uint8_t* first = nullptr;
  std::size_t stride = 0;
  unsigned bytes = 16;  // bytes per key (rijndael256: 16..32, zero-padded)
  const std::uint8_t* operator[](std::size_t j) const { return list != nullptr ? list[j] : first + j * stride; }
};

// One output stream: key j writes `len` bytes to out + j * stride, block b giving bytes
// [b * kept, (b + 1) * kept) (the first `kept` bytes of its block; the last block truncated).
struct PrgStream {
  const std::uint8_t* base;              // the counter block (16 or 32 bytes)
  const std::uint32_t* tweaks = nullptr;  // per key, or nullptr: `tweak` for every key
  std::uint32_t tweak = 0;
  std::size_t len = 0;
  unsigned kept = 16;                    // <= the block size
  std::uint8_t* out = nullptr;
  std::size_t stride = 0;
};

// n keys, every stream (at most 4) for each. Constant time in the keys and outputs on every instruction
// set (the portable one computes the S-box by gates). isa must be one the CPU has
// (std::invalid_argument otherwise); streams must not overlap the keys.
void prg(Isa isa, Cipher cipher, Counter counter, Keys keys, std::size_t n, const PrgStream* streams,
         unsigned nstreams);

// The FAEST form: AES-128-CTR of n keys (contiguous, 16 bytes each) with base iv and tweak
// tweaks[j] (or `tweak`), outlen bytes per key back to back.
inline void aes128_ctr(Isa isa, const std::uint8_t* keys, std::size_t n, const std::uint8_t iv[16],
                       const std::uint32_t* tweaks, std::uint32_t tweak, std::uint8_t* out, std::size_t outlen) {
  const PrgStream s{iv, tweaks, tweak, outlen, 16, out, outlen};
  prg(isa, Cipher::aes128, Counter::ctr32, Keys{nullptr, keys, 16, 16}, n, &s, 1);
}

}  // namespace tempo::voleith
