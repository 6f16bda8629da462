// Known-answer helpers shared by the signature families' tests (FAEST, PERK): hex, the NIST
// .rsp reader and NIST's AES-256 CTR_DRBG (SP 800-90A without a derivation function: the
// randombytes() of the NIST signature harness). The DRBG runs on the family's own AES-256,
// given as Aes256::encrypt(const std::uint8_t key[32], std::uint8_t block[16]).
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tempo_test {

inline std::vector<std::uint8_t> hex(const std::string& s) {
  std::vector<std::uint8_t> out(s.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = static_cast<std::uint8_t>(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return out;
}

struct RspEntry {
  int count = 0;
  std::vector<std::uint8_t> seed, msg, pk, sk, sm;
};

// The records of a NIST .rsp file (path: the file itself).
inline std::vector<RspEntry> read_rsp(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
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
template <class Aes256>
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
    std::copy(v_, v_ + 16, out);
    Aes256::encrypt(key_, out);
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

}  // namespace tempo_test
