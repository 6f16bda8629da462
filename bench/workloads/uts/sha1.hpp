// SHA-1 of a short message (< 56 bytes, one block): all that UTS's splittable
// random number generator needs. Portable, so the numbers do not depend on a
// crypto library being present on the benchmark host.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tb::uts {

void sha1_short(const std::uint8_t* msg, std::size_t len, std::uint8_t out[20]);

}  // namespace tb::uts
