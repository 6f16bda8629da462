// tempo::tfhe -- binary TFHE/FHEW gate bootstrapping with exact integer arithmetic.
//
//   auto params = tempo::tfhe::Params::preset("PN10QP27");       // "PN10QP27L3", "PN11QP54", "TOY256"
//   tempo::tfhe::Keys keys = tempo::tfhe::keygen(params);         // a fresh seed from the OS
//   Ciphertext x = encrypt_bit(keys.secret, true);                // fresh OS randomness
//   Ciphertext r = eval_gate(t, keys.evaluation, Gate::and_, x, y);
//   bool b = decrypt_bit(keys.secret, r);
//   eval_gates(t, keys.evaluation, Gate::nand, xs, ys, out);      // batches: <tempo/tfhe/batch.hpp>
//
// Scheme (FHEW with GINX/CGGI blind rotation, OpenFHE's layout): an LWE ciphertext (a, b)
// mod q (a power of two dividing 2N) encrypts bit m with phase b - <a, s> = m*q/4 + e under a
// uniform ternary key s of dimension n. A gate adds a weighted sum of its inputs and a
// constant, then bootstraps: blind rotation over Z_Q[X]/(X^N+1) with RGSW keys of s (two per
// coefficient: [s_i = 1] and [s_i = -1]), external products through tempo::ntt, sample
// extraction, modulus switch Q -> Q_ks, LWE key switch N -> n (base B_ks, OpenFHE's table
// form), modulus switch Q_ks -> q. Every step is integer arithmetic with a unique result, so
// any backend that computes it correctly produces the same bytes.
//
// Randomness: TurboSHAKE256 (tempo::keccak) keyed by a 32-byte seed and a domain label per
// use; errors are centered binomial (integer only, constant time). keygen and encrypt_bit
// draw their seed from the OS (getrandom); the *_deterministic forms take it from the caller,
// for tests and known answers only. See workloads/tfhe/README.md for the parameter sources,
// the noise analysis and the predicted failure probabilities.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tempo/tempo.hpp>

namespace tempo::tfhe {

// Per-gate noise prediction (variances in units of the LWE modulus q; see README).
struct NoiseEstimate {
  double blind_rotation_var_Q;  // accumulator error variance after blind rotation, mod Q
  double ks_var;                // key-switching error variance, mod Q_ks
  double output_var;            // bootstrapped ciphertext error variance, mod q
  double fresh_var;             // fresh encryption error variance, mod q
  double worst_margin_sigmas;   // decision margin / std-dev for the noisiest gate (carry)
  double failure_per_gate;      // predicted probability that one gate decrypts wrong
};

struct Params {
  std::string_view name;
  std::uint8_t id = 0;            // stored in ciphertexts and keys, checked by every call
  // Ring (blind rotation): Z_Q[X]/(X^N + 1), RGSW gadget base 2^log_bg with `levels` digits.
  std::size_t N = 0;
  std::uint64_t Q = 0;            // NTT-friendly prime, Q = 1 mod 2N
  unsigned log_bg = 0;
  // Digits per coefficient. log_bg * levels >= bit width of Q: the decomposition is exact;
  // fewer: the coefficient is rounded to its top log_bg * levels bits first (dropped_bits()),
  // an approximate gadget decomposition whose error the noise model counts.
  unsigned levels = 0;
  // LWE: dimension n, modulus q = 2^log_q (q divides 2N).
  std::size_t n = 0;
  unsigned log_q = 0;
  // Key switching: modulus Q_ks = 2^log_qks, base 2^log_bks, ks_levels digits.
  unsigned log_qks = 0;
  unsigned log_bks = 0;
  unsigned ks_levels = 0;
  // Every error is centered binomial with parameter eta (variance eta/2).
  unsigned eta = 0;
  // LWE coefficients per blind-rotation step (multi-bit blind rotation): 1, or 2 (n/2 steps,
  // each with an RGSW key for every nonzero ternary pattern of its two coefficients: 8 keys,
  // one external product per step). Fewer, heavier steps at a higher noise (noise()).
  unsigned grouping = 1;
  bool secure = false;            // true only where `source` gives a published security level
  std::string_view source;        // where the dimensions and their security level come from

