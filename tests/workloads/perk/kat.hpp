// Known-answer helpers: hex, the NIST .rsp reader, NIST's AES-256 CTR_DRBG (SP 800-90A, no
// derivation function; the randombytes() of the NIST signature harness), test switches.
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

#include "aes_portable.hpp"

#ifndef TEMPO_PERK_DATA_DIR
#error "TEMPO_PERK_DATA_DIR must name tests/data/perk"
#endif

namespace perk_test {

inline std::vector<std::uint8_t> hex(const std::string& s) {
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

// TEMPO_PERK_DATA_DIR in the environment overrides the compiled-in folder (a copied tree).
inline std::string data_path(const std::string& name) {
  const char* env = std::getenv("TEMPO_PERK_DATA_DIR");
  return std::string(env != nullptr && *env != '\0' ? env : TEMPO_PERK_DATA_DIR) + "/" + name;
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
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), val = line.substr(eq + 3);
    if (key == "count") {
      out.emplace_back();
      out.back().count = std::stoi(val);
    } else if (out.empty()) {
      continue;
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

// NIST's randombytes: AES-256 in counter mode, the state updated after every call.
class CtrDrbg {
 public:
  explicit CtrDrbg(const std::vector<std::uint8_t>& entropy48) { update(entropy48.data()); }
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
  void operator()(std::span<std::uint8_t> out) { randombytes(out.data(), out.size()); }

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
    namespace ct = tempo::perk::detail::ct;
    std::uint8_t rk[240];
    ct::expand_keys(ct::aes256, key_, 1, rk);
    std::copy(v_, v_ + 16, out);
    ct::encrypt_blocks(ct::aes256, rk, 240, out, 1);
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

// TEMPO_PERK_QUICK=1 (the sanitizer builds): the first 2 of the 10 shipped vectors per set.
inline std::size_t vectors_per_set() { return env_flag("TEMPO_PERK_QUICK") ? 2 : 10; }

}  // namespace perk_test
