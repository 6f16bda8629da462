// Randomness from the operating system (getrandom(2)): what every family's key generation,
// encryption and signing draw by default. Throws std::runtime_error naming the OS error
// when no randomness can be had (never returns predictable bytes).
#pragma once

#include <cstdint>
#include <span>

namespace tempo {

void os_random(std::span<std::uint8_t> out);

}  // namespace tempo
