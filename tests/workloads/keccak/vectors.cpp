#include "vectors.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tempo_keccak_test {

std::vector<std::uint8_t> ptn(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i % 251);
  return v;
}

std::vector<std::uint8_t> from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::runtime_error("odd-length hex string: " + hex);
  std::vector<std::uint8_t> v(hex.size() / 2);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return v;
}

std::string to_hex(const std::uint8_t* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

std::vector<std::uint8_t> message_from_spec(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string kind = spec.substr(0, colon), rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (kind == "ptn") return ptn(std::stoull(rest));
  if (kind == "hex") return from_hex(rest);
  if (kind == "rep") {
    const auto c2 = rest.find(':');
    const auto byte = static_cast<std::uint8_t>(std::stoul(rest.substr(0, c2), nullptr, 16));
    return std::vector<std::uint8_t>(std::stoull(rest.substr(c2 + 1)), byte);
  }
  throw std::runtime_error("bad message spec: " + spec);
}

std::vector<Vector> load_vectors(const std::string& name) {
  const std::string path = std::string(TEMPO_KECCAK_DATA_DIR) + "/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open vector file " + path);
  std::vector<Vector> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    Vector v;
    std::string msg, compare, hex;
    ls >> v.algorithm >> msg >> v.param >> v.out_bytes >> compare;
    if (!ls) throw std::runtime_error("malformed line in " + path + ": " + line);
    ls >> hex;  // empty for a zero-length output
    v.line = line;
    v.message = message_from_spec(msg);
    v.compare_last = compare == "all" ? 0 : std::stoull(compare);
    v.expected = from_hex(hex);
    out.push_back(std::move(v));
  }
  if (out.empty()) throw std::runtime_error("no vectors in " + path);
  return out;
}

}  // namespace tempo_keccak_test
