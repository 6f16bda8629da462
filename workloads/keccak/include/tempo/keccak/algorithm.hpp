// Names and sponge parameters of the Keccak-family algorithms tempo supports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tempo::keccak {

enum class Algorithm {
  sha3_224,
  sha3_256,
  sha3_384,
  sha3_512,
  shake128,
  shake256,
  turboshake128,
  turboshake256,
  kt128,
  kt256,
};

// Accepts the canonical names ("sha3-256", "shake128", "turboshake256", "kt128", ...) and
// Python hashlib's ("sha3_256", "shake_128", "shake_256"), case-insensitively, with '-'
// or '_' interchangeable ("SHA3_256", "SHAKE-256" work too). Throws std::invalid_argument
// naming the bad name and listing the valid ones.
Algorithm parse_algorithm(std::string_view name);

// Canonical lower-case name: "sha3-256", "shake128", "turboshake128", "kt128", ...
// Throws std::invalid_argument for a value outside the enum.
std::string_view algorithm_name(Algorithm a);

// Sponge rate in bytes (KT reports the rate of its underlying TurboSHAKE).
std::size_t rate_bytes(Algorithm a);

// SHAKE, TurboSHAKE and KT produce any output length.
bool is_xof(Algorithm a);

// SHA3-n: n/8 bytes. 0 for the XOFs.
std::size_t fixed_digest_bytes(Algorithm a);

// Number of Keccak-p[1600] rounds: 24 for SHA3/SHAKE, 12 for TurboSHAKE/KT.
int permutation_rounds(Algorithm a);

}  // namespace tempo::keccak
