// Rijndael-256 (256-bit blocks and keys, 14 rounds: PERK's PRG at levels 3 and 5) on bit
// planes for the GPU kernels, in the style of aes_planes.hpp: one block (32 bytes) per thread,
// bit j of plane b is bit b of byte j (to_planes). SubBytes and MixColumns are aes_planes.hpp's
// (they act on every byte and on every 4-bit group as a column: mix_columns<0>); ShiftRows
// (row offsets 0, 1, 3, 4 over 8 columns) and the key schedule (Nk = 8) are Rijndael-256's.
// Constant time: no table, nothing indexed by data. Compiled for the device and the host
// (the families' emulation tests).
#pragma once

#include <tempo/voleith/detail/aes_planes.hpp>

namespace tempo::voleith::dev {

// Byte 4c + r takes byte 4((c + off_r) mod 8) + r: row r's bits rotate right by 4 off_r.
TEMPO_VOLEITH_HD u32 shift_rows256_plane(u32 x) {
  return (x & 0x11111111u) | rotr32(x & 0x22222222u, 4) | rotr32(x & 0x44444444u, 12) | rotr32(x & 0x88888888u, 16);
}

// Round keys 0..14 of one 256-bit key (each one block: eight words).
struct RoundKeys256 {
  Planes rk[15];
};

// `key`: 32 bytes.
TEMPO_VOLEITH_HD void expand_key256(const u8* key, RoundKeys256& out) {
  const u64 w[4] = {load_le64(key), load_le64(key + 8), load_le64(key + 16), load_le64(key + 24)};
  Planes k = to_planes(w);
  out.rk[0] = k;
  constexpr u8 rcon[14] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36, 0x6c, 0xd8, 0xab, 0x4d};
  TEMPO_VOLEITH_UNROLL
  for (int r = 1; r <= 14; ++r) {
    // Words 0..3: w_0 ^= SubWord(RotWord(w_7)) ^ rcon, then the prefix over words 0..3.
    Planes s = k;
    sub_bytes(s);
    Planes lo;
    TEMPO_VOLEITH_UNROLL
    for (int b = 0; b < 8; ++b) {
      const u32 x = s.p[b];
      u32 t = ((x >> 29) & 0x7u) | ((x >> 25) & 0x8u);  // bytes 29, 30, 31, 28 -> 0..3
      if ((rcon[r - 1] >> b) & 1) t ^= 1u;  // public constant
      u32 p = k.p[b] & 0xFFFFu;
      p ^= (p << 4) & 0xFFF0u;
      p ^= (p << 8) & 0xFF00u;
      lo.p[b] = p ^ (t * 0x1111u);
    }
    // Words 4..7: w_4 ^= SubWord(new w_3), then the prefix over words 4..7.
    s = lo;
    sub_bytes(s);
    TEMPO_VOLEITH_UNROLL
    for (int b = 0; b < 8; ++b) {
      const u32 t = (s.p[b] >> 12) & 0xFu;
      u32 q = k.p[b] >> 16;
      q ^= (q << 4) & 0xFFF0u;
      q ^= (q << 8) & 0xFF00u;
      k.p[b] = lo.p[b] | (q ^ (t * 0x1111u)) << 16;
    }
    out.rk[r] = k;
  }
}

TEMPO_VOLEITH_HD void encrypt256(Planes& s, const RoundKeys256& k) {
  add_round_key(s, k.rk[0]);
  TEMPO_VOLEITH_UNROLL
  for (int r = 1; r <= 14; ++r) {
    sub_bytes(s);
    TEMPO_VOLEITH_UNROLL
    for (int b = 0; b < 8; ++b) s.p[b] = shift_rows256_plane(s.p[b]);
    if (r != 14) mix_columns<0>(s);
    add_round_key(s, k.rk[r]);
  }
}

}  // namespace tempo::voleith::dev
