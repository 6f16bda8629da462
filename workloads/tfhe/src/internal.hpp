// Internals of tempo::tfhe: the seeded XOF, samplers, the ring helper and the key data.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <tempo/keccak.hpp>
#include <tempo/ntt.hpp>
#include <tempo/tfhe.hpp>

#include "cuda/tfhe_kernels.hpp"

namespace tempo::tfhe::detail {

using u64 = std::uint64_t;
using u128 = unsigned __int128;

// 32 bytes from the OS (getrandom(2); std::runtime_error naming the error if it fails),
// wiped when it goes out of scope: the seed of keygen and encrypt_bit.
class OsSeed {
 public:
  OsSeed();
  ~OsSeed();
  OsSeed(const OsSeed&) = delete;
  OsSeed& operator=(const OsSeed&) = delete;
  std::span<const std::uint8_t> bytes() const noexcept { return bytes_; }

 private:
  std::array<std::uint8_t, 32> bytes_{};
};

void check_seed(std::span<const std::uint8_t> seed);
void check_same_params(const Params& p, std::uint8_t id, const char* what);

// TurboSHAKE256 keyed by (label, seed, index): one independent stream per use, so that key
// generation can run its pieces in any order or in parallel and still give the same bytes.
class Xof {
 public:
  Xof(std::string_view label, std::span<const std::uint8_t> seed, u64 index = 0);
  ~Xof();
  Xof(const Xof&) = delete;
  Xof& operator=(const Xof&) = delete;

  std::uint8_t byte();
  u64 word(unsigned bytes);                 // little-endian, bytes <= 8
  u64 uniform(u64 q, unsigned bits);        // uniform in [0, q) by rejection, q <= 2^bits
  std::int8_t ternary();                    // uniform in {-1, 0, 1}
  std::int32_t cbd(unsigned eta);           // centered binomial, constant time, eta <= 32

