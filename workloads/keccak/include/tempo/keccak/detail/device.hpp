// Per-thread Keccak sponge code of the GPU kernels. Internal: no stable API. It is
// installed with tempo::keccak so that other families' kernels share one device Keccak
// (FAEST's, workloads/faest/src/cuda) instead of reaching into this family's sources.
//
// Compiled by nvcc for the device AND by the host compiler for the CPU tests
// (tests/workloads/keccak/offload/test_kernel_logic.cpp): the exact code the kernels
// run is checked against tempo::keccak on machines with no GPU. Only the funnel shift
// and the unaligned load differ between the two (same results, by construction).
//
// Why it looks like this:
//  - One state per thread, 25 lanes in registers: every array below is indexed only
//    by compile-time constants (fully unrolled loops), so nothing goes to local memory.
//  - 64-bit rotates are two 32-bit funnel shifts (SHF.L.W) on the lane halves.
//  - chi is written a ^ (~b & c) and theta's xors in threes, so nvcc emits LOP3.
#pragma once

#include <cstddef>
#include <cstdint>
#if !defined(__CUDA_ARCH__)
#include <cstring>
#endif

#if defined(__CUDACC__)
#define TEMPO_HD __host__ __device__ __forceinline__
#else
#define TEMPO_HD inline
#endif

namespace tempo::keccak::cuda {

// What the kernels need to know about an algorithm.
struct SpongeSpec {
  std::uint32_t rate = 0;       // bytes: 72..168, a multiple of 8
  std::uint32_t rounds = 24;    // 24 (SHA3/SHAKE) or 12 (TurboSHAKE)
  std::uint32_t domain = 0;     // padding's first byte: 0x06 SHA3, 0x1F SHAKE/TurboSHAKE
  std::uint32_t out_bytes = 0;  // digest bytes per message
};

// Upper 32 bits of (hi:lo) << n, n in [0, 31].
TEMPO_HD std::uint32_t funnel_left(std::uint32_t lo, std::uint32_t hi, std::uint32_t n) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_l(lo, hi, n);
#else
  return n == 0 ? hi : (hi << n) | (lo >> (32 - n));
#endif
}

template <int N>
TEMPO_HD std::uint64_t rotl(std::uint64_t x) {
  static_assert(N >= 0 && N < 64);
  if constexpr (N == 0) {
    return x;
  } else {
#if defined(__CUDA_ARCH__)
    // Unpack/pack with mov.b64 (free: a 64-bit value is a register pair) so that
    // exactly two SHF.L.W remain in SASS; C++ shifts leave cvt/shr/bfi chains in the PTX.
    std::uint64_t r;
    if constexpr (N < 32) {
      asm("{\n\t.reg .b32 lo, hi, rlo, rhi;\n\tmov.b64 {lo, hi}, %1;\n\t"
          "shf.l.wrap.b32 rhi, lo, hi, %2;\n\tshf.l.wrap.b32 rlo, hi, lo, %2;\n\tmov.b64 %0, {rlo, rhi};\n\t}"
          : "=l"(r)
          : "l"(x), "n"(N));
    } else if constexpr (N == 32) {
      asm("{\n\t.reg .b32 lo, hi;\n\tmov.b64 {lo, hi}, %1;\n\tmov.b64 %0, {hi, lo};\n\t}" : "=l"(r) : "l"(x));
    } else {
      asm("{\n\t.reg .b32 lo, hi, rlo, rhi;\n\tmov.b64 {lo, hi}, %1;\n\t"
          "shf.l.wrap.b32 rhi, hi, lo, %2;\n\tshf.l.wrap.b32 rlo, lo, hi, %2;\n\tmov.b64 %0, {rlo, rhi};\n\t}"
          : "=l"(r)
          : "l"(x), "n"(N - 32));
    }
    return r;
#else
    const std::uint32_t lo = static_cast<std::uint32_t>(x), hi = static_cast<std::uint32_t>(x >> 32);
    std::uint32_t rlo, rhi;
    if constexpr (N < 32) {
      rhi = funnel_left(lo, hi, N);
      rlo = funnel_left(hi, lo, N);
    } else if constexpr (N == 32) {
      rhi = lo;
      rlo = hi;
    } else {
      rhi = funnel_left(hi, lo, N - 32);
      rlo = funnel_left(lo, hi, N - 32);
    }
    return (static_cast<std::uint64_t>(rhi) << 32) | rlo;
#endif
  }
}

