// The tower products the PKP proof calls, per instruction set.
#pragma once

#include <cstdint>

namespace tempo::perk::detail {

using TowerMul = void (*)(std::uint16_t* out, const std::uint16_t* a, const std::uint16_t* b);

struct TowerMuls {
  TowerMul mul12, mul18, mul24;
};

// AVX-512 (F, BW) with PCLMULQDQ, or nullptr when the CPU lacks them.
const TowerMuls* avx512_tower_muls();

}  // namespace tempo::perk::detail
