// Keccak sponges on tempo::keccak's Keccak-f[1600] for the schemes' hashes and XOFs: SHAKE128/256
// and SHA3-256/384/512 (rate and padding suffix as parameters), each hash call ending in a
// one-byte domain separator before the padding, as both FAEST (H0..H4) and PERK (H1..H3,
// PRG1/2, Com1/2) define them. Sponge4 runs four sponges on the 4-way permutation (AVX2 or
// AVX-512 when the CPU has it): four leaves, four commitments, four grinding counters at once.
// Sponge8 runs eight on the 8-way permutation (one AVX-512 pass, else two 4-way ones), its
// states kept interleaved so that no permutation call transposes them.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tempo/keccak/detail/x4.hpp>
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
class Sponge8;

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
  friend class Sponge8;
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

// Eight sponges fed the same number of bytes at the same times; lane i of sponge k is
// s_[8 * i + k].
class Sponge8 {
 public:
  Sponge8(unsigned rate, std::uint8_t suffix) : rate_(rate), suffix_(suffix) {}
  // Eight copies of one absorbing sponge (grinding: one prefix, eight counters).
  explicit Sponge8(const Sponge& from) : rate_(from.rate_), pos_(from.pos_), suffix_(from.suffix_) {
    for (unsigned i = 0; i < 25; ++i)
      for (unsigned k = 0; k < 8; ++k) s_[8 * i + k] = from.s_[i];
  }

  void absorb(const std::uint8_t* const in[8], std::size_t n) {
    std::size_t off = 0;
    while (off < n) {
      const std::size_t take = n - off < rate_ - pos_ ? n - off : rate_ - pos_;
      std::size_t b = 0;
      for (; b < take && (pos_ + b) % 8 != 0; ++b)
        for (unsigned k = 0; k < 8; ++k) xor_byte(k, pos_ + b, in[k][off + b]);
      for (; b + 8 <= take; b += 8) {
        std::uint64_t* lane = s_ + 8 * ((pos_ + b) / 8);
        for (unsigned k = 0; k < 8; ++k) {
          std::uint64_t w;
          std::memcpy(&w, in[k] + off + b, 8);
          lane[k] ^= w;
        }
      }
      for (; b < take; ++b)
        for (unsigned k = 0; k < 8; ++k) xor_byte(k, pos_ + b, in[k][off + b]);
      pos_ += static_cast<unsigned>(take);
      off += take;
      if (pos_ == rate_) permute();
    }
  }
  void finalize(std::uint8_t domain) {
    for (unsigned k = 0; k < 8; ++k) xor_byte(k, pos_, domain);
    if (++pos_ == rate_) permute();
    for (unsigned k = 0; k < 8; ++k) {
      xor_byte(k, pos_, suffix_);
      xor_byte(k, rate_ - 1, 0x80);
    }
    permute();
  }
  void squeeze(std::uint8_t* const out[8], std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      if (pos_ == rate_) permute();
      const std::size_t take = n - done < rate_ - pos_ ? n - done : rate_ - pos_;
      for (std::size_t b = 0; b < take; ++b)
        for (unsigned k = 0; k < 8; ++k)
          out[k][done + b] = static_cast<std::uint8_t>(s_[8 * ((pos_ + b) / 8) + k] >> (8 * ((pos_ + b) % 8)));
      pos_ += static_cast<unsigned>(take);
      done += take;
    }
  }
  ~Sponge8() { secure_zero(s_, sizeof s_); }
  Sponge8(const Sponge8&) = default;
  Sponge8& operator=(const Sponge8&) = default;

 private:
  void xor_byte(unsigned k, std::size_t i, std::uint8_t b) { s_[8 * (i / 8) + k] ^= std::uint64_t{b} << (8 * (i % 8)); }
  void permute() {
    tempo::keccak::detail::permute_x8_interleaved(s_, 24);
    pos_ = 0;
  }
  alignas(64) std::uint64_t s_[8 * 25] = {};
  unsigned rate_, pos_ = 0;
  std::uint8_t suffix_;
};

}  // namespace tempo::voleith
