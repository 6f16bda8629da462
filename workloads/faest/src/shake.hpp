// FAEST's random oracles H0..H4: SHAKE128 (tempo::voleith's sponge) with a one-byte domain
// separator appended before the padding (faest-ref random_oracle.c).
#pragma once

#include <cstdint>

#include <tempo/voleith/sponge.hpp>

#include "common.hpp"

namespace tempo::faest::detail {

// H_i: absorb the inputs, then final(domain) appends the separator and pads.
struct RandomOracle : voleith::Sponge {
  RandomOracle() : voleith::Sponge(voleith::Sponge::shake128()) {}
  void final(std::uint8_t domain) { finalize(domain); }
};
inline constexpr std::uint8_t dom_h0 = 0, dom_h1 = 1, dom_h3 = 3, dom_h4 = 4;
inline constexpr std::uint8_t dom_h2_0 = 8, dom_h2_1 = 9, dom_h2_2 = 10, dom_h2_3 = 11;

// H4: iv = H4(iv_pre).
inline void hash_iv(std::uint8_t iv[16], const std::uint8_t iv_pre[16]) {
  RandomOracle h;
  h.absorb(iv_pre, 16);
  h.final(dom_h4);
  h.squeeze(iv, 16);
}

}  // namespace tempo::faest::detail
