// Internal sponge helpers shared by the one-shot, incremental, KT and batch code.
// Lanes are numbers; bytes map to lanes little-endian (byte k is bits 8*(k%8).. of lane k/8),
// which is what FIPS 202 specifies, so this is correct on any host byte order.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <tempo/keccak/algorithm.hpp>
#include <tempo/keccak/detail/x4.hpp>

namespace tempo::keccak::detail {

struct SpongeSpec {
  std::uint32_t rate;    // bytes
  std::uint8_t suffix;   // domain bits + first padding bit: 0x06 SHA3, 0x1F SHAKE, D TurboSHAKE
  std::uint8_t rounds;   // 24 or 12
};

// SHA3/SHAKE/TurboSHAKE (TurboSHAKE with the given domain). Not for KT.
SpongeSpec sponge_spec(Algorithm a, std::uint8_t turbo_domain = 0x1F);

inline std::uint64_t load_le64(const std::uint8_t* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline void store_le64(std::uint8_t* p, std::uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  std::memcpy(p, &v, 8);
}

// state ^= bytes p[0..n) placed at byte offset off. stride 1 for one state, 4 for lane j of
// an interleaved 4-way state (pass lanes + j).
template <int stride = 1>
inline void xor_bytes(std::uint64_t* st, std::size_t off, const std::uint8_t* p, std::size_t n) noexcept {
  while (n > 0 && (off & 7) != 0) {
    st[stride * (off >> 3)] ^= std::uint64_t{*p++} << (8 * (off & 7));
    ++off;
    --n;
  }
  for (; n >= 8; n -= 8, p += 8, off += 8) st[stride * (off >> 3)] ^= load_le64(p);
  for (std::size_t k = 0; k < n; ++k) st[stride * (off >> 3)] ^= std::uint64_t{p[k]} << (8 * k);
}

// out[0..n) = state bytes starting at byte offset off.
template <int stride = 1>
inline void extract_bytes(const std::uint64_t* st, std::size_t off, std::uint8_t* out, std::size_t n) noexcept {
  while (n > 0 && (off & 7) != 0) {
    *out++ = static_cast<std::uint8_t>(st[stride * (off >> 3)] >> (8 * (off & 7)));
    ++off;
    --n;
  }
  for (; n >= 8; n -= 8, out += 8, off += 8) store_le64(out, st[stride * (off >> 3)]);
  for (std::size_t k = 0; k < n; ++k) out[k] = static_cast<std::uint8_t>(st[stride * (off >> 3)] >> (8 * k));
}

// Padding for the last (partial) block holding `used` message bytes: suffix byte after the
// message, then the final 1 bit at the end of the rate.
template <int stride = 1>
inline void pad(std::uint64_t* st, std::size_t used, const SpongeSpec& s) noexcept {
  st[stride * (used >> 3)] ^= std::uint64_t{s.suffix} << (8 * (used & 7));
  st[stride * ((s.rate - 1) >> 3)] ^= std::uint64_t{0x80} << (8 * ((s.rate - 1) & 7));
}

// Whole-sponge one-shot: no allocation, one permutation for a message and output that each
// fit in a block.
inline void sponge_oneshot(const SpongeSpec& s, const std::uint8_t* in, std::size_t n, std::uint8_t* out,
                           std::size_t m) noexcept {
  std::uint64_t st[25] = {};
  const std::size_t rate = s.rate;
  for (; n >= rate; n -= rate, in += rate) {
    xor_bytes(st, 0, in, rate);
    permute(st, s.rounds);
  }
  xor_bytes(st, 0, in, n);
  pad(st, n, s);
  permute(st, s.rounds);
  for (; m > rate; m -= rate, out += rate) {
    extract_bytes(st, 0, out, rate);
    permute(st, s.rounds);
  }
  extract_bytes(st, 0, out, m);
}

// Four messages through four sponges at once with the 4-way permutation. Every len[j] / rate
// must be equal (same number of permutations while absorbing); the partial last blocks may
// differ. out[j] == nullptr skips lane j's output (used to fill an incomplete group).
void sponge_x4(const SpongeSpec& s, const std::uint8_t* const msg[4], const std::size_t len[4],
               std::uint8_t* const out[4], std::size_t out_bytes);

}  // namespace tempo::keccak::detail