// Round constants as a switch: inside fully unrolled loops the index is a
// compile-time constant after unrolling and the switch folds to an immediate.
TEMPO_HD std::uint64_t round_constant(int i) {
  switch (i) {
    case 0: return 0x0000000000000001ULL;
    case 1: return 0x0000000000008082ULL;
    case 2: return 0x800000000000808AULL;
    case 3: return 0x8000000080008000ULL;
    case 4: return 0x000000000000808BULL;
    case 5: return 0x0000000080000001ULL;
    case 6: return 0x8000000080008081ULL;
    case 7: return 0x8000000000008009ULL;
    case 8: return 0x000000000000008AULL;
    case 9: return 0x0000000000000088ULL;
    case 10: return 0x0000000080008009ULL;
    case 11: return 0x000000008000000AULL;
    case 12: return 0x000000008000808BULL;
    case 13: return 0x800000000000008BULL;
    case 14: return 0x8000000000008089ULL;
    case 15: return 0x8000000000008003ULL;
    case 16: return 0x8000000000008002ULL;
    case 17: return 0x8000000000000080ULL;
    case 18: return 0x000000000000800AULL;
    case 19: return 0x800000008000000AULL;
    case 20: return 0x8000000080008081ULL;
    case 21: return 0x8000000000008080ULL;
    case 22: return 0x0000000080000001ULL;
    default: return 0x8000000080008008ULL;
  }
}

// One Keccak-p[1600] round on lanes a[x + 5y].
TEMPO_HD void keccak_round(std::uint64_t (&a)[25], std::uint64_t rc) {
  std::uint64_t c[5], d[5], b[25];
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int x = 0; x < 5; ++x) c[x] = (a[x] ^ a[x + 5] ^ a[x + 10]) ^ (a[x + 15] ^ a[x + 20]);
  d[0] = c[4] ^ rotl<1>(c[1]);
  d[1] = c[0] ^ rotl<1>(c[2]);
  d[2] = c[1] ^ rotl<1>(c[3]);
  d[3] = c[2] ^ rotl<1>(c[4]);
  d[4] = c[3] ^ rotl<1>(c[0]);
  // theta's D, rho and pi: b[y + 5((2x + 3y) mod 5)] = rot(a[x + 5y] ^ d[x], r[x + 5y]).
  b[0] = a[0] ^ d[0];
  b[1] = rotl<44>(a[6] ^ d[1]);
  b[2] = rotl<43>(a[12] ^ d[2]);
  b[3] = rotl<21>(a[18] ^ d[3]);
  b[4] = rotl<14>(a[24] ^ d[4]);
  b[5] = rotl<28>(a[3] ^ d[3]);
  b[6] = rotl<20>(a[9] ^ d[4]);
  b[7] = rotl<3>(a[10] ^ d[0]);
  b[8] = rotl<45>(a[16] ^ d[1]);
  b[9] = rotl<61>(a[22] ^ d[2]);
  b[10] = rotl<1>(a[1] ^ d[1]);
  b[11] = rotl<6>(a[7] ^ d[2]);
  b[12] = rotl<25>(a[13] ^ d[3]);
  b[13] = rotl<8>(a[19] ^ d[4]);
  b[14] = rotl<18>(a[20] ^ d[0]);
  b[15] = rotl<27>(a[4] ^ d[4]);
  b[16] = rotl<36>(a[5] ^ d[0]);
  b[17] = rotl<10>(a[11] ^ d[1]);
  b[18] = rotl<15>(a[17] ^ d[2]);
  b[19] = rotl<56>(a[23] ^ d[3]);
  b[20] = rotl<62>(a[2] ^ d[2]);
  b[21] = rotl<55>(a[8] ^ d[3]);
  b[22] = rotl<39>(a[14] ^ d[4]);
  b[23] = rotl<41>(a[15] ^ d[0]);
  b[24] = rotl<2>(a[21] ^ d[1]);
  // chi as a ^ (~b & c): one LOP3 per 32-bit half.
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int y = 0; y < 25; y += 5) {
    a[y + 0] = b[y + 0] ^ (~b[y + 1] & b[y + 2]);
    a[y + 1] = b[y + 1] ^ (~b[y + 2] & b[y + 3]);
    a[y + 2] = b[y + 2] ^ (~b[y + 3] & b[y + 4]);
    a[y + 3] = b[y + 3] ^ (~b[y + 4] & b[y + 0]);
    a[y + 4] = b[y + 4] ^ (~b[y + 0] & b[y + 1]);
  }
  a[0] ^= rc;
}

