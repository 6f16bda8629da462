// The instruction-set backends (VAES, AES-NI + PCLMULQDQ, portable constant-time), each a
// table of its primitives and its instantiation of sign/verify. The portable one always
// exists; the others only on CPUs that have their instructions.
#pragma once

#include <cstddef>
#include <cstdint>

#include <tempo/voleith/prg.hpp>

#include "common.hpp"

namespace tempo {
class Task;
}

namespace tempo::faest::detail {

// The GPU batch path's host halves for one backend (gpu_halves.hpp; layouts: cuda/faest_device.hpp).
struct GpuOps {
  // the device stage of one signature computed on the CPU
  void (*stage_cpu)(const ParamSet& p, bool verifier, const std::uint8_t* in, std::uint8_t* out);
};

struct BackendOps {
  const char* name;
  gf128 (*mul)(gf128, gf128);                       // GF(2^128)
  std::uint64_t (*mul64)(std::uint64_t, std::uint64_t);  // GF(2^64)
  void (*leaf_hash)(std::uint8_t out[48], const std::uint8_t uhash[48], const std::uint8_t x[64]);
  // The FAEST PRG: out_i = AES-128-CTR(key_i, iv + tweak_i in the top word)[0, outlen), where
  // tweak_i = tweaks ? tweaks[i] : tweak; the counter is the low 32-bit word, little-endian.
  void (*prg)(const std::uint8_t* keys, std::size_t n, const std::uint8_t iv[16], const std::uint32_t* tweaks,
              std::uint32_t tweak, std::uint8_t* out, std::size_t outlen);
  void (*sign)(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key,
               const std::uint8_t* w, const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho,
               std::size_t rho_len, std::uint8_t* sig);
  bool (*verify)(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg,
                 std::size_t msg_len, const std::uint8_t* sig);
  const GpuOps* gpu;
  // The OWF output (AES-128_key(in), 16 B) and the extended witness (ell_bytes) of a secret
  // key with the CPU's AES and GFNI instructions, or nullptr: the constant-time bit-plane code
  // of faest.cpp.
  void (*owf_witness)(const std::uint8_t key[16], const std::uint8_t in[16], std::uint8_t out[16],
                      std::uint8_t* w);
};

const BackendOps& portable_backend();
const BackendOps* ni_backend();     // nullptr when the CPU lacks AES-NI or PCLMULQDQ
const BackendOps* vaes_backend();   // nullptr when the CPU lacks VAES or AVX2 as well
// The fastest the CPU has (vaes, then aesni, then portable); TEMPO_FAEST_ISA=portable, aesni
// or vaes caps the choice (an unavailable one falls back to the next slower; another value
// throws std::invalid_argument).
const BackendOps& active_backend();

// The PRG's per-key counter block: iv with tweak added to its top little-endian word.
inline void tweak_iv(std::uint8_t out[16], const std::uint8_t iv[16], std::uint32_t tweak) {
  std::memcpy(out, iv, 16);
  put_le32(out + 12, get_le32(iv + 12) + tweak);
}

// The FAEST PRG on tempo::voleith's AES-128-CTR kernels of one instruction set.
template <voleith::Isa I>
struct VoleithPrg {
  static void prg(const std::uint8_t* keys, std::size_t n, const std::uint8_t iv[16], const std::uint32_t* tweaks,
                  std::uint32_t tweak, std::uint8_t* out, std::size_t outlen) {
    voleith::aes128_ctr(I, keys, n, iv, tweaks, tweak, out, outlen);
  }
};

}  // namespace tempo::faest::detail
