// Parallel KangarooTwelve (RFC 9861 KT128/KT256) on the tempo runtime.
// The input is cut into 8 KiB chunks; chunks 1..n-1 are independent leaves, hashed by
// fork/join (t.join recursion) four at a time with the 4-way permutation. The result is
// byte-identical to the serial kt128/kt256 in sponge.hpp.
#pragma once

#include <cstdint>
#include <span>

#include <tempo/keccak/sponge.hpp>

namespace tempo {
class Task;  // <tempo/tempo.hpp>
}

namespace tempo::keccak {

void kt128(tempo::Task& t, std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom,
           std::span<std::uint8_t> out);
void kt256(tempo::Task& t, std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom,
           std::span<std::uint8_t> out);

}  // namespace tempo::keccak
