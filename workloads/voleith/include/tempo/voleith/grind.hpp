// Grinding (proof of work on the last challenge): the first counter c = 0, 1, ... whose
// output H(prefix || c || domain) the scheme accepts (FAEST: w_grind zero bits and an
// opening within T_open; PERK: w zero bits after the leaf indices and an opening within
// t_open). Eight counters per 8-way permutation; the first accepted one in counter order
// wins, so the result is the serial search's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include <tempo/voleith/sponge.hpp>

namespace tempo::voleith {

inline constexpr std::size_t max_grind_output = 64;

// The verifier's side: out = H(prefix || ctr (ctr_bytes, little-endian) || domain), n bytes.
inline void grind_output(const Sponge& prefix, std::uint64_t ctr, unsigned ctr_bytes, std::uint8_t domain,
                         std::uint8_t* out, std::size_t n) {
  Sponge h = prefix;
  std::uint8_t c[8];
  for (unsigned i = 0; i < 8; ++i) c[i] = static_cast<std::uint8_t>(ctr >> (8 * i));
  h.absorb(c, ctr_bytes);
  h.finalize(domain);
  h.squeeze(out, n);
}

// The signer's side: the first counter whose output (n <= max_grind_output bytes, in out)
// passes accept(out) (which may edit out, e.g. clear unused bits, and returns whether it
// accepts). ctr_bytes: 4 (FAEST) or 8 (PERK); the search wraps nowhere (a 32-bit counter
// space is far beyond any set's expected 2^w_grind tries).
template <class Accept>
std::uint64_t grind(const Sponge& prefix, unsigned ctr_bytes, std::uint8_t domain, std::uint8_t* out, std::size_t n,
                    Accept&& accept) {
  if (n > max_grind_output || ctr_bytes > 8)
    throw std::invalid_argument("tempo::voleith::grind: at most 64 output bytes and 8 counter bytes");
  constexpr unsigned ways = 8;
  for (std::uint64_t base = 0;; base += ways) {
    std::uint8_t ctrs[ways][8], outs[ways][max_grind_output];
    const std::uint8_t* in[ways];
    std::uint8_t* o[ways];
    for (unsigned k = 0; k < ways; ++k) {
      in[k] = ctrs[k];
      o[k] = outs[k];
      for (unsigned i = 0; i < 8; ++i) ctrs[k][i] = static_cast<std::uint8_t>((base + k) >> (8 * i));
    }
    Sponge8 h(prefix);
    h.absorb(in, ctr_bytes);
    h.finalize(domain);
    h.squeeze(o, n);
    for (unsigned k = 0; k < ways; ++k) {
      if (!accept(outs[k])) continue;
      for (std::size_t i = 0; i < n; ++i) out[i] = outs[k][i];
      return base + k;
    }
  }
}

}  // namespace tempo::voleith
