// SHA3, SHAKE and TurboSHAKE: one-shot functions and the incremental Keccak sponge.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <tempo/keccak/algorithm.hpp>

namespace tempo::keccak {

void sha3_224(std::span<const std::uint8_t> in, std::span<std::uint8_t, 28> out);
void sha3_256(std::span<const std::uint8_t> in, std::span<std::uint8_t, 32> out);
void sha3_384(std::span<const std::uint8_t> in, std::span<std::uint8_t, 48> out);
void sha3_512(std::span<const std::uint8_t> in, std::span<std::uint8_t, 64> out);

// XOFs: out may have any length (including 0).
void shake128(std::span<const std::uint8_t> in, std::span<std::uint8_t> out);
void shake256(std::span<const std::uint8_t> in, std::span<std::uint8_t> out);

// TurboSHAKE (RFC 9861). domain must be in 0x01..0x7F (std::invalid_argument otherwise);
// 0x1F is the default domain for plain hashing.
void turboshake128(std::span<const std::uint8_t> in, std::uint8_t domain, std::span<std::uint8_t> out);
void turboshake256(std::span<const std::uint8_t> in, std::uint8_t domain, std::span<std::uint8_t> out);

// KangarooTwelve (RFC 9861), serial. Parallel versions are in kangaroo_twelve.hpp.
void kt128(std::span<const std::uint8_t> msg, std::span<const std::uint8_t> customization,
           std::span<std::uint8_t> out);
void kt256(std::span<const std::uint8_t> msg, std::span<const std::uint8_t> customization,
           std::span<std::uint8_t> out);

// Generic entry point. For SHA3-n out.size() must be n/8 (std::invalid_argument otherwise);
// XOFs take any length. TurboSHAKE uses domain 0x1F, KT an empty customization string.
void hash(Algorithm a, std::span<const std::uint8_t> in, std::span<std::uint8_t> out);

// Incremental sponge for SHA3, SHAKE and TurboSHAKE: absorb any number of times, then squeeze
// any number of times; the concatenated squeezes equal the one-shot output of the total length.
// (KT is a tree hash, not a single sponge: the constructor rejects it.)
// A SHA3 digest is the first fixed_digest_bytes() squeezed bytes.
class Keccak {
 public:
  explicit Keccak(Algorithm a);                  // TurboSHAKE: domain 0x1F
  Keccak(Algorithm a, std::uint8_t domain);      // TurboSHAKE only; domain in 0x01..0x7F

  void absorb(std::span<const std::uint8_t> in);  // std::logic_error after the first squeeze
  void squeeze(std::span<std::uint8_t> out);
  void reset() noexcept;                          // back to the empty message, same algorithm

  Algorithm algorithm() const noexcept { return alg_; }
  std::size_t rate() const noexcept { return rate_; }

 private:
  void pad_and_switch() noexcept;

  std::uint64_t state_[25];
  Algorithm alg_;
  std::uint32_t rate_;
  std::uint32_t pos_;     // byte position inside the current block
  std::uint8_t suffix_;   // domain/padding byte: 0x06 SHA3, 0x1F SHAKE, D for TurboSHAKE
  std::uint8_t rounds_;   // 24 or 12
  bool squeezing_;
};

}  // namespace tempo::keccak
