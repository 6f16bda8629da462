// The instruction-set dependent primitives: the AES PRF of the aes_* sets (tempo::voleith's
// kernels), the tower and GF(2^lambda) products. Three tables: portable (constant time, no
// tables), AES-NI+PCLMULQDQ and VAES (AES-NI's products, VAES's PRF), the latter two on
// x86-64 CPUs that have them, chosen at run time; TEMPO_PERK_ISA caps the choice.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tempo/voleith/isa.hpp>

#include "params.hpp"

namespace tempo::perk::detail {

// One output stream of the AES PRF (rijndael_impl.h aes_expand_2blocks, vole_prg2_aes.h):
// key = seed (level 1: AES-128; 3: Rijndael-256 with seed || 0^8; 5: Rijndael-256), block b of
// key j is E_key(base ^ (tweak_j at bytes 1..4, little-endian) ^ (b at byte 0)), truncated to
// lambda/8 bytes and written to out + j * stride + b * lambda/8.
struct PrfStream {
  const std::uint8_t* base;      // aes_block_bytes(): salt[0, lambda/8), zero-padded, domain XORed at byte 5
  const std::uint32_t* tweaks;   // one per key, or nullptr (all 0)
  unsigned nblocks;
  std::uint8_t* out;
  std::size_t stride;
};

struct Kernels {
  const char* name;
  // n keys, each used for every stream.
  void (*aes_prf)(unsigned level, const std::uint8_t* const* seeds, std::size_t n, const PrfStream* streams,
                  unsigned nstreams);
  void (*tower_mul12)(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b);
  void (*tower_mul18)(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b);
  void (*tower_mul24)(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b);
  // GF(2^(64 n)), n = 2, 3, 4; out may alias a or b.
  void (*gf_lambda_mul)(unsigned n, std::uint64_t* out, const std::uint64_t* a, const std::uint64_t* b);
  std::uint64_t (*gf64_mul)(std::uint64_t a, std::uint64_t b);
};

const Kernels& portable_kernels();
const Kernels* ni_kernels();    // nullptr unless the CPU has AES-NI, PCLMULQDQ and SSE4.1
const Kernels* vaes_kernels();  // nullptr unless it also has VAES and AVX2
// The fastest the CPU has; TEMPO_PERK_ISA=portable|aesni|vaes caps it (another value throws
// std::invalid_argument).
const Kernels& active_kernels();

// The AES PRF on tempo::voleith's kernels of one instruction set (the tables' aes_prf).
void aes_prf_on(voleith::Isa isa, unsigned level, const std::uint8_t* const* seeds, std::size_t n,
                const PrfStream* streams, unsigned nstreams);

}  // namespace tempo::perk::detail
