// Known-answer vector files in tests/data/keccak (format documented in make_vectors.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tempo_keccak_test {

struct Vector {
  std::string line;  // for failure messages
  std::string algorithm;
  std::vector<std::uint8_t> message;
  std::string param;  // "-", "D=XX" or "C=<spec>"
  std::size_t out_bytes = 0;
  std::size_t compare_last = 0;  // 0: compare the whole output
  std::vector<std::uint8_t> expected;
};

std::vector<std::uint8_t> ptn(std::size_t n);
std::vector<std::uint8_t> message_from_spec(const std::string& spec);
std::vector<std::uint8_t> from_hex(const std::string& hex);
std::string to_hex(const std::uint8_t* p, std::size_t n);
template <class C>
std::string to_hex(const C& c) {
  return to_hex(c.data(), c.size());
}

// Reads TEMPO_KECCAK_DATA_DIR/<name>; fails the test (throws) if the file is missing.
std::vector<Vector> load_vectors(const std::string& name);

}  // namespace tempo_keccak_test
