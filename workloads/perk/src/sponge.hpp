// PERK's Keccak sponges (symmetric.c, symmetric_times4.c): the PRG is SHAKE128 at level 1 and
// SHAKE256 at levels 3 and 5, the hash SHA3-256/384/512; tempo::voleith's sponges with the
// parameter set's rate and padding.
#pragma once

#include <tempo/voleith/sponge.hpp>

#include "params.hpp"

namespace tempo::perk::detail {

struct Sponge : voleith::Sponge {
  Sponge(unsigned rate, std::uint8_t suffix) : voleith::Sponge(rate, suffix) {}
  static Sponge prg(const ParamSet& p) { return Sponge(p.shake_rate(), voleith::suffix_shake); }
  static Sponge hash(const ParamSet& p) { return Sponge(p.sha3_rate(), voleith::suffix_sha3); }
};

struct Sponge4 : voleith::Sponge4 {
  Sponge4(unsigned rate, std::uint8_t suffix) : voleith::Sponge4(rate, suffix) {}
  static Sponge4 prg(const ParamSet& p) { return Sponge4(p.shake_rate(), voleith::suffix_shake); }
  static Sponge4 hash(const ParamSet& p) { return Sponge4(p.sha3_rate(), voleith::suffix_sha3); }
};

}  // namespace tempo::perk::detail
