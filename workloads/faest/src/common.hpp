// Internals shared by every FAEST translation unit: parameter sets, GF(2^128) values,
// bit helpers, wiping. Nothing here depends on the instruction set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include <tempo/faest.hpp>
#include <tempo/secure_zero.hpp>
#include <tempo/voleith/detail/aes_portable.hpp>
#include <tempo/voleith/scratch.hpp>

// Functions the GPU batch path's device code shares with the CPU code (the QuickSilver
// constraints, the field helpers): __host__ __device__ under nvcc, plain inline elsewhere.
#if defined(__CUDACC__)
#define TEMPO_FAEST_HD __host__ __device__ inline
#else
#define TEMPO_FAEST_HD inline
#endif

namespace tempo::faest::detail {

namespace ct = tempo::voleith::ct;  // the portable constant-time AES (OWF, witness, tests)
using voleith::Scratch;             // per-thread buffers for the tree, seeds and commitments

inline constexpr unsigned lambda = 128;             // both supported sets are lambda = 128
inline constexpr unsigned lambda_bytes = lambda / 8;
inline constexpr unsigned ell = 1280;               // witness bits (AES-128: Lke 448 + Lenc 832)
inline constexpr unsigned ell_bytes = ell / 8;
inline constexpr unsigned lke_bytes = 448 / 8;
inline constexpr unsigned uhash_b = 2;              // UNIVERSAL_HASH_B (16 bits)
inline constexpr unsigned ell_hat_bytes = ell_bytes + 3 * lambda_bytes + uhash_b;  // 210
inline constexpr unsigned utilde_bytes = lambda_bytes + uhash_b;                   // 18
inline constexpr unsigned com_bytes = 3 * lambda_bytes;                            // leaf commitment
inline constexpr unsigned iv_bytes = 16;
inline constexpr unsigned chall1_bytes = 5 * lambda_bytes + 8;  // 88
inline constexpr unsigned chall2_bytes = 3 * lambda_bytes + 8;  // 56
inline constexpr unsigned max_tau = 16;

// FAEST v2 specification, Table 2.1 / faest-ref 2.0.5 meson.build (param_128s, param_128f).
struct ParamSet {
  unsigned tau, w_grind, t_open;
  unsigned k, tau0, tau1, L;  // derived as in faest-ref instances.c
  unsigned sig_size;