 private:
  void refill();
  tempo::keccak::Keccak sponge_;
  std::array<std::uint8_t, 1088> buf_{};   // 8 TurboSHAKE256 blocks per squeeze
  std::size_t pos_ = sizeof(buf_);
};

// x mod Q. reduce64: any 64-bit x (floor(2^64/Q) Barrett, one correction). reduce128: x < 2^112
// when Q >= 2^49 (the high word is folded with 2^64 mod Q, then k-bit Barrett, k = bitlen(Q)).
struct Modulus {
  u64 Q = 0;
  unsigned k = 0;
  u64 m64 = 0;      // floor(2^64 / Q)
  u64 mu = 0;       // floor(2^(2k) / Q), for k >= 33
  u64 r64 = 0;      // 2^64 mod Q
  explicit Modulus(u64 q = 0);
  // Q < 2^27: sums of up to 16 products stay below 2^58 (bootstrap.cpp SmallReducer).
  bool small() const noexcept { return k <= 27; }
  u64 reduce64(u64 x) const noexcept {
    const u64 est = static_cast<u64>((static_cast<u128>(x) * m64) >> 64);
    const u64 r = x - est * Q;
    return r >= Q ? r - Q : r;
  }
  u64 reduce128(u128 x) const noexcept {
    const u64 hi = static_cast<u64>(x >> 64);
    if (hi != 0) x = static_cast<u128>(hi) * r64 + static_cast<u64>(x);
    if (static_cast<u64>(x >> 64) == 0) return reduce64(static_cast<u64>(x));
    const u64 q1 = static_cast<u64>(x >> (k - 1));
    const u64 q3 = static_cast<u64>((static_cast<u128>(q1) * mu) >> (k + 1));
    u64 r = static_cast<u64>(x) - q3 * Q;
    r = r >= Q ? r - Q : r;
    r = r >= Q ? r - Q : r;
    return r;
  }
  u64 mul(u64 a, u64 b) const noexcept { return reduce128(static_cast<u128>(a) * b); }
  u64 add(u64 a, u64 b) const noexcept { const u64 s = a + b; return s >= Q ? s - Q : s; }
  u64 sub(u64 a, u64 b) const noexcept { return a >= b ? a - b : a + Q - b; }
};

// Z_Q[X]/(X^N+1) with tempo::ntt; the forward transform evaluates at psi^(2 brv(i) + 1).
struct Ring {
  std::size_t N;
  Modulus mod;
  tempo::ntt::Plan plan;
  std::vector<u64> psi_pow;          // psi^e, e in [0, 2N)
  std::vector<std::uint32_t> slot;   // 2 brv(i) + 1
  explicit Ring(const Params& p);
  // out[i] = (X^e)(slot i) - 1, e in [0, 2N): the transform of X^e - 1.
  void monomial_minus_one(std::size_t e, std::span<u64> out) const;
};

// Asks the kernel for 2 MiB pages over the 2 MiB-aligned part of [data, data + bytes)
// (madvise MADV_HUGEPAGE; a no-op where that is unavailable or refused). For the keys, which
// every bootstrap walks (tens of megabytes; the key switch jumps between rows): one TLB
// entry per 2 MiB instead of one per 4 KiB page, fewer page walks.
void advise_huge_pages(const void* data, std::size_t bytes) noexcept;
// v.reserve(n) with that advice, before the first write faults the pages in.
template <class T>
void reserve_huge(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
}

// Bootstrapping key and key-switching key with their derived sizes.
struct EvalData {
  Params params;
  Ring ring;
  // bk[((i*P + t)*2L + row)*2 + col][N]: RGSW rows in the transform domain; step i
  // (Params::steps), key t of its P = Params::patterns() (keygen: with grouping 1, t = 0 is
  // [s_i = 1] and t = 1 [s_i = -1]); col 0 is the mask a, col 1 is b = a*S + e (+ the gadget
  // term).
  std::vector<u64> bk;
  // The same key as 32-bit words when Q < 2^27 (half the memory traffic per bootstrap);
  // bk is then empty. finalize() makes that choice once the key is complete. Blocked for a
  // front-to-back walk: step i's two RGSWs are one run (step32(i)) in which, per block of
  // kKeyBlock coefficients and per row, the 2P (t, col) words of those coefficients
  // follow each other (bk32_offset; the layout is cuda::key32_offset's, which the device
  // reads too). The external product reads a step as one stream; bk's layout has 8L rows
  // 4 KiB apart, more streams than the hardware prefetchers follow.
  std::vector<std::uint32_t> bk32;
  static constexpr std::size_t kKeyBlock = cuda::kKeyBlock;
  // ks[((i*ks_levels + j)*(B_ks-1) + (v-1))*(n+1) + c] mod Q_ks: LWE of v*S_i*B_ks^j under s;
  // c < n is the mask, c = n is b. v = 0 is the zero ciphertext and is not stored.
  std::vector<std::uint16_t> ks;
  // Device copies of this key (batch.cpp's DeviceKey on tempo::gpu's shared engine), made by
  // the first device chunk of an op on that engine and freed with the key; type-erased to
  // keep the CUDA launch parameters out of this header.
  mutable std::mutex device_mu;
  mutable std::shared_ptr<const void> device_state;
  explicit EvalData(const Params& p) : params(p), ring(p) {}
  std::size_t rgsw_stride() const { return 2 * params.levels * 2 * params.N; }
  std::size_t step_stride() const { return params.patterns() * rgsw_stride(); }
  const u64* rgsw(std::size_t i, unsigned t) const { return bk.data() + i * step_stride() + t * rgsw_stride(); }
  // Step i's run of bk32 (all P keys).
  const std::uint32_t* step32(std::size_t i) const { return bk32.data() + i * step_stride(); }
  // Position in step32(i) of RGSW(i, t) row r, column col, coefficient j.
  std::size_t bk32_offset(unsigned t, std::size_t r, unsigned col, std::size_t j) const {
    return cuda::key32_offset(params.levels, params.patterns(), t, r, col, j);
  }
  // Position in bk32 of the word at idx in bk's order (serialization's order).
  std::size_t bk32_position(std::size_t idx) const {
    const std::size_t N = params.N, rows = 2 * params.levels, P = params.patterns();
    const std::size_t j = idx % N, col = idx / N % 2, r = idx / (2 * N) % rows, t = idx / (2 * N * rows) % P,
                      i = idx / (2 * N * rows * P);
    return i * step_stride() + bk32_offset(static_cast<unsigned>(t), r, static_cast<unsigned>(col), j);
  }
  std::size_t bk_size() const { return bk32.empty() ? bk.size() : bk32.size(); }
  u64 bk_value(std::size_t idx) const { return bk32.empty() ? bk[idx] : bk32[bk32_position(idx)]; }
  void finalize() {
    if (!ring.mod.small()) return;
    if (params.N % kKeyBlock != 0) throw std::logic_error("tempo::tfhe: N must be a multiple of 16 for bk32's blocks");
    std::vector<std::uint32_t>().swap(bk32);
    reserve_huge(bk32, bk.size());
    bk32.resize(bk.size());
    for (std::size_t idx = 0; idx < bk.size(); ++idx) bk32[bk32_position(idx)] = static_cast<std::uint32_t>(bk[idx]);
    std::vector<u64>().swap(bk);
  }
  std::size_t ks_row() const { return params.n + 1; }
  std::size_t ks_base() const { return (std::size_t{1} << params.log_bks) - 1; }
};

// An LWE ciphertext mod q before its bootstrap (a gate's combination of its inputs).
struct Lwe {
  std::vector<std::uint32_t> a;
  std::uint32_t b = 0;
};
// Bootstraps of several ciphertexts sharing each bootstrapping-key read (outputs as below).
// With a task, it answers heartbeats between blind-rotation steps (Task::tick), so that a
// pool can hand out the caller's queued work while this runs (tens of milliseconds).
// SAFETY: `t` must be the task of the calling thread.
void bootstrap_batch(const EvalData& ek, std::span<const Lwe> in, std::span<Ciphertext> out,
                     Task* t = nullptr);
// The most bootstraps one task groups on the pool: 4, or TEMPO_TFHE_CPU_GROUP (1..16; for
// measuring: a larger group reads each key step once for more bootstraps, at more cache).
std::size_t cpu_group_max();
// How many bootstraps one task groups: up to cpu_group_max(), fewer when that would idle
// workers.
std::size_t group_size(std::size_t count, std::size_t threads);

// The bootstrap's AVX-512 loops run where the CPU has them (the default); false makes every
// bootstrap take the portable loops, so that tests can check both give the same bytes.
void set_vector_kernels(bool on) noexcept;

// The gadget digits of a polynomial mod Q: digit r of coefficient j (balanced base 2^log_bg
// of the centered value, its low dropped_bits() rounded off) at out[r N + j], in [0, Q).
// scratch: N words.
void decompose(std::span<const std::uint64_t> in, const Params& p, std::int64_t* scratch, std::uint64_t* out);

// Blind rotation + extraction + modulus switch + key switch + modulus switch.
// in: LWE mod q (already offset); out: refreshed LWE mod q encrypting (phase in [0, q/2)).
void bootstrap(const EvalData& ek, std::span<const std::uint32_t> a, std::uint32_t b,
               Ciphertext& out);
// (0, b) - sum_{i,j} K[i][j][digit_j(a_i)] mod Q_ks for an N-dimensional a mod Q_ks: n+1 values.
std::vector<std::uint32_t> key_switch_raw(const EvalData& ek, std::span<const std::uint32_t> a,
                                          std::uint32_t b);
const Params* params_by_id(std::uint8_t id) noexcept;

// Weights and constant (in units of q/8) of a gate's linear combination.
struct Linear {
  int w[3];
  int offset8;
};
Linear linear_of(Gate g) noexcept;
Linear linear_of(Gate3 g) noexcept;
// The refresh of an encrypted bit: the phase m q/4 moved by -q/8 is in [0, q/2) exactly for 1.
constexpr Linear kRefresh{{1, 0, 0}, -1};
// The constant as a word added to b: offset8 q/8 mod q (mod 2^32, which q divides).
inline std::uint32_t offset_word(const Linear& lin, const Params& p) noexcept {
  return static_cast<std::uint32_t>(lin.offset8) << (p.log_q - 3);
}
Lwe combine(const EvalData& ek, const Linear& lin, const Ciphertext* const* in, unsigned count);

}  // namespace tempo::tfhe::detail
