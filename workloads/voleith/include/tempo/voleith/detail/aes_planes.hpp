// AES-128 on bit planes for the GPU kernels of FAEST and PERK: two blocks (32 bytes) per
// thread in eight 32-bit planes (plane b holds bit b of every byte), so every step is
// AND/XOR/shift/rotate on 32-bit words. Two layouts: the byte order (bit j of plane b is bit
// b of byte j: to_planes, Rijndael-256's) and AES-128's column layout below. The S-box is
// the Boyar-Peralta depth-16 circuit (113 gates): no table, nothing indexed by data, so the
// PRG on secret seeds is constant time on the device too.
//
// Compiled by nvcc for the kernels AND by the host compiler for the CPU tests (the
// families' test_cuda_emulated.cpp): the code the kernels run is checked against the CPU
// code on machines without a GPU. TEMPO_VOLEITH_HD marks a function for both.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define TEMPO_VOLEITH_HD __host__ __device__ __forceinline__
#define TEMPO_VOLEITH_UNROLL _Pragma("unroll")
#else
#define TEMPO_VOLEITH_HD inline
#define TEMPO_VOLEITH_UNROLL
#endif

namespace tempo::voleith::dev {

using u8 = std::uint8_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

// 8x8 bit-matrix transpose: bit (8*j + b) moves to (8*b + j).
TEMPO_VOLEITH_HD u64 transpose8(u64 x) {
  u64 t;
  t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x = x ^ t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x = x ^ t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  x = x ^ t ^ (t << 28);
  return x;
}

// Little-endian loads and stores byte by byte: valid at any alignment, host or device.
TEMPO_VOLEITH_HD u64 load_le64(const u8* p) {
  u64 v = 0;
  TEMPO_VOLEITH_UNROLL
  for (int i = 0; i < 8; ++i) v |= u64(p[i]) << (8 * i);
  return v;
}
TEMPO_VOLEITH_HD u32 load_le32(const u8* p) {
  return u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24;
}
TEMPO_VOLEITH_HD void store_le64(u8* p, u64 v) {
  TEMPO_VOLEITH_UNROLL
  for (int i = 0; i < 8; ++i) p[i] = u8(v >> (8 * i));
}
// The same as one 8-byte access where p is 8-aligned (a test on the address, not on data):
// a kernel's byte stores to scattered rows cost eight memory instructions each.
TEMPO_VOLEITH_HD void store_le64_fast(u8* p, u64 v) {
#if defined(__CUDA_ARCH__)
  if ((reinterpret_cast<std::uintptr_t>(p) & 7) == 0) {
    *reinterpret_cast<u64*>(p) = v;  // the device is little-endian
    return;
  }
#endif
  store_le64(p, v);
}
TEMPO_VOLEITH_HD u64 load_le64_fast(const u8* p) {
#if defined(__CUDA_ARCH__)
  if ((reinterpret_cast<std::uintptr_t>(p) & 7) == 0) return *reinterpret_cast<const u64*>(p);
#endif
  return load_le64(p);
}

struct Planes {
  u32 p[8];
};

// 32 bytes given as four little-endian words -> planes.
TEMPO_VOLEITH_HD Planes to_planes(const u64 (&w)[4]) {
  Planes r{};
  TEMPO_VOLEITH_UNROLL
  for (int g = 0; g < 4; ++g) {
    const u64 x = transpose8(w[g]);
    TEMPO_VOLEITH_UNROLL
    for (int b = 0; b < 8; ++b) r.p[b] |= u32((x >> (8 * b)) & 0xff) << (8 * g);
  }
  return r;
}
TEMPO_VOLEITH_HD void from_planes(const Planes& s, u64 (&w)[4]) {
  TEMPO_VOLEITH_UNROLL
  for (int g = 0; g < 4; ++g) {
    u64 x = 0;
    TEMPO_VOLEITH_UNROLL
    for (int b = 0; b < 8; ++b) x |= u64((s.p[b] >> (8 * g)) & 0xff) << (8 * b);
    w[g] = transpose8(x);
  }
}

// The AES S-box on all 32 bytes: Boyar-Peralta, U0 = most significant bit = plane 7.
TEMPO_VOLEITH_HD void sub_bytes(Planes& s) {
  const u32 U0 = s.p[7], U1 = s.p[6], U2 = s.p[5], U3 = s.p[4], U4 = s.p[3], U5 = s.p[2], U6 = s.p[1], U7 = s.p[0];
  const u32 T1 = U0 ^ U3, T2 = U0 ^ U5, T3 = U0 ^ U6, T4 = U3 ^ U5, T5 = U4 ^ U6, T6 = T1 ^ T5, T7 = U1 ^ U2;
  const u32 T8 = U7 ^ T6, T9 = U7 ^ T7, T10 = T6 ^ T7, T11 = U1 ^ U5, T12 = U2 ^ U5, T13 = T3 ^ T4;
  const u32 T14 = T6 ^ T11, T15 = T5 ^ T11, T16 = T5 ^ T12, T17 = T9 ^ T16, T18 = U3 ^ U7, T19 = T7 ^ T18;
  const u32 T20 = T1 ^ T19, T21 = U6 ^ U7, T22 = T7 ^ T21, T23 = T2 ^ T22, T24 = T2 ^ T10, T25 = T20 ^ T17;
  const u32 T26 = T3 ^ T16, T27 = T1 ^ T12;
  const u32 M1 = T13 & T6, M2 = T23 & T8, M3 = T14 ^ M1, M4 = T19 & U7, M5 = M4 ^ M1, M6 = T3 & T16;
  const u32 M7 = T22 & T9, M8 = T26 ^ M6, M9 = T20 & T17, M10 = M9 ^ M6, M11 = T1 & T15, M12 = T4 & T27;
  const u32 M13 = M12 ^ M11, M14 = T2 & T10, M15 = M14 ^ M11, M16 = M3 ^ M2, M17 = M5 ^ T24, M18 = M8 ^ M7;
  const u32 M19 = M10 ^ M15, M20 = M16 ^ M13, M21 = M17 ^ M15, M22 = M18 ^ M13, M23 = M19 ^ T25;
  const u32 M24 = M22 ^ M23, M25 = M22 & M20, M26 = M21 ^ M25, M27 = M20 ^ M21, M28 = M23 ^ M25;
  const u32 M29 = M28 & M27, M30 = M26 & M24, M31 = M20 & M23, M32 = M27 & M31, M33 = M27 ^ M25;
  const u32 M34 = M21 & M22, M35 = M24 & M34, M36 = M24 ^ M25, M37 = M21 ^ M29, M38 = M32 ^ M33;
  const u32 M39 = M23 ^ M30, M40 = M35 ^ M36, M41 = M38 ^ M40, M42 = M37 ^ M39, M43 = M37 ^ M38;
  const u32 M44 = M39 ^ M40, M45 = M42 ^ M41, M46 = M44 & T6, M47 = M40 & T8, M48 = M39 & U7;
  const u32 M49 = M43 & T16, M50 = M38 & T9, M51 = M37 & T17, M52 = M42 & T15, M53 = M45 & T27;
  const u32 M54 = M41 & T10, M55 = M44 & T13, M56 = M40 & T23, M57 = M39 & T19, M58 = M43 & T3;
  const u32 M59 = M38 & T22, M60 = M37 & T20, M61 = M42 & T1, M62 = M45 & T4, M63 = M41 & T2;
  const u32 L0 = M61 ^ M62, L1 = M50 ^ M56, L2 = M46 ^ M48, L3 = M47 ^ M55, L4 = M54 ^ M58, L5 = M49 ^ M61;
  const u32 L6 = M62 ^ L5, L7 = M46 ^ L3, L8 = M51 ^ M59, L9 = M52 ^ M53, L10 = M53 ^ L4, L11 = M60 ^ L2;
  const u32 L12 = M48 ^ M51, L13 = M50 ^ L0, L14 = M52 ^ M61, L15 = M55 ^ L1, L16 = M56 ^ L0;
  const u32 L17 = M57 ^ L1, L18 = M58 ^ L8, L19 = M63 ^ L4, L20 = L0 ^ L1, L21 = L1 ^ L7, L22 = L3 ^ L12;
  const u32 L23 = L18 ^ L2, L24 = L15 ^ L9, L25 = L6 ^ L10, L26 = L7 ^ L9, L27 = L8 ^ L10, L28 = L11 ^ L14;
  const u32 L29 = L11 ^ L17;
  s.p[7] = L6 ^ L24;
  s.p[6] = ~(L16 ^ L26);
  s.p[5] = ~(L19 ^ L28);
  s.p[4] = L6 ^ L21;
  s.p[3] = L20 ^ L22;
  s.p[2] = L25 ^ L29;
  s.p[1] = ~(L13 ^ L27);
  s.p[0] = ~(L6 ^ L23);
}

// Rotations of a 32-bit plane (one SHF on the device).
TEMPO_VOLEITH_HD u32 rotr32(u32 x, u32 n) { return (x >> (n & 31)) | (x << ((32 - n) & 31)); }
TEMPO_VOLEITH_HD u32 rotl32(u32 x, u32 n) { return rotr32(x, 32 - (n & 31)); }

// ---- AES-128 on two blocks: the column layout with ShiftRows folded away (the idea of
// fixslicing: Adomnicai and Peyrin, "Fixslicing AES-like Ciphers", TCHES 2021/1)
// Layout: bit 8c + 4k + r of plane b is bit b of byte 4c + r (row r, column c) of block k:
// byte c of a plane is column c of both blocks (low nibble block 0, high nibble block 1).
// A row's bits are then a mask (0x11111111 << r) and moving a row by whole columns is a
// 32-bit rotation by multiples of 8.
//
// Frames. The rounds never run ShiftRows: after round i's the state is held in frame
// f = i mod 4, where the real state S and the held one X satisfy S[r][c] = X[r][c + f r]
// (columns mod 4). SubBytes acts bytewise (any frame); MixColumns in frame f reads row
// r + 1 of column c + f where frame 0 reads row r + 1 of column c, which is the same
// two-rotation, one-select nibble rotation with the rotation amounts moved by 8f
// (mix_columns<f>); the round keys are stored in their round's frame (expand_key). Only
// the output leaves frame 2 (after ten rounds) by one row rotation. The linear layer costs
// MixColumns alone: an encryption of two blocks takes 1,834 sm_90 instructions where
// ShiftRows on the byte-order planes took 2,828; a key schedule takes 2,289 (1,910 before:
// its round keys change frame).

// a where m has a 1, b elsewhere (one LOP3 on the device).
TEMPO_VOLEITH_HD u32 select_bits(u32 a, u32 b, u32 m) { return ((a ^ b) & m) ^ b; }

TEMPO_VOLEITH_HD u32 row_rotl(u32 x, u32 f) {  // row r's columns move up by f r: X = S in frame f
  if (f % 4 == 0) return x;
  if (f % 4 == 2) return select_bits(rotl32(x, 16), x, 0xAAAAAAAAu);  // rows 1 and 3 by two columns
  const u32 y = select_bits(rotl32(x, 8 * f), x, 0x22222222u);
  return select_bits(rotl32(x, 24 * f), select_bits(rotl32(x, 16 * f), y, 0x44444444u), 0x88888888u);
}

// Two blocks given as four little-endian words (block 0: w[0], w[1]; block 1: w[2], w[3])
// -> the column layout. Each 8x8 transpose takes one column of both blocks.
TEMPO_VOLEITH_HD Planes to_aes_planes(const u64 (&w)[4]) {
  const u64 c[4] = {(w[0] & 0xFFFFFFFFull) | w[2] << 32, (w[0] >> 32) | (w[2] & ~0xFFFFFFFFull),
                    (w[1] & 0xFFFFFFFFull) | w[3] << 32, (w[1] >> 32) | (w[3] & ~0xFFFFFFFFull)};
  return to_planes(c);
}
TEMPO_VOLEITH_HD void from_aes_planes(const Planes& s, u64 (&w)[4]) {
  u64 c[4];
  from_planes(s, c);
  w[0] = (c[0] & 0xFFFFFFFFull) | c[1] << 32;
  w[1] = (c[2] & 0xFFFFFFFFull) | c[3] << 32;
  w[2] = (c[0] >> 32) | (c[1] & ~0xFFFFFFFFull);
  w[3] = (c[2] >> 32) | (c[3] & ~0xFFFFFFFFull);
}

// MixColumns of a state held in frame F (F = 0: the plain one, any layout whose 4-bit
// groups are columns with rows in bits 0..3). t = a_r ^ a_{r+1} (a_{r+1} of column c + F),
// all = t ^ t of rows r + 2 (columns c + 2F): a_r ^ ... ^ a_{r+3}; out = a ^ all ^ 2 t.
template <int F>
TEMPO_VOLEITH_HD void mix_columns(Planes& s) {
  constexpr u32 f = 8 * F;
  u32 t[8], all[8];
  TEMPO_VOLEITH_UNROLL
  for (int b = 0; b < 8; ++b) {
    const u32 x = s.p[b];
    t[b] = x ^ select_bits(rotr32(x, f + 1), rotr32(x, f + 29), 0x77777777u);
    all[b] = t[b] ^ select_bits(rotr32(t[b], 2 * f + 2), rotr32(t[b], 2 * f + 30), 0x33333333u);
  }
  // xtime on planes: x^8 = x^4 + x^3 + x + 1.
  const u32 xt[8] = {t[7], t[0] ^ t[7], t[1], t[2] ^ t[7], t[3] ^ t[7], t[4], t[5], t[6]};
  TEMPO_VOLEITH_UNROLL
  for (int b = 0; b < 8; ++b) s.p[b] ^= all[b] ^ xt[b];
}

// Round keys 0..10 in the column layout, round key i in frame i mod 4 (the state's frame
// when it is added): of one AES-128 key in both blocks (expand_key), or of two keys, block
// 0 under one and block 1 under the other (expand_keys2: one key schedule for two).
struct RoundKeys {
  Planes rk[11];
};

TEMPO_VOLEITH_HD void expand_keys2(const u8* key0, const u8* key1, RoundKeys& out) {
  const u64 w[4] = {load_le64_fast(key0), load_le64_fast(key0 + 8), load_le64_fast(key1), load_le64_fast(key1 + 8)};
  Planes k = to_aes_planes(w);
  out.rk[0] = k;
  constexpr u8 rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
  TEMPO_VOLEITH_UNROLL
  for (int r = 1; r <= 10; ++r) {
    Planes s = k;
    sub_bytes(s);
    TEMPO_VOLEITH_UNROLL
    for (int b = 0; b < 8; ++b) {
      // RotWord(SubWord(column 3)) into column 0 (rows r <- r + 1), Rcon on row 0.
      const u32 x = s.p[b];
      u32 t = ((x >> 25) & 0x77u) | ((x >> 21) & 0x88u);
      if ((rcon[r - 1] >> b) & 1) t ^= 0x11u;  // public constant
      u32 p = k.p[b];
      p ^= p << 8;  // w_c ^= w_{c-1} ^ ... ^ w_0 (prefix over the columns)
      p ^= p << 16;
      k.p[b] = p ^ (t * 0x01010101u);
      out.rk[r].p[b] = row_rotl(k.p[b], u32(r % 4));
    }
  }
}

TEMPO_VOLEITH_HD void expand_key(const u8* key, RoundKeys& out) { expand_keys2(key, key, out); }

TEMPO_VOLEITH_HD void add_round_key(Planes& s, const Planes& k) {
  TEMPO_VOLEITH_UNROLL
  for (int b = 0; b < 8; ++b) s.p[b] ^= k.p[b];
}

// One AES-128 round i < 10 on a state in frame i - 1 (ShiftRows: the frame moves to i).
template <int I>
TEMPO_VOLEITH_HD void aes_round(Planes& s, const RoundKeys& k) {
  sub_bytes(s);
  mix_columns<I % 4>(s);
  add_round_key(s, k.rk[I]);
}

// Two blocks in the column layout, frame 0 in, frame 2 out: the output's rows 1 and 3 are
// two columns off until frame2_to_frame0. A linear map of outputs (sums of PRG rows) may run
// before that, on the planes, and convert once.
TEMPO_VOLEITH_HD void encrypt_to_frame2(Planes& s, const RoundKeys& k) {
  add_round_key(s, k.rk[0]);
  aes_round<1>(s, k);
  aes_round<2>(s, k);
  aes_round<3>(s, k);
  aes_round<4>(s, k);
  aes_round<5>(s, k);
  aes_round<6>(s, k);
  aes_round<7>(s, k);
  aes_round<8>(s, k);
  aes_round<9>(s, k);
  sub_bytes(s);
  add_round_key(s, k.rk[10]);  // frame 2
}
TEMPO_VOLEITH_HD void frame2_to_frame0(Planes& s) {
  TEMPO_VOLEITH_UNROLL
  for (int b = 0; b < 8; ++b) s.p[b] = row_rotl(s.p[b], 2);
}

// Two blocks in the column layout, frame 0 in and out.
TEMPO_VOLEITH_HD void encrypt(Planes& s, const RoundKeys& k) {
  encrypt_to_frame2(s, k);
  frame2_to_frame0(s);
}

// Two AES-128 blocks under one key: in and out as four little-endian words each.
TEMPO_VOLEITH_HD void encrypt_pair(const RoundKeys& k, const u64 (&in)[4], u64 (&out)[4]) {
  Planes s = to_aes_planes(in);
  encrypt(s, k);
  from_aes_planes(s, out);
}

// The FAEST PRG (tempo/voleith/prg.hpp): AES-128-CTR under `key`, counter block = iv with `tweak`
// added to its top little-endian word, block b's low word + b.
struct PrgCounter {
  u32 c0;
  u64 mid, hi;
  TEMPO_VOLEITH_HD PrgCounter(const u8* iv, u32 tweak)
      : c0(load_le32(iv)),
        mid(load_le64(iv + 4) & 0xFFFFFFFFull),  // bytes 4..7
        hi(u64(load_le32(iv + 8)) | u64(load_le32(iv + 12) + tweak) << 32) {}
  TEMPO_VOLEITH_HD u64 lo(u32 b) const { return u64(c0 + b) | mid << 32; }
};

// Writes `len` bytes to out, two blocks at a time.
TEMPO_VOLEITH_HD void prg(const u8* key, const u8* iv, u32 tweak, u8* out, u32 len) {
  RoundKeys k;
  expand_key(key, k);
  const PrgCounter c(iv, tweak);
  for (u32 off = 0, b = 0; off < len; off += 32, b += 2) {
    const u64 w[4] = {c.lo(b), c.hi, c.lo(b + 1), c.hi};
    u64 o[4];
    encrypt_pair(k, w, o);
    TEMPO_VOLEITH_UNROLL
    for (u32 q = 0; q < 4; ++q) {
      const u32 at = off + 8 * q;
      if (at + 8 <= len) {
        store_le64_fast(out + at, o[q]);
      } else {
        for (u32 i = at; i < len; ++i) out[i] = u8(o[q] >> (8 * (i - at)));
      }
    }
  }
}

// The PRG of two keys at once (one key schedule, each state holding one block of each):
// len bytes (a multiple of 16) of key0's stream (tweak0) to out0 and key1's to out1.
TEMPO_VOLEITH_HD void prg2(const u8* key0, const u8* key1, const u8* iv, u32 tweak0, u32 tweak1, u8* out0, u8* out1,
                           u32 len) {
  RoundKeys k;
  expand_keys2(key0, key1, k);
  const PrgCounter c0(iv, tweak0), c1(iv, tweak1);
  for (u32 b = 0; 16 * b < len; ++b) {
    const u64 w[4] = {c0.lo(b), c0.hi, c1.lo(b), c1.hi};
    u64 o[4];
    encrypt_pair(k, w, o);
    store_le64_fast(out0 + 16 * b, o[0]);
    store_le64_fast(out0 + 16 * b + 8, o[1]);
    store_le64_fast(out1 + 16 * b, o[2]);
    store_le64_fast(out1 + 16 * b + 8, o[3]);
  }
}

// ---- PRG output left on planes
// prg2's two streams as planes: block b of both in one state (key0's in block 0, the low
// nibbles), in frame 2 (encrypt_to_frame2), 32 bytes per b as eight little-endian plane
// words, each ANDed with `keep` (0xF0F0F0F0 clears key0's stream). Sums of such rows are
// sums of the streams, converted once by planes_to_prg.
TEMPO_VOLEITH_HD void store_planes(u8* p, const Planes& s) {
  TEMPO_VOLEITH_UNROLL
  for (int q = 0; q < 4; ++q) store_le64_fast(p + 8 * q, u64(s.p[2 * q]) | u64(s.p[2 * q + 1]) << 32);
}
TEMPO_VOLEITH_HD Planes load_planes(const u8* p) {
  Planes s;
  TEMPO_VOLEITH_UNROLL
  for (int q = 0; q < 4; ++q) {
    const u64 v = load_le64_fast(p + 8 * q);
    s.p[2 * q] = u32(v), s.p[2 * q + 1] = u32(v >> 32);
  }
  return s;
}
TEMPO_VOLEITH_HD void prg2_planes(const u8* key0, const u8* key1, const u8* iv, u32 tweak0, u32 tweak1, u8* out,
                                  u32 blocks, u32 keep) {
  RoundKeys k;
  expand_keys2(key0, key1, k);
  const PrgCounter c0(iv, tweak0), c1(iv, tweak1);
  for (u32 b = 0; b < blocks; ++b) {
    const u64 w[4] = {c0.lo(b), c0.hi, c1.lo(b), c1.hi};
    Planes s = to_aes_planes(w);
    encrypt_to_frame2(s, k);
    TEMPO_VOLEITH_UNROLL
    for (int q = 0; q < 8; ++q) s.p[q] &= keep;
    store_planes(out + 32 * b, s);
  }
}
// A block of prg2_planes (or a sum of such blocks) -> its two 16-byte blocks: block 0
// (key0's stream) in w[0], w[1], block 1 in w[2], w[3].
TEMPO_VOLEITH_HD void planes_to_prg(Planes s, u64 (&w)[4]) {
  frame2_to_frame0(s);
  from_aes_planes(s, w);
}

}  // namespace tempo::voleith::dev
