// Shared helpers for the tfhe tests: seeds, cached keys, the pool and the size knob.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include <tempo/tfhe.hpp>

namespace tfhe_test {

using Seed = std::array<std::uint8_t, 32>;

// Deterministic seed from a label and a number (no hashing needed: tests only need distinct).
inline Seed seed(std::uint64_t a, std::uint64_t b = 0) {
  Seed s{};
  for (int i = 0; i < 8; ++i) {
    s[i] = static_cast<std::uint8_t>(a >> (8 * i));
    s[8 + i] = static_cast<std::uint8_t>(b >> (8 * i));
  }
  s[31] = 0x5a;
  return s;
}

// TEMPO_TFHE_FULL=1: the large sweeps (all parameter sets, many seeds). Default: the sizes a
// sanitizer build on a loaded 2-core machine gets through in well under two minutes.
inline bool full() {
  const char* v = std::getenv("TEMPO_TFHE_FULL");
  return v != nullptr && std::string(v) == "1";
}

// Sanitizer builds keep to TOY256 (a PN10QP27 key and its bootstraps take minutes there)
// unless TEMPO_TFHE_FULL=1.
inline bool real_sets() {
#ifdef TEMPO_TFHE_SANITIZED
  return full();
#else
  return true;
#endif
}

tempo::ThreadPool& pool();

// Keys for (parameter set, seed number), generated once per process.
const tempo::tfhe::Keys& keys(const std::string& params, std::uint64_t seed_no);

}  // namespace tfhe_test