  std::uint32_t q() const noexcept { return std::uint32_t{1} << log_q; }
  // Low bits of each coefficient (mod Q, centered) that the gadget decomposition rounds off.
  unsigned dropped_bits() const noexcept {
    const unsigned bits = static_cast<unsigned>(std::bit_width(Q)), kept = log_bg * levels;
    return bits > kept ? bits - kept : 0;
  }
  std::uint32_t qks() const noexcept { return std::uint32_t{1} << log_qks; }
  // Blind-rotation steps (n / grouping) and RGSW keys per step (3^grouping - 1).
  std::size_t steps() const noexcept { return n / grouping; }
  unsigned patterns() const noexcept { return grouping == 1 ? 2u : 8u; }

  // "PN10QP27", "PN10QP27L3", "PN10QP27L3G2", "PN11QP54", "TOY256" and "TOY256G2"
  // (insecure, for tests).
  // std::invalid_argument otherwise.
  static Params preset(std::string_view name);
  static std::span<const std::string_view> preset_names() noexcept;
  NoiseEstimate noise() const;
  friend bool operator==(const Params&, const Params&) = default;
};

// LWE ciphertext mod q: b - <a, s> = m*q/4 + e.
struct Ciphertext {
  std::uint8_t params_id = 0;
  std::vector<std::uint32_t> a;   // n coefficients in [0, q)
  std::uint32_t b = 0;
  friend bool operator==(const Ciphertext&, const Ciphertext&) = default;
};

// Secret keys: the LWE key s (n, ternary) and the ring key S (N, ternary). Wiped when destroyed.
class SecretKey {
 public:
  SecretKey() = default;
  SecretKey(Params p, std::vector<std::int8_t> lwe, std::vector<std::int8_t> ring);
  SecretKey(const SecretKey&) = default;
  SecretKey(SecretKey&&) noexcept = default;
  SecretKey& operator=(const SecretKey&) = default;
  SecretKey& operator=(SecretKey&&) noexcept = default;
  ~SecretKey();
  const Params& params() const noexcept { return params_; }
  std::span<const std::int8_t> lwe() const noexcept { return lwe_; }
  std::span<const std::int8_t> ring() const noexcept { return ring_; }
  friend bool operator==(const SecretKey&, const SecretKey&) = default;

 private:
  Params params_{};
  std::vector<std::int8_t> lwe_;
  std::vector<std::int8_t> ring_;
};

namespace detail {
struct EvalData;
}

// Public evaluation key: bootstrapping key (RGSW, in the tempo::ntt forward domain) and the
// key-switching key. Immutable; copies share the data; usable from many threads at once.
class EvaluationKey {
 public:
  EvaluationKey() = default;
  explicit EvaluationKey(std::shared_ptr<const detail::EvalData> d);
  const Params& params() const;
  const detail::EvalData& data() const;
  bool empty() const noexcept { return !data_; }

