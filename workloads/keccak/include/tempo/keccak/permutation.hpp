// The Keccak-p[1600] permutations: one state, or four states at once (AVX2 when available).
// A state is 25 lanes of 64 bits, lane (x, y) at index x + 5*y, bytes little-endian
// (the FIPS 202 byte order), so a state can be XORed with message bytes directly.
#pragma once

#include <cstdint>

namespace tempo::keccak {

void keccak_f1600(std::uint64_t state[25]) noexcept;     // Keccak-f[1600]: 24 rounds
void keccak_p1600_12(std::uint64_t state[25]) noexcept;  // Keccak-p[1600, 12]: the last 12 rounds

// Four independent states. AVX-512VL or AVX2 when the CPU has it, otherwise four
// portable calls; results are identical either way.
void keccak_f1600_x4(std::uint64_t* states[4]);
void keccak_p1600_12_x4(std::uint64_t* states[4]);
// Eight independent states: one AVX-512 pass (8 states in 25 zmm registers) when the 4-way
// choice below is avx512, else two 4-way passes; results are identical either way.
void keccak_f1600_x8(std::uint64_t* states[8]);
void keccak_p1600_12_x8(std::uint64_t* states[8]);

// Which instruction set keccak_*_x4 (and the batch and KT code) use on this CPU:
// "avx512", "avx2" or "portable". Chosen once per process, the best the CPU has, at
// most TEMPO_KECCAK_ISA (portable, avx2, avx512 or auto; case-insensitive). A value of
// TEMPO_KECCAK_ISA outside those makes this, the x4 permutations and every hash that
// uses them throw std::invalid_argument naming the variable and the accepted values.
const char* permutation_isa_name();

}  // namespace tempo::keccak
