// SHAKE128 on tempo::keccak's Keccak-f[1600], and FAEST's random oracles H0..H4 on top of it
// (faest-ref random_oracle.c: each H_i appends a one-byte domain separator before padding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tempo/keccak/permutation.hpp>

#include "common.hpp"

namespace tempo::faest::detail {

class Shake128 {
 public:
  static constexpr unsigned rate = 168;

  void absorb(const std::uint8_t* in, std::size_t n) {
    while (n > 0) {
      const std::size_t take = n < rate - pos_ ? n : rate - pos_;
      xor_in(in, take);
      in += take;
      n -= take;
      if (pos_ == rate) {
        tempo::keccak::keccak_f1600(s_);
        pos_ = 0;
      }
    }
  }
  void absorb_byte(std::uint8_t b) { absorb(&b, 1); }
  // SHAKE padding (suffix 1111, pad10*1); switches to squeezing.
  void finalize() {
    lane_xor(pos_, 0x1F);
    lane_xor(rate - 1, 0x80);
    tempo::keccak::keccak_f1600(s_);
    pos_ = 0;
  }
  void squeeze(std::uint8_t* out, std::size_t n) {
    while (n > 0) {
      if (pos_ == rate) {
        tempo::keccak::keccak_f1600(s_);
        pos_ = 0;
      }
      const std::size_t take = n < rate - pos_ ? n : rate - pos_;
      for (std::size_t i = 0; i < take; ++i) out[i] = std::uint8_t(s_[(pos_ + i) / 8] >> (8 * ((pos_ + i) % 8)));
      out += take;
      n -= take;
      pos_ += unsigned(take);
    }
  }
  void wipe() noexcept { secure_zero(this, sizeof *this); }

  // For the 4-way paths: the raw state and absorb position.
  const std::uint64_t* state() const { return s_; }
  unsigned position() const { return pos_; }

 private:
  void lane_xor(std::size_t i, std::uint8_t b) { s_[i / 8] ^= std::uint64_t(b) << (8 * (i % 8)); }
  void xor_in(const std::uint8_t* in, std::size_t n) {
    std::size_t i = 0;
    for (; i < n && (pos_ + i) % 8 != 0; ++i) lane_xor(pos_ + i, in[i]);
    for (; i + 8 <= n; i += 8) {  // whole lanes
      std::uint64_t w;
      std::memcpy(&w, in + i, 8);
      s_[(pos_ + i) / 8] ^= w;
    }
    for (; i < n; ++i) lane_xor(pos_ + i, in[i]);
    pos_ += unsigned(n);
  }
  std::uint64_t s_[25] = {};
  unsigned pos_ = 0;
};

// Four SHAKE128 sponges fed the same number of bytes at the same times (4-way permutation,
// AVX2 when available): the leaf-commitment hashes of four instances, or four grinding tries.
class Shake128x4 {
 public:
  static constexpr unsigned rate = Shake128::rate;
  Shake128x4() = default;
  explicit Shake128x4(const Shake128& from) {  // four copies of one absorbing state
    for (auto& st : s_) std::memcpy(st, from.state(), sizeof st);
    pos_ = from.position();
  }
  void absorb(const std::uint8_t* const in[4], std::size_t n) {
    std::size_t off = 0;
    while (off < n) {
      const std::size_t take = n - off < rate - pos_ ? n - off : rate - pos_;
      for (int k = 0; k < 4; ++k) xor_in(s_[k], in[k] + off, take);
      pos_ += unsigned(take);
      off += take;
      if (pos_ == rate) permute();
    }
  }
  // SHAKE padding after the domain byte; out[k] gets n bytes (n <= rate).
  void final_squeeze(std::uint8_t domain, std::uint8_t* const out[4], std::size_t n) {
    for (auto& st : s_) {
      lane_xor(st, pos_, domain);
      if (pos_ + 1 < rate) lane_xor(st, pos_ + 1, 0x1F);
    }
    if (pos_ + 1 == rate) {  // the domain byte filled the block
      permute();
      for (auto& st : s_) lane_xor(st, 0, 0x1F);
    }
    for (auto& st : s_) lane_xor(st, rate - 1, 0x80);
    permute();
    for (int k = 0; k < 4; ++k)
      for (std::size_t i = 0; i < n; ++i) out[k][i] = std::uint8_t(s_[k][i / 8] >> (8 * (i % 8)));
  }

 private:
  static void lane_xor(std::uint64_t* st, std::size_t i, std::uint8_t b) { st[i / 8] ^= std::uint64_t(b) << (8 * (i % 8)); }
  void xor_in(std::uint64_t* st, const std::uint8_t* in, std::size_t n) const {
    std::size_t i = 0;
    for (; i < n && (pos_ + i) % 8 != 0; ++i) lane_xor(st, pos_ + i, in[i]);
    for (; i + 8 <= n; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, in + i, 8);
      st[(pos_ + i) / 8] ^= w;
    }
    for (; i < n; ++i) lane_xor(st, pos_ + i, in[i]);
  }
  void permute() {
    std::uint64_t* p[4] = {s_[0], s_[1], s_[2], s_[3]};
    tempo::keccak::keccak_f1600_x4(p);
    pos_ = 0;
  }
  std::uint64_t s_[4][25] = {};
  unsigned pos_ = 0;
};

// H_i: absorb the inputs, then final(domain) appends the separator and pads.
struct RandomOracle : Shake128 {
  void final(std::uint8_t domain) {
    absorb_byte(domain);
    finalize();
  }
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