 private:
  std::shared_ptr<const detail::EvalData> data_;
};

struct Keys {
  SecretKey secret;
  EvaluationKey evaluation;
};

// Fresh keys from a seed drawn from the OS (getrandom(2); std::runtime_error if it fails),
// wiped once used. The Task form spreads the work over the pool.
Keys keygen(const Params& params);
Keys keygen(Task& t, const Params& params);
// For tests and known answers only: the keys are a function of `seed` (exactly 32 bytes,
// std::invalid_argument otherwise), so whoever knows the seed holds the secret key. The Task
// form gives the same bytes as the serial one.
Keys keygen_deterministic(const Params& params, std::span<const std::uint8_t> seed);
Keys keygen_deterministic(Task& t, const Params& params, std::span<const std::uint8_t> seed);

// An encryption of `bit` with fresh randomness from the OS (std::runtime_error if it fails):
// encrypting the same bit twice gives unrelated ciphertexts.
Ciphertext encrypt_bit(const SecretKey& sk, bool bit);
// For tests and known answers only: the ciphertext is a function of (sk, bit, seed). Never
// use a seed twice: two ciphertexts from one seed share their mask and error, so the
// difference of their b values is the difference of their bits times q/4: it leaks them.
Ciphertext encrypt_bit_deterministic(const SecretKey& sk, bool bit, std::span<const std::uint8_t> seed);
bool decrypt_bit(const SecretKey& sk, const Ciphertext& c);
// Phase error e = (b - <a,s>) - m*q/4 as a signed value in [-q/2, q/2), for noise tests.
std::int64_t noise_of(const SecretKey& sk, const Ciphertext& c, bool bit);

enum class Gate { and_, or_, xor_, nand, nor, xnor };
// Three-input gates evaluated with one bootstrap of a weighted sum:
//   majority(x,y,z), parity(x^y^z) (a full adder's carry and sum), and
//   carry(g, p, g') = g | (p & g') for prefix adders, valid when g and p are never both 1.
enum class Gate3 { majority, parity, carry };

std::string_view gate_name(Gate g) noexcept;  // "and", "or", "xor", "nand", "nor", "xnor"
// gate_name's spelling, case-insensitive, a trailing '_' ignored ("AND", "and_").
// std::invalid_argument naming the name and the gates otherwise.
Gate parse_gate(std::string_view name);
bool gate_plain(Gate g, bool x, bool y) noexcept;
bool gate3_plain(Gate3 g, bool x, bool y, bool z) noexcept;

// Single gates, on the calling task's pool whatever TEMPO_BACKEND says (batches of gates,
// which can use a device: <tempo/tfhe/batch.hpp>).
Ciphertext eval_gate(Task& t, const EvaluationKey& ek, Gate g, const Ciphertext& x,
                     const Ciphertext& y);
Ciphertext eval_gate3(Task& t, const EvaluationKey& ek, Gate3 g, const Ciphertext& x,
                      const Ciphertext& y, const Ciphertext& z);
Ciphertext eval_not(const Ciphertext& x);  // no bootstrap
Ciphertext eval_bootstrap(Task& t, const EvaluationKey& ek, const Ciphertext& c);

// The pieces of a bootstrap, for benchmarks and tests (inputs/outputs as documented).
// Key switch of an extracted N-dimensional LWE mod Q_ks to the n-dimensional key mod Q_ks.
std::vector<std::uint32_t> key_switch(const EvaluationKey& ek, std::span<const std::uint32_t> a_N,
                                      std::uint32_t b);

// Serialization: little-endian, versioned, with the parameter id; from_bytes rejects
// truncated input, another parameter set (when `expected` is given) and out-of-range values
// with std::invalid_argument naming the problem.
std::vector<std::byte> to_bytes(const Ciphertext& c);
std::vector<std::byte> to_bytes(const SecretKey& sk);
std::vector<std::byte> to_bytes(const EvaluationKey& ek);
Ciphertext ciphertext_from_bytes(std::span<const std::byte> bytes, const Params* expected = nullptr);
SecretKey secret_key_from_bytes(std::span<const std::byte> bytes, const Params* expected = nullptr);
EvaluationKey evaluation_key_from_bytes(std::span<const std::byte> bytes,
                                        const Params* expected = nullptr);

// SHA3-256 of to_bytes(ek), computed without building the whole byte string (for equality
// checks of large keys).
std::array<std::uint8_t, 32> digest(const EvaluationKey& ek);

}  // namespace tempo::tfhe

#include <tempo/tfhe/batch.hpp>
#include <tempo/tfhe/circuit.hpp>
