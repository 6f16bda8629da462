// Internal: the 4-way permutation on interleaved states, used by the batch and KT code
// (and tested directly). lanes[4*i + j] is lane i of state j, so one 256-bit vector holds
// lane i of all four states and absorbing/squeezing needs no transposition.
#pragma once

#include <cstdint>

namespace tempo::keccak::detail {

// rounds: 24 (Keccak-f) or 12 (TurboSHAKE/KT). lanes needs no particular alignment.
// Dispatching (see permutation_isa_name): throws only for a bad TEMPO_KECCAK_ISA.
void permute_x4_interleaved(std::uint64_t lanes[100], int rounds);
void permute_x4_interleaved_portable(std::uint64_t lanes[100], int rounds) noexcept;
// Only call when cpu_has_avx2() is true; a no-op stub returning false in builds without AVX2.
bool permute_x4_interleaved_avx2(std::uint64_t lanes[100], int rounds) noexcept;
// The same layout with AVX-512VL's rotate and ternary-logic instructions. Only call when
// cpu_has_avx512vl() is true; a stub returning false in builds without those flags.
bool permute_x4_interleaved_avx512(std::uint64_t lanes[100], int rounds) noexcept;
// Eight states interleaved (lane i of state k at lanes[8 * i + k]): one AVX-512 pass when
// the 4-way choice is avx512, else two 4-way passes. Results are identical either way.
void permute_x8_interleaved(std::uint64_t lanes[200], int rounds);
bool permute_x8_interleaved_avx512(std::uint64_t lanes[200], int rounds) noexcept;
bool cpu_has_avx2() noexcept;
bool cpu_has_avx512vl() noexcept;

// One state, any of the two round counts.
void permute(std::uint64_t state[25], int rounds) noexcept;

}  // namespace tempo::keccak::detail
