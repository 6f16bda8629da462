// The instruction sets the VOLE-in-the-head code has kernels for, and the run-time choice
// among them. Every kernel exists in portable constant-time C++; the others only run on
// CPUs that report their instructions (checked once, here).
#pragma once

#include <cstddef>

namespace tempo::voleith {

// Ordered from slowest to fastest: a cap lets through every set at or below it.
enum class Isa : unsigned char {
  portable,  // constant-time C++ (bit-sliced AES, carry-less multiply by masks)
  aesni,     // AES-NI + PCLMULQDQ + SSE4.1
  vaes,      // VAES + AVX2 on top of aesni (two AES blocks per instruction, four streams)
};

// Whether this CPU runs the kernels of `isa` (portable: always).
bool cpu_has(Isa isa) noexcept;

// The fastest set the CPU has, capped by the environment variable `variable` (portable,
// aesni or vaes, case-insensitive; unset or empty: no cap). A cap the CPU lacks falls back
// to the next slower set; another value throws std::invalid_argument. Read at every call,
// as every TEMPO_* variable.
Isa active_isa(const char* variable);

// The set's name as the variable spells it.
const char* isa_name(Isa isa) noexcept;

// A family's table of kernels for active_isa(variable): the vaes one, else the aesni one,
// else the portable one (a null table: the family has none for that set on this CPU).
template <class Table>
const Table& choose(const char* variable, const Table* vaes, const Table* aesni, const Table& portable) {
  switch (active_isa(variable)) {
    case Isa::vaes:
      if (vaes != nullptr) return *vaes;
      [[fallthrough]];
    case Isa::aesni:
      if (aesni != nullptr) return *aesni;
      [[fallthrough]];
    case Isa::portable: break;
  }
  return portable;
}

}  // namespace tempo::voleith