// The last ROUNDS rounds of Keccak-p[1600], fully unrolled (ROUNDS = 24 or 12).
template <int ROUNDS>
TEMPO_HD void keccak_p_unrolled(std::uint64_t (&a)[25]) {
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int r = 24 - ROUNDS; r < 24; ++r) keccak_round(a, round_constant(r));
}

// The same constants as a table, for loops whose round index is a run-time value.
#define TEMPO_KECCAK_RC_TABLE                                                                      \
  {0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808AULL, 0x8000000080008000ULL,     \
   0x000000000000808BULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,     \
   0x000000000000008AULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000AULL,     \
   0x000000008000808BULL, 0x800000000000008BULL, 0x8000000000008089ULL, 0x8000000000008003ULL,     \
   0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800AULL, 0x800000008000000AULL,     \
   0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL}
#if defined(__CUDACC__)
static __constant__ std::uint64_t kRoundConstantsDevice[24] = TEMPO_KECCAK_RC_TABLE;
#endif
inline constexpr std::uint64_t kRoundConstantsHost[24] = TEMPO_KECCAK_RC_TABLE;

TEMPO_HD std::uint64_t round_constant_table(int i) {
#if defined(__CUDA_ARCH__)
  return kRoundConstantsDevice[i];  // uniform across the warp: constant cache broadcast
#else
  return kRoundConstantsHost[i];
#endif
}

// Rounds [24 - rounds, 24), two per iteration (keeps generic kernels' code small).
TEMPO_HD void keccak_p_loop(std::uint64_t (&a)[25], std::uint32_t rounds) {
#if defined(__CUDACC__)
#pragma unroll 2
#endif
  for (int r = 24 - static_cast<int>(rounds); r < 24; ++r) keccak_round(a, round_constant_table(r));
}

// ---------------------------------------------------------------------------
// The specialised 32-byte -> 32-byte path (SHA3-256, SHAKE128/256, TurboSHAKE128/256):
// one block in, one permutation, 4 lanes out. Everything but the 4 message lanes is a
// compile-time constant, so nvcc folds the first round's zero lanes and drops the last
// round's unused lanes.
template <int RATE_LANES, int ROUNDS>
TEMPO_HD void hash32_to_32(const std::uint64_t (&in)[4], std::uint64_t (&out)[4], std::uint64_t domain) {
  std::uint64_t a[25];
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int i = 0; i < 25; ++i) a[i] = 0;
  a[0] = in[0];
  a[1] = in[1];
  a[2] = in[2];
  a[3] = in[3];
  a[4] = domain;  // message byte 32 is lane 4's first byte
  a[RATE_LANES - 1] ^= 0x8000000000000000ULL;
  keccak_p_unrolled<ROUNDS>(a);
  out[0] = a[0];
  out[1] = a[1];
  out[2] = a[2];
  out[3] = a[3];
}

// ---------------------------------------------------------------------------
// General messages. The loads read whole aligned 64-bit words, so they may touch up
// to 15 bytes past a message's end: device buffers carry that much padding
// (engine: kLoadPadding), and bytes past the end are masked off.
constexpr std::size_t kLoadPadding = 16;

