// Keccak sponges on tempo::keccak's Keccak-f[1600] for the schemes' hashes and XOFs: SHAKE128/256
// and SHA3-256/384/512 (rate and padding suffix as parameters), each hash call ending in a
// one-byte domain separator before the padding, as both FAEST (H0..H4) and PERK (H1..H3,
// PRG1/2, Com1/2) define them. Sponge4 runs four sponges on the 4-way permutation (AVX2 or
// AVX-512 when the CPU has it): four leaves, four commitments, four grinding counters at once.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tempo/keccak/permutation.hpp>
#include <tempo/secure_zero.hpp>

namespace tempo::voleith {

inline constexpr std::uint8_t suffix_shake = 0x1F, suffix_sha3 = 0x06;
// Rates in bytes.
inline constexpr unsigned rate_shake128 = 168, rate_shake256 = 136;
inline constexpr unsigned rate_sha3(unsigned digest_bytes) { return 200 - 2 * digest_bytes; }

// Lanes are moved with memcpy: FIPS 202's byte order on little-endian hosts only.
static_assert(std::endian::native == std::endian::little, "tempo::voleith's sponges assume a little-endian host");

namespace detail {
// Bytes [pos, pos + n) of a state (lanes little-endian, FIPS 202 byte order) ^= in / -> out;
// whole lanes where aligned.
inline void state_xor(std::uint64_t* st, std::size_t pos, const std::uint8_t* in, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && (pos + i) % 8 != 0; ++i) st[(pos + i) / 8] ^= std::uint64_t{in[i]} << (8 * ((pos + i) % 8));
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, in + i, 8);
    st[(pos + i) / 8] ^= w;
  }
  for (; i < n; ++i) st[(pos + i) / 8] ^= std::uint64_t{in[i]} << (8 * ((pos + i) % 8));
}
inline void state_read(const std::uint64_t* st, std::size_t pos, std::uint8_t* out, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && (pos + i) % 8 != 0; ++i) out[i] = static_cast<std::uint8_t>(st[(pos + i) / 8] >> (8 * ((pos + i) % 8)));
  for (; i + 8 <= n; i += 8) std::memcpy(out + i, &st[(pos + i) / 8], 8);
  for (; i < n; ++i) out[i] = static_cast<std::uint8_t>(st[(pos + i) / 8] >> (8 * ((pos + i) % 8)));
}
inline void lane_xor(std::uint64_t* st, std::size_t i, std::uint8_t b) { st[i / 8] ^= std::uint64_t{b} << (8 * (i % 8)); }
}  // namespace detail

class Sponge4;

// One sponge: absorb, finalize(domain) (the domain byte, then the padding), squeeze. The
// state is wiped on destruction (it may hold secrets: seeds, keys).
class Sponge {
 public:
  Sponge(unsigned rate, std::uint8_t suffix) : rate_(rate), suffix_(suffix) {}
  static Sponge shake128() { return Sponge(rate_shake128, suffix_shake); }
  static Sponge shake256() { return Sponge(rate_shake256, suffix_shake); }
  static Sponge sha3(unsigned digest_bytes) { return Sponge(rate_sha3(digest_bytes), suffix_sha3); }

  void absorb(const std::uint8_t* in, std::size_t n) {
    while (n > 0) {
      const std::size_t take = n < rate_ - pos_ ? n : rate_ - pos_;
      detail::state_xor(s_, pos_, in, take);
      pos_ += static_cast<unsigned>(take);
      in += take;
      n -= take;
      if (pos_ == rate_) {
        tempo::keccak::keccak_f1600(s_);
        pos_ = 0;
      }
    }
  }
  void absorb_byte(std::uint8_t b) { absorb(&b, 1); }
  // Appends the domain byte, pads, switches to squeezing.
  void finalize(std::uint8_t domain) {
    absorb_byte(domain);
    finalize();
  }
  // Pads without a domain byte (plain SHAKE / SHA3), switches to squeezing.
  void finalize() {
    detail::lane_xor(s_, pos_, suffix_);
    detail::lane_xor(s_, rate_ - 1, 0x80);
    tempo::keccak::keccak_f1600(s_);
    pos_ = 0;
  }
  void squeeze(std::uint8_t* out, std::size_t n) {
    while (n > 0) {
      if (pos_ == rate_) {
        tempo::keccak::keccak_f1600(s_);
        pos_ = 0;
      }
      const std::size_t take = n < rate_ - pos_ ? n : rate_ - pos_;
      detail::state_read(s_, pos_, out, take);
      pos_ += static_cast<unsigned>(take);
      out += take;
      n -= take;
    }
  }
  void wipe() noexcept { secure_zero(s_, sizeof s_); }
  ~Sponge() { wipe(); }
  Sponge(const Sponge&) = default;
  Sponge& operator=(const Sponge&) = default;

 private:
  friend class Sponge4;
  std::uint64_t s_[25] = {};
  unsigned rate_, pos_ = 0;
  std::uint8_t suffix_;
};

// Four sponges fed the same number of bytes at the same times.
class Sponge4 {
 public:
  Sponge4(unsigned rate, std::uint8_t suffix) : rate_(rate), suffix_(suffix) {}
  // Four copies of one absorbing sponge (grinding: one prefix, four counters).
  explicit Sponge4(const Sponge& from) : rate_(from.rate_), pos_(from.pos_), suffix_(from.suffix_) {
    for (auto& st : s_) std::memcpy(st, from.s_, sizeof st);
  }

  // The same bytes into all four.
  void absorb_common(const std::uint8_t* in, std::size_t n) {
    const std::uint8_t* ins[4] = {in, in, in, in};
    absorb(ins, n);
  }
  void absorb(const std::uint8_t* const in[4], std::size_t n) {
    std::size_t off = 0;
    while (off < n) {
      const std::size_t take = n - off < rate_ - pos_ ? n - off : rate_ - pos_;
      for (int k = 0; k < 4; ++k) detail::state_xor(s_[k], pos_, in[k] + off, take);
      pos_ += static_cast<unsigned>(take);
      off += take;
      if (pos_ == rate_) permute();
    }
  }
  void finalize(std::uint8_t domain) {
    const std::uint8_t d[1] = {domain};
    absorb_common(d, 1);
    for (auto& st : s_) {
      detail::lane_xor(st, pos_, suffix_);
      detail::lane_xor(st, rate_ - 1, 0x80);
    }
    permute();
  }
  void squeeze(std::uint8_t* const out[4], std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      if (pos_ == rate_) permute();
      const std::size_t take = n - done < rate_ - pos_ ? n - done : rate_ - pos_;
      for (int k = 0; k < 4; ++k) detail::state_read(s_[k], pos_, out[k] + done, take);
      pos_ += static_cast<unsigned>(take);
      done += take;
    }
  }
  ~Sponge4() { secure_zero(s_, sizeof s_); }
  Sponge4(const Sponge4&) = default;
  Sponge4& operator=(const Sponge4&) = default;

 private:
  void permute() {
    std::uint64_t* p[4] = {s_[0], s_[1], s_[2], s_[3]};
    tempo::keccak::keccak_f1600_x4(p);
    pos_ = 0;
  }
  std::uint64_t s_[4][25] = {};
  unsigned rate_, pos_ = 0;
  std::uint8_t suffix_;
};

}  // namespace tempo::voleith