  constexpr unsigned depth(unsigned i) const { return i < tau1 ? k : k - 1; }
  constexpr unsigned leaves(unsigned i) const { return 1u << depth(i); }
  // Offsets inside a signature (faest_impl.c signature_* helpers).
  constexpr std::size_t off_u_tilde() const { return (tau - 1) * std::size_t{ell_hat_bytes}; }
  constexpr std::size_t off_d() const { return off_u_tilde() + utilde_bytes; }
  constexpr std::size_t off_a1() const { return off_d() + ell_bytes; }
  constexpr std::size_t off_a2() const { return off_a1() + lambda_bytes; }
  constexpr std::size_t off_decom() const { return off_a2() + lambda_bytes; }
  constexpr std::size_t decom_bytes() const { return std::size_t{com_bytes} * tau + std::size_t{t_open} * lambda_bytes; }
  constexpr std::size_t off_chall3() const { return sig_size - 4 - iv_bytes - lambda_bytes; }
  constexpr std::size_t off_iv_pre() const { return sig_size - 4 - iv_bytes; }
  constexpr std::size_t off_ctr() const { return sig_size - 4; }
};

constexpr ParamSet make_params(unsigned tau, unsigned w_grind, unsigned t_open, unsigned sig_size) {
  const unsigned k = (lambda - w_grind) / tau + 1;
  const unsigned tau1 = (lambda - w_grind) % tau;
  const unsigned tau0 = tau - tau1;
  return ParamSet{tau, w_grind, t_open, k, tau0, tau1, tau1 * (1u << k) + tau0 * (1u << (k - 1)), sig_size};
}

inline constexpr ParamSet params_128f = make_params(16, 8, 110, 5924);
inline constexpr ParamSet params_128s = make_params(11, 7, 102, 4506);
static_assert(params_128f.L == 3072 && params_128s.L == 22528);
static_assert(params_128f.off_ctr() + 4 == 5924 && params_128f.off_decom() + params_128f.decom_bytes() +
                                                           lambda_bytes + iv_bytes + 4 == 5924);
static_assert(params_128s.off_decom() + params_128s.decom_bytes() + lambda_bytes + iv_bytes + 4 == 4506);

const ParamSet& param_set(Params p);  // throws std::invalid_argument for an unknown value

// std::invalid_argument "tempo::faest: <what> must be <want> bytes, got <got>" unless equal.
void check_size(const char* what, std::size_t got, std::size_t want);
// One signature or verification on the selected instruction set (faest.cpp); t: forks
// inside the signature, or null for a serial one. Both throw std::invalid_argument for a
// wrong length; verify_impl returns false for a well-formed signature that does not verify.
void sign_impl(tempo::Task* t, Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
               std::span<const std::uint8_t> rho, std::span<std::uint8_t> out);
bool verify_impl(tempo::Task* t, Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                 std::span<const std::uint8_t> sig);
// The public key (32 B) and the witness of a secret key; throws for a malformed key.
void unpack_secret_key(Params p, std::span<const std::uint8_t> sk, std::uint8_t pk[32], std::uint8_t w[ell_bytes]);

// An element of GF(2^128) = GF(2)[x] / (x^128 + x^7 + x^2 + x + 1); bit i of (lo, hi) is the
// coefficient of x^i, bytes little-endian (faest-ref's bf128_t).
struct gf128 {
  std::uint64_t lo = 0, hi = 0;
};
TEMPO_FAEST_HD constexpr gf128 operator^(gf128 a, gf128 b) { return {a.lo ^ b.lo, a.hi ^ b.hi}; }
TEMPO_FAEST_HD constexpr gf128& operator^=(gf128& a, gf128 b) {
  a.lo ^= b.lo;
  a.hi ^= b.hi;
  return a;
}
TEMPO_FAEST_HD constexpr bool operator==(gf128 a, gf128 b) { return a.lo == b.lo && a.hi == b.hi; }
TEMPO_FAEST_HD gf128 gf_load(const std::uint8_t* p) {
  gf128 r;
  std::memcpy(&r.lo, p, 8);
  std::memcpy(&r.hi, p + 8, 8);
  return r;
}
TEMPO_FAEST_HD void gf_store(std::uint8_t* p, gf128 a) {
  std::memcpy(p, &a.lo, 8);
  std::memcpy(p + 8, &a.hi, 8);
}
// a * bit without a branch: the mask is all ones or all zeros.
TEMPO_FAEST_HD constexpr gf128 gf_mask(gf128 a, unsigned bit) {
  const std::uint64_t m = std::uint64_t{0} - std::uint64_t(bit & 1);
  return {a.lo & m, a.hi & m};
}
TEMPO_FAEST_HD constexpr gf128 gf_from_bit(unsigned bit) { return {std::uint64_t(bit & 1), 0}; }
// Multiplication by x.
TEMPO_FAEST_HD constexpr gf128 gf_dbl(gf128 a) {
  const std::uint64_t m = std::uint64_t{0} - (a.hi >> 63);
  return {(a.lo << 1) ^ (m & 0x87), (a.hi << 1) | (a.lo >> 63)};
}

TEMPO_FAEST_HD unsigned get_bit(const std::uint8_t* p, std::size_t i) { return (p[i / 8] >> (i % 8)) & 1u; }
TEMPO_FAEST_HD void set_bit(std::uint8_t* p, std::size_t i, unsigned v) {
  p[i / 8] = std::uint8_t((p[i / 8] & ~(1u << (i % 8))) | ((v & 1u) << (i % 8)));
}
TEMPO_FAEST_HD void xor_bytes(std::uint8_t* dst, const std::uint8_t* a, const std::uint8_t* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = std::uint8_t(a[i] ^ b[i]);
}
TEMPO_FAEST_HD void put_le32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = std::uint8_t(v >> (8 * i));
}
TEMPO_FAEST_HD std::uint32_t get_le32(const std::uint8_t* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}

// Secrets (seeds, keys, witnesses, VOLE data) are wiped with tempo::secure_zero, which the
// unqualified calls in this namespace find.
// Code shared with the device wipes with wipe(), tempo::secure_zero on the host.
TEMPO_FAEST_HD void wipe(void* p, std::size_t n) {
#if defined(__CUDA_ARCH__)
  if (reinterpret_cast<std::uintptr_t>(p) % 8 == 0 && n % 8 == 0) {  // words: the common case
    volatile std::uint64_t* w = static_cast<volatile std::uint64_t*>(p);
    for (std::size_t i = 0; i < n / 8; ++i) w[i] = 0;
    return;
  }
  volatile std::uint8_t* b = static_cast<volatile std::uint8_t*>(p);
  for (std::size_t i = 0; i < n; ++i) b[i] = 0;
#else
  tempo::secure_zero(p, n);
#endif
}

// A heap buffer that is wiped before it is freed.
template <class T>
class SecretBuffer {
 public:
  SecretBuffer() = default;
  explicit SecretBuffer(std::size_t n) : v_(n) {}
  SecretBuffer(const SecretBuffer&) = delete;
  SecretBuffer& operator=(const SecretBuffer&) = delete;
  ~SecretBuffer() { secure_zero(v_.data(), v_.size() * sizeof(T)); }
  void resize(std::size_t n) {
    secure_zero(v_.data(), v_.size() * sizeof(T));
    v_.assign(n, T{});
  }
  T* data() { return v_.data(); }
  const T* data() const { return v_.data(); }
  std::size_t size() const { return v_.size(); }
  T& operator[](std::size_t i) { return v_[i]; }
  const T& operator[](std::size_t i) const { return v_[i]; }

 private:
  std::vector<T> v_;
};

// Wipes a fixed-size local array on scope exit.
template <class T>
struct Wipe {
  T& obj;
  ~Wipe() { secure_zero(&obj, sizeof(T)); }
};

}  // namespace tempo::faest::detail
