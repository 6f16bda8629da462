// Shared helpers for the tfhe tests: seeds, cached keys, the pool, the size knobs and a
// scoped environment variable.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <tempo/env.hpp>
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
inline bool full() { return tempo::env_choice("TEMPO_TFHE_FULL", {"0", "1"}).value_or(0) == 1; }

// A count knob: the variable's value (an integer in [1, 10^6]) or `dflt` when unset.
inline std::size_t env_count(const char* name, std::size_t dflt) {
  return static_cast<std::size_t>(tempo::env_integer(name, 1, 1000000).value_or(dflt));
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

// Sets (or, with nullptr, unsets) an environment variable for a scope.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* o = std::getenv(name)) old_ = o;
    if (value != nullptr) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;
  ~EnvVar() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace tfhe_test
