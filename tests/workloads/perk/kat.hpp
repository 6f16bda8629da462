// Known-answer helpers: the shared NIST ones (../nist_kat.hpp) on PERK's data folder and
// AES-256, and the test switches.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/perk.hpp>

#include "../nist_kat.hpp"
#include <tempo/voleith/detail/aes_portable.hpp>

#ifndef TEMPO_PERK_DATA_DIR
#error "TEMPO_PERK_DATA_DIR must name tests/data/perk"
#endif

namespace perk_test {

using tempo_test::hex;
using tempo_test::RspEntry;

// TEMPO_PERK_DATA_DIR in the environment overrides the compiled-in folder (a copied tree).
inline std::string data_path(const std::string& name) {
  const char* env = std::getenv("TEMPO_PERK_DATA_DIR");
  return std::string(env != nullptr && *env != '\0' ? env : TEMPO_PERK_DATA_DIR) + "/" + name;
}

inline std::vector<RspEntry> read_rsp(const std::string& file) { return tempo_test::read_rsp(data_path(file)); }

// NIST's DRBG on the constant-time AES-256 (tempo::voleith's, which PERK's PRG uses).
struct Aes256 {
  static void encrypt(const std::uint8_t key[32], std::uint8_t block[16]) {
    namespace ct = tempo::voleith::ct;
    std::uint8_t rk[240];
    ct::expand_keys(ct::aes256, key, 1, rk);
    ct::encrypt_blocks(ct::aes256, rk, 240, block, 1);
  }
};
using CtrDrbg = tempo_test::CtrDrbg<Aes256>;

// A 0/1 switch of the tests' environment (unset or empty: 0; anything else: invalid_argument).
inline bool env_flag(const char* name) { return tempo::env_choice(name, {"0", "1"}).value_or(0) == 1; }

// A known answer's signer inputs from its DRBG: keygen's three randombytes calls (H_seed,
// perm_seed, kernel seed), then sign's one (rand); and the signature (sm less the message).
struct KatSigner {
  tempo::perk::KeyPair kp;
  std::vector<std::uint8_t> rand, sig;
};
inline KatSigner kat_signer(tempo::perk::Params p, const RspEntry& e) {
  CtrDrbg drbg(e.seed);
  const std::size_t lb = tempo::perk::keygen_seed_size(p) / 3;
  std::vector<std::uint8_t> seed(3 * lb);
  for (std::size_t j = 0; j < 3; ++j) drbg.randombytes(seed.data() + j * lb, lb);
  KatSigner k{tempo::perk::keygen_deterministic(p, seed), std::vector<std::uint8_t>(tempo::perk::sign_randomness_size(p)),
              std::vector<std::uint8_t>(e.sm.begin(), e.sm.end() - std::ptrdiff_t(e.msg.size()))};
  drbg.randombytes(k.rand.data(), k.rand.size());
  return k;
}

// TEMPO_PERK_QUICK=1 (the sanitizer builds): the first 2 of the 10 shipped vectors per set.
inline std::size_t vectors_per_set() { return env_flag("TEMPO_PERK_QUICK") ? 2 : 10; }

}  // namespace perk_test
