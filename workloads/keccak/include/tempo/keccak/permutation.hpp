// The Keccak-p[1600] permutations: one state, or four states at once (AVX2 when available).
// A state is 25 lanes of 64 bits, lane (x, y) at index x + 5*y, bytes little-endian
// (the FIPS 202 byte order), so a state can be XORed with message bytes directly.
#pragma once

#include <cstdint>

namespace tempo::keccak {

void keccak_f1600(std::uint64_t state[25]) noexcept;     // Keccak-f[1600]: 24 rounds
void keccak_p1600_12(std::uint64_t state[25]) noexcept;  // Keccak-p[1600, 12]: the last 12 rounds

// Four independent states. AVX2 when the CPU has it, otherwise four portable calls;
// results are identical either way.
void keccak_f1600_x4(std::uint64_t* states[4]) noexcept;
void keccak_p1600_12_x4(std::uint64_t* states[4]) noexcept;

// "avx2" or "portable": which implementation keccak_*_x4 uses on this CPU.
const char* keccak_backend_name() noexcept;

}  // namespace tempo::keccak