// Little-endian 8 bytes at any address.
TEMPO_HD std::uint64_t load_u64(const std::uint8_t* p) {
#if defined(__CUDA_ARCH__)
  const std::uintptr_t addr = reinterpret_cast<std::uintptr_t>(p);
  const unsigned shift = static_cast<unsigned>(addr & 7) * 8;
  const std::uint64_t* q = reinterpret_cast<const std::uint64_t*>(addr & ~static_cast<std::uintptr_t>(7));
  const std::uint64_t lo = q[0];
  if (shift == 0) return lo;
  const std::uint64_t hi = q[1];
  return (lo >> shift) | (hi << (64 - shift));
#else
  std::uint64_t v;
  std::memcpy(&v, p, 8);  // host: x86-64 is little-endian
  return v;
#endif
}

// Stores `n` (1..8) low bytes of v at p.
TEMPO_HD void store_bytes(std::uint8_t* p, std::uint64_t v, unsigned n) {
  if (n == 8 && (reinterpret_cast<std::uintptr_t>(p) & 7) == 0) {
    *reinterpret_cast<std::uint64_t*>(p) = v;
    return;
  }
  for (unsigned k = 0; k < n; ++k) p[k] = static_cast<std::uint8_t>(v >> (8 * k));
}

constexpr int kMaxRateLanes = 21;  // SHAKE128 / TurboSHAKE128: 168 bytes

// Hashes one message. The loops run over kMaxRateLanes with a run-time guard rather
// than over `rate/8` so that every lane index is a compile-time constant.
TEMPO_HD void hash_message(const std::uint8_t* msg, std::uint64_t len, std::uint8_t* out, const SpongeSpec& s) {
  std::uint64_t a[25];
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int i = 0; i < 25; ++i) a[i] = 0;
  const std::uint32_t rate_lanes = s.rate / 8;
  // Full blocks.
  while (len >= s.rate) {
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int i = 0; i < kMaxRateLanes; ++i)
      if (i < static_cast<int>(rate_lanes)) a[i] ^= load_u64(msg + 8 * i);
    keccak_p_loop(a, s.rounds);
    msg += s.rate;
    len -= s.rate;
  }
  // Last block: 0..rate-1 message bytes, the domain byte, then 0x80 at the block's end.
  const std::uint32_t rem = static_cast<std::uint32_t>(len);
#if defined(__CUDACC__)
#pragma unroll
#endif
  for (int i = 0; i < kMaxRateLanes; ++i) {
    if (i < static_cast<int>(rate_lanes)) {
      const std::uint32_t lo = 8u * static_cast<std::uint32_t>(i);
      std::uint64_t w = 0;
      if (lo + 8 <= rem) {
        w = load_u64(msg + lo);
      } else if (lo < rem) {
        // Partial lane: read what is there (host: byte by byte, never past the end).
#if defined(__CUDA_ARCH__)
        w = load_u64(msg + lo) & ((1ULL << (8 * (rem - lo))) - 1);
#else
        for (std::uint32_t k = 0; k < rem - lo; ++k) w |= static_cast<std::uint64_t>(msg[lo + k]) << (8 * k);
#endif
      }
      if (lo <= rem && rem < lo + 8) w ^= static_cast<std::uint64_t>(s.domain) << (8 * (rem - lo));
      if (i == static_cast<int>(rate_lanes) - 1) w ^= 0x8000000000000000ULL;
      a[i] ^= w;
    }
  }
  keccak_p_loop(a, s.rounds);
  // Squeeze.
  std::uint32_t left = s.out_bytes;
  for (;;) {
#if defined(__CUDACC__)
#pragma unroll
#endif
    for (int i = 0; i < kMaxRateLanes; ++i) {
      const std::uint32_t lo = 8u * static_cast<std::uint32_t>(i);
      if (i < static_cast<int>(rate_lanes) && lo < left) {
        const std::uint32_t n = left - lo < 8 ? left - lo : 8;
        store_bytes(out + lo, a[i], n);
      }
    }
    if (left <= s.rate) break;
    out += s.rate;
    left -= s.rate;
    keccak_p_loop(a, s.rounds);
  }
}

}  // namespace tempo::keccak::cuda
