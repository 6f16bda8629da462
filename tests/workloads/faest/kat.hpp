// Known-answer helpers: the shared NIST ones (../nist_kat.hpp) on FAEST's data folder and
// AES-256, the v2 vector file and the test switches.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <tempo/env.hpp>

#include "../nist_kat.hpp"
#include <tempo/voleith/detail/aes_portable.hpp>

#ifndef TEMPO_FAEST_DATA_DIR
#error "TEMPO_FAEST_DATA_DIR must name tests/data/faest"
#endif

namespace faest_test {

using tempo_test::hex;
using tempo_test::RspEntry;

// TEMPO_FAEST_DATA_DIR in the environment overrides the compiled-in folder (a copied tree).
inline std::string data_path(const std::string& name) {
  const char* env = std::getenv("TEMPO_FAEST_DATA_DIR");
  return std::string(env != nullptr && *env != '\0' ? env : TEMPO_FAEST_DATA_DIR) + "/" + name;
}

inline std::vector<RspEntry> read_rsp(const std::string& file) { return tempo_test::read_rsp(data_path(file)); }

// [section] -> key -> value, plus the shared keys (rho, msg) under "".
inline std::map<std::string, std::map<std::string, std::string>> read_v2_vectors() {
  std::ifstream in(data_path("faest_v2_test_vectors.txt"));
  if (!in) throw std::runtime_error("cannot open the v2 vectors");
  std::map<std::string, std::map<std::string, std::string>> out;
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.size() - 2);
      continue;
    }
    const auto eq = line.find(" = ");
    if (eq != std::string::npos) out[section][line.substr(0, eq)] = line.substr(eq + 3);
  }
  return out;
}

// NIST's DRBG on FAEST's constant-time AES-256.
struct Aes256 {
  static void encrypt(const std::uint8_t key[32], std::uint8_t block[16]) {
    std::uint8_t rk[240];
    tempo::voleith::ct::expand_keys(tempo::voleith::ct::aes256, key, 1, rk);
    tempo::voleith::ct::encrypt_blocks(tempo::voleith::ct::aes256, rk, 240, block, 1);
  }
};
using CtrDrbg = tempo_test::CtrDrbg<Aes256>;

// A 0/1 switch of the tests' environment (unset or empty: 0; anything else: invalid_argument).
inline bool env_flag(const char* name) { return tempo::env_choice(name, {"0", "1"}).value_or(0) == 1; }

// Full sweeps (all 100 NIST vectors per set) with TEMPO_FAEST_FULL=1; otherwise a few.
inline bool full_sweep() { return env_flag("TEMPO_FAEST_FULL"); }

// TEMPO_FAEST_QUICK=1 (the sanitizer builds): FAEST-128f only where the bit-plane AES runs.
inline bool quick() { return env_flag("TEMPO_FAEST_QUICK"); }

}  // namespace faest_test
