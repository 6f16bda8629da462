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

// hashlib's spellings of the SHAKEs (hashlib.algorithms_available: "shake_128",
// "shake_256"; its "sha3_256" is already our name with '_' for '-'), as normalize() leaves them.
struct Alias {
  std::string_view name;
  Algorithm alg;
};
constexpr std::array<Alias, 2> kAliases = {{
    {"shake-128", Algorithm::shake128},
    {"shake-256", Algorithm::shake256},
}};

char normalize(char c) {
  if (c == '_') return '-';
  if (c >= 'A' && c <= 'Z') return static_cast<char>(c - 'A' + 'a');
  return c;
}

bool same_name(std::string_view typed, std::string_view canonical) {
  if (typed.size() != canonical.size()) return false;
  for (std::size_t i = 0; i < typed.size(); ++i)
    if (normalize(typed[i]) != canonical[i]) return false;
  return true;
}

}  // namespace

Algorithm parse_algorithm(std::string_view name) {
  for (const Info& e : kInfo)
    if (same_name(name, e.name)) return e.alg;
  for (const Alias& e : kAliases)
    if (same_name(name, e.name)) return e.alg;
  std::string valid;
  for (const Info& e : kInfo) {
    if (!valid.empty()) valid += ", ";
    valid += e.name;
  }
  throw std::invalid_argument("tempo::keccak: unknown algorithm \"" + std::string(name) + "\" (expected one of: " +
                              valid + ", or hashlib's shake_128, shake_256; case and '-'/'_' do not matter)");
}

std::string_view algorithm_name(Algorithm a) { return info(a).name; }
std::size_t rate_bytes(Algorithm a) { return info(a).rate; }
bool is_xof(Algorithm a) { return info(a).digest == 0; }
std::size_t fixed_digest_bytes(Algorithm a) { return info(a).digest; }
int permutation_rounds(Algorithm a) { return info(a).rounds; }

}  // namespace tempo::keccak
