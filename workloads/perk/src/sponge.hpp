// Keccak sponges on tempo::keccak's Keccak-f[1600]: PERK's PRG (SHAKE128 at level 1, SHAKE256
// at levels 3 and 5) and hash (SHA3-256/384/512), one instance or four at once (the 4-way
// permutation, AVX2 or AVX-512 when the CPU has it). symmetric.c, symmetric_times4.c.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tempo/keccak/permutation.hpp>
#include <tempo/secure_zero.hpp>

#include "params.hpp"

namespace tempo::perk::detail {

inline constexpr std::uint8_t suffix_shake = 0x1F, suffix_sha3 = 0x06;

// Bytes [pos, pos + n) of a state (lanes little-endian, FIPS 202 byte order) ^= in / -> out;
// whole lanes at a time where aligned.
inline void xor_bytes(std::uint64_t* st, std::size_t pos, const std::uint8_t* in, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && (pos + i) % 8 != 0; ++i) st[(pos + i) / 8] ^= std::uint64_t{in[i]} << (8 * ((pos + i) % 8));
  for (; i + 8 <= n; i += 8) st[(pos + i) / 8] ^= get_le64(in + i);
  for (; i < n; ++i) st[(pos + i) / 8] ^= std::uint64_t{in[i]} << (8 * ((pos + i) % 8));
}
inline void read_bytes(const std::uint64_t* st, std::size_t pos, std::uint8_t* out, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && (pos + i) % 8 != 0; ++i) out[i] = static_cast<std::uint8_t>(st[(pos + i) / 8] >> (8 * ((pos + i) % 8)));
  for (; i + 8 <= n; i += 8) put_le64(out + i, st[(pos + i) / 8]);
  for (; i < n; ++i) out[i] = static_cast<std::uint8_t>(st[(pos + i) / 8] >> (8 * ((pos + i) % 8)));
}

class Sponge {
 public:
  Sponge(unsigned rate, std::uint8_t suffix) : rate_(rate), suffix_(suffix) {}
  // The PRG (SHAKE) and hash (SHA3) of a parameter set.
  static Sponge prg(const ParamSet& p) { return Sponge(p.shake_rate(), suffix_shake); }
  static Sponge hash(const ParamSet& p) { return Sponge(p.sha3_rate(), suffix_sha3); }

  void absorb(const std::uint8_t* in, std::size_t n) {
    while (n > 0) {
      const std::size_t take = n < rate_ - pos_ ? n : rate_ - pos_;
      xor_bytes(s_, pos_, in, take);
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
    lane_xor(pos_, suffix_);
    lane_xor(rate_ - 1, 0x80);
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
      read_bytes(s_, pos_, out, take);
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
  void lane_xor(std::size_t i, std::uint8_t b) { s_[i / 8] ^= std::uint64_t{b} << (8 * (i % 8)); }
  std::uint64_t s_[25] = {};
  unsigned rate_, pos_ = 0;
  std::uint8_t suffix_;
};

// Four sponges fed the same number of bytes at the same times (tempo::keccak's 4-way
// permutation): four leaf commitments, seed expansions or PRG outputs at once.
class Sponge4 {
 public:
  Sponge4(unsigned rate, std::uint8_t suffix) : rate_(rate), suffix_(suffix) {}
  static Sponge4 prg(const ParamSet& p) { return Sponge4(p.shake_rate(), suffix_shake); }
  static Sponge4 hash(const ParamSet& p) { return Sponge4(p.sha3_rate(), suffix_sha3); }

  // The same bytes into all four.
  void absorb_common(const std::uint8_t* in, std::size_t n) {
    const std::uint8_t* ins[4] = {in, in, in, in};
    absorb(ins, n);
  }
  void absorb(const std::uint8_t* const in[4], std::size_t n) {
    std::size_t off = 0;
    while (off < n) {
      const std::size_t take = n - off < rate_ - pos_ ? n - off : rate_ - pos_;
      for (int k = 0; k < 4; ++k) xor_bytes(s_[k], pos_, in[k] + off, take);
      pos_ += static_cast<unsigned>(take);
      off += take;
      if (pos_ == rate_) permute();
    }
  }
  void finalize(std::uint8_t domain) {
    const std::uint8_t d[1] = {domain};
    absorb_common(d, 1);
    for (auto& st : s_) {
      lane_xor(st, pos_, suffix_);
      lane_xor(st, rate_ - 1, 0x80);
    }
    permute();
  }
  void squeeze(std::uint8_t* const out[4], std::size_t n) {
    std::size_t done = 0;
    while (done < n) {
      if (pos_ == rate_) permute();
      const std::size_t take = n - done < rate_ - pos_ ? n - done : rate_ - pos_;
      for (int k = 0; k < 4; ++k) read_bytes(s_[k], pos_, out[k] + done, take);
      pos_ += static_cast<unsigned>(take);
      done += take;
    }
  }
  ~Sponge4() { secure_zero(s_, sizeof s_); }

 private:
  static void lane_xor(std::uint64_t* st, std::size_t i, std::uint8_t b) { st[i / 8] ^= std::uint64_t{b} << (8 * (i % 8)); }
  void permute() {
    std::uint64_t* p[4] = {s_[0], s_[1], s_[2], s_[3]};
    tempo::keccak::keccak_f1600_x4(p);
    pos_ = 0;
  }
  std::uint64_t s_[4][25] = {};
  unsigned rate_, pos_ = 0;
  std::uint8_t suffix_;
};

}  // namespace tempo::perk::detail
