#include <tempo/keccak/algorithm.hpp>

#include <array>
#include <stdexcept>
#include <string>

namespace tempo::keccak {
namespace {

struct Info {
  Algorithm alg;
  std::string_view name;
  std::size_t rate;
  std::size_t digest;  // 0 for XOFs
  int rounds;
};

constexpr std::array<Info, 10> kInfo = {{
    {Algorithm::sha3_224, "sha3-224", 144, 28, 24},
    {Algorithm::sha3_256, "sha3-256", 136, 32, 24},
    {Algorithm::sha3_384, "sha3-384", 104, 48, 24},
    {Algorithm::sha3_512, "sha3-512", 72, 64, 24},
    {Algorithm::shake128, "shake128", 168, 0, 24},
    {Algorithm::shake256, "shake256", 136, 0, 24},
    {Algorithm::turboshake128, "turboshake128", 168, 0, 12},
    {Algorithm::turboshake256, "turboshake256", 136, 0, 12},
    {Algorithm::kt128, "kt128", 168, 0, 12},
    {Algorithm::kt256, "kt256", 136, 0, 12},
}};

const Info& info(Algorithm a) {
  const auto i = static_cast<std::size_t>(a);
  if (i >= kInfo.size())
    throw std::invalid_argument("tempo::keccak: invalid Algorithm value " + std::to_string(i));
  return kInfo[i];
}

char normalize(char c) {
  if (c == '_') return '-';
  if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
  return c;
}

}  // namespace

Algorithm parse_algorithm(std::string_view name) {
  for (const Info& e : kInfo) {
    if (e.name.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) same = normalize(name[i]) == e.name[i];
    if (same) return e.alg;
  }
  std::string valid;
  for (const Info& e : kInfo) {
    if (!valid.empty()) valid += ", ";
    valid += e.name;
  }
  throw std::invalid_argument("tempo::keccak: unknown algorithm \"" + std::string(name) +
                              "\" (expected one of: " + valid + ")");
}

std::string_view algorithm_name(Algorithm a) { return info(a).name; }
std::size_t rate_bytes(Algorithm a) { return info(a).rate; }
bool is_xof(Algorithm a) { return info(a).digest == 0; }
std::size_t fixed_digest_bytes(Algorithm a) { return info(a).digest; }
int permutation_rounds(Algorithm a) { return info(a).rounds; }

}  // namespace tempo::keccak
