// Portable (plain 64-bit integer) Keccak-p[1600].
#include <bit>
#include <cstdint>

#include <tempo/keccak/detail/x4.hpp>
#include <tempo/keccak/permutation.hpp>

#include "keccak_round.hpp"

namespace tempo::keccak {
namespace {

struct ScalarOps {
  using V = std::uint64_t;
  static V load(const std::uint64_t* s, int i) noexcept { return s[i]; }
  static void store(std::uint64_t* s, int i, V v) noexcept { s[i] = v; }
  static V x(V a, V b) noexcept { return a ^ b; }
  static V andn(V a, V b) noexcept { return ~a & b; }
  template <int n>
  static V rol(V a) noexcept { return std::rotl(a, n); }
  static V rc(std::uint64_t c) noexcept { return c; }
};

// Lane i of interleaved state j: lanes[4*i + j]. Instantiating with a state index lets the
// portable 4-way fallback permute in place without copying.
template <int j>
struct InterleavedScalarOps : ScalarOps {
  static V load(const std::uint64_t* s, int i) noexcept { return s[4 * i + j]; }
  static void store(std::uint64_t* s, int i, V v) noexcept { s[4 * i + j] = v; }
};

}  // namespace

void keccak_f1600(std::uint64_t state[25]) noexcept { detail::keccak_rounds<ScalarOps>(state, 0); }
void keccak_p1600_12(std::uint64_t state[25]) noexcept { detail::keccak_rounds<ScalarOps>(state, 12); }

namespace detail {

void permute(std::uint64_t state[25], int rounds) noexcept {
  detail::keccak_rounds<ScalarOps>(state, 24 - rounds);
}

void permute_x4_interleaved_portable(std::uint64_t lanes[100], int rounds) noexcept {
  const int first = 24 - rounds;
  keccak_rounds<InterleavedScalarOps<0>>(lanes, first);
  keccak_rounds<InterleavedScalarOps<1>>(lanes, first);
  keccak_rounds<InterleavedScalarOps<2>>(lanes, first);
  keccak_rounds<InterleavedScalarOps<3>>(lanes, first);
}

}  // namespace detail
}  // namespace tempo::keccak
