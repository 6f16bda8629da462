// Known-answer helpers: hex, the NIST .rsp reader, NIST's AES-256 CTR_DRBG (SP 800-90A, no
// derivation function; the randombytes() of the NIST signature harness), the v2 vector file.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <tempo/env.hpp>

#include "aes_portable.hpp"

#ifndef TEMPO_FAEST_DATA_DIR
#error "TEMPO_FAEST_DATA_DIR must name tests/data/faest"
#endif

namespace faest_test {

inline std::vector<std::uint8_t> hex(const std::string& s) {
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::uint8_t(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

// TEMPO_FAEST_DATA_DIR in the environment overrides the compiled-in folder (a copied tree).
inline std::string data_path(const std::string& name) {
  const char* env = std::getenv("TEMPO_FAEST_DATA_DIR");
  return std::string(env != nullptr && *env != '\0' ? env : TEMPO_FAEST_DATA_DIR) + "/" + name;
}

struct RspEntry {
  int count = 0;
  std::vector<std::uint8_t> seed, msg, pk, sk, sm;
};

inline std::vector<RspEntry> read_rsp(const std::string& file) {
  std::ifstream in(data_path(file));
  if (!in) throw std::runtime_error("cannot open " + data_path(file));
  std::vector<RspEntry> out;
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), val = line.substr(eq + 3);
    if (key == "count") {
      out.emplace_back();
      out.back().count = std::stoi(val);
    } else if (key == "seed") {
      out.back().seed = hex(val);
    } else if (key == "msg") {
      out.back().msg = hex(val);
    } else if (key == "pk") {
      out.back().pk = hex(val);
    } else if (key == "sk") {
      out.back().sk = hex(val);
    } else if (key == "sm") {
      out.back().sm = hex(val);
    }
  }
  return out;
}

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

class CtrDrbg {
 public:
  explicit CtrDrbg(const std::vector<std::uint8_t>& entropy48) {
    update(entropy48.data());
  }
  void randombytes(std::uint8_t* x, std::size_t n) {
    while (n > 0) {
      std::uint8_t block[16];
      next_block(block);
      const std::size_t take = n < 16 ? n : 16;
      std::copy(block, block + take, x);
      x += take;
      n -= take;
    }
    update(nullptr);
  }

 private:
  void next_block(std::uint8_t out[16]) {
    for (int j = 15; j >= 0; --j) {
      if (v_[j] == 0xff) {
        v_[j] = 0;
      } else {
        ++v_[j];
        break;
      }
    }
    std::uint8_t rk[240];
    tempo::faest::detail::ct::expand_keys(key_, 1, 8, rk);
    std::copy(v_, v_ + 16, out);
    tempo::faest::detail::ct::encrypt_blocks(rk, 240, 14, out, 1);
  }
  void update(const std::uint8_t* provided) {
    std::uint8_t temp[48];
    for (int i = 0; i < 3; ++i) next_block(temp + 16 * i);
    if (provided)
      for (int i = 0; i < 48; ++i) temp[i] ^= provided[i];
    std::copy(temp, temp + 32, key_);
    std::copy(temp + 32, temp + 48, v_);
  }
  std::uint8_t key_[32] = {}, v_[16] = {};
};

// A 0/1 switch of the tests' environment (unset or empty: 0; anything else: invalid_argument).
inline bool env_flag(const char* name) { return tempo::env_choice(name, {"0", "1"}).value_or(0) == 1; }

// Full sweeps (all 100 NIST vectors per set) with TEMPO_FAEST_FULL=1; otherwise a few.
inline bool full_sweep() { return env_flag("TEMPO_FAEST_FULL"); }

// TEMPO_FAEST_QUICK=1 (the sanitizer builds): FAEST-128f only where the bit-plane AES runs.
inline bool quick() { return env_flag("TEMPO_FAEST_QUICK"); }

}  // namespace faest_test
