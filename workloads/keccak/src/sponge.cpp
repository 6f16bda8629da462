// SHA3 / SHAKE / TurboSHAKE: one-shot functions, the incremental Keccak class, hash().
#include <tempo/keccak/sponge.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sponge_core.hpp"

namespace tempo::keccak {
namespace detail {

namespace {
void check_domain(std::uint8_t d) {
  if (d < 0x01 || d > 0x7F)
    throw std::invalid_argument("tempo::keccak: TurboSHAKE domain byte must be in 0x01..0x7F, got " +
                                std::to_string(d));
}
}  // namespace

SpongeSpec sponge_spec(Algorithm a, std::uint8_t turbo_domain) {
  const auto rate = static_cast<std::uint32_t>(rate_bytes(a));
  switch (a) {
    case Algorithm::sha3_224:
    case Algorithm::sha3_256:
    case Algorithm::sha3_384:
    case Algorithm::sha3_512:
      return {rate, 0x06, 24};
    case Algorithm::shake128:
    case Algorithm::shake256:
      return {rate, 0x1F, 24};
    case Algorithm::turboshake128:
    case Algorithm::turboshake256:
      check_domain(turbo_domain);
      return {rate, turbo_domain, 12};
    case Algorithm::kt128:
    case Algorithm::kt256:
      break;
  }
  throw std::invalid_argument("tempo::keccak: " + std::string(algorithm_name(a)) +
                              " is a tree hash, not a single sponge (use kt128()/kt256())");
}

void sponge_x4(const SpongeSpec& s, const std::uint8_t* const msg[4], const std::size_t len[4],
               std::uint8_t* const out[4], std::size_t out_bytes) {
  alignas(32) std::uint64_t lanes[100] = {};
  const std::size_t rate = s.rate;
  const std::size_t full = len[0] / rate;
  const std::size_t words = rate / 8;  // every supported rate is a multiple of 8
  for (std::size_t b = 0; b < full; ++b) {
    const std::size_t at = b * rate;
    for (std::size_t i = 0; i < words; ++i) {
      lanes[4 * i + 0] ^= load_le64(msg[0] + at + 8 * i);
      lanes[4 * i + 1] ^= load_le64(msg[1] + at + 8 * i);
      lanes[4 * i + 2] ^= load_le64(msg[2] + at + 8 * i);
      lanes[4 * i + 3] ^= load_le64(msg[3] + at + 8 * i);
    }
    permute_x4_interleaved(lanes, s.rounds);
  }
  const std::size_t at = full * rate;
  for (int j = 0; j < 4; ++j) {
    const std::size_t tail = len[j] - at;
    xor_bytes<4>(lanes + j, 0, msg[j] + at, tail);
    pad<4>(lanes + j, tail, s);
  }
  permute_x4_interleaved(lanes, s.rounds);
  for (std::size_t done = 0;;) {
    const std::size_t take = std::min(rate, out_bytes - done);
    for (int j = 0; j < 4; ++j)
      if (out[j] != nullptr) extract_bytes<4>(lanes + j, 0, out[j] + done, take);
    done += take;
    if (done == out_bytes) break;
    permute_x4_interleaved(lanes, s.rounds);
  }
}

}  // namespace detail

namespace {

void oneshot(Algorithm a, std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
             std::uint8_t domain = 0x1F) {
  detail::sponge_oneshot(detail::sponge_spec(a, domain), in.data(), in.size(), out.data(), out.size());
}

}  // namespace

void sha3_224(std::span<const std::uint8_t> in, std::span<std::uint8_t, 28> out) { oneshot(Algorithm::sha3_224, in, out); }
void sha3_256(std::span<const std::uint8_t> in, std::span<std::uint8_t, 32> out) { oneshot(Algorithm::sha3_256, in, out); }
void sha3_384(std::span<const std::uint8_t> in, std::span<std::uint8_t, 48> out) { oneshot(Algorithm::sha3_384, in, out); }
void sha3_512(std::span<const std::uint8_t> in, std::span<std::uint8_t, 64> out) { oneshot(Algorithm::sha3_512, in, out); }
void shake128(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) { oneshot(Algorithm::shake128, in, out); }
void shake256(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) { oneshot(Algorithm::shake256, in, out); }

void turboshake128(std::span<const std::uint8_t> in, std::uint8_t domain, std::span<std::uint8_t> out) {
  oneshot(Algorithm::turboshake128, in, out, domain);
}
void turboshake256(std::span<const std::uint8_t> in, std::uint8_t domain, std::span<std::uint8_t> out) {
  oneshot(Algorithm::turboshake256, in, out, domain);
}

void hash(Algorithm a, std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
  const std::size_t fixed = fixed_digest_bytes(a);
  if (fixed != 0 && out.size() != fixed)
    throw std::invalid_argument("tempo::keccak::hash: " + std::string(algorithm_name(a)) + " produces " +
                                std::to_string(fixed) + " bytes, but out.size() is " +
                                std::to_string(out.size()));
  switch (a) {
    case Algorithm::kt128:
      return kt128(in, {}, out);
    case Algorithm::kt256:
      return kt256(in, {}, out);
    default:
      return oneshot(a, in, out);
  }
}

// ---- incremental sponge ----

Keccak::Keccak(Algorithm a) : Keccak(a, 0x1F) {}

Keccak::Keccak(Algorithm a, std::uint8_t domain) : alg_(a) {
  const bool turbo = a == Algorithm::turboshake128 || a == Algorithm::turboshake256;
  if (!turbo && domain != 0x1F)
    throw std::invalid_argument("tempo::keccak::Keccak: a domain byte only applies to TurboSHAKE, not " +
                                std::string(algorithm_name(a)));
  const detail::SpongeSpec s = detail::sponge_spec(a, domain);  // rejects KT and bad domains
  rate_ = s.rate;
  suffix_ = s.suffix;
  rounds_ = s.rounds;
  reset();
}

void Keccak::reset() noexcept {
  std::fill(std::begin(state_), std::end(state_), std::uint64_t{0});
  pos_ = 0;
  squeezing_ = false;
}

void Keccak::absorb(std::span<const std::uint8_t> in) {
  if (squeezing_)
    throw std::logic_error("tempo::keccak::Keccak::absorb called after squeeze (call reset() first)");
  const std::uint8_t* p = in.data();
  std::size_t n = in.size();
  while (n > 0) {
    const std::size_t take = std::min<std::size_t>(rate_ - pos_, n);
    detail::xor_bytes(state_, pos_, p, take);
    p += take;
    n -= take;
    pos_ += static_cast<std::uint32_t>(take);
    if (pos_ == rate_) {
      detail::permute(state_, rounds_);
      pos_ = 0;
    }
  }
}

void Keccak::pad_and_switch() noexcept {
  detail::pad(state_, pos_, detail::SpongeSpec{rate_, suffix_, rounds_});
  detail::permute(state_, rounds_);
  pos_ = 0;
  squeezing_ = true;
}

void Keccak::squeeze(std::span<std::uint8_t> out) {
  if (!squeezing_) pad_and_switch();
  std::uint8_t* o = out.data();
  std::size_t m = out.size();
  while (m > 0) {
    if (pos_ == rate_) {
      detail::permute(state_, rounds_);
      pos_ = 0;
    }
    const std::size_t take = std::min<std::size_t>(rate_ - pos_, m);
    detail::extract_bytes(state_, pos_, o, take);
    o += take;
    m -= take;
    pos_ += static_cast<std::uint32_t>(take);
  }
}

}  // namespace tempo::keccak
