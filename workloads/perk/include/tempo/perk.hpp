// PERK v2.1.0 signatures (VOLE-in-the-head over the permuted kernel problem, NIST PQC
// additional signatures round 2, package of 23/09/2025), byte-identical to the PERK team's
// package: the same keys from the same randomness, the same signatures, the NIST known answers
// of all 18 parameter sets.
//
//   auto kp  = tempo::perk::keygen(Params::perk_1_fast_aes_aes);                  // OS randomness
//   auto sig = tempo::perk::sign(Params::perk_1_fast_aes_aes, kp.secret_key, msg);   // rand from the OS
//   bool ok  = tempo::perk::verify(Params::perk_1_fast_aes_aes, kp.public_key, msg, sig);
//
// Sets: perk_<level>_<mode>_<sym>, level 1/3/5 (lambda = 128/192/256 bits), mode fast or short
// (larger or smaller signatures), sym the symmetric primitives: aes_aes (AES for the seed
// expansion and the leaf commitments: AES-128 at level 1, Rijndael-256 at levels 3 and 5),
// aes_keccak (AES expansion, SHA3 commitments) or keccak_keccak (SHA3/SHAKE for both).
// Keys: public = H_seed (lambda/8 B) || x (n 11-bit values, packed); secret = perm_seed
// (lambda/8 B) || public key. Sizes: public_key_size / secret_key_size / signature_size.
//
// Wrong key or signature lengths throw std::invalid_argument; verify returns false for a
// well-formed signature (or a public key with nonzero padding bits) that does not verify.
// Every call is thread-safe.
//
// SECURITY: as the v2.1.0 package does (and its known answers require), signing proves the
// permuted-kernel relation for the zero permutation and the zero matrix instead of the key's,
// so verify accepts signatures made without the secret key. This is an interoperability
// implementation of v2.1.0, not a secure signature: see workloads/perk/README.md, "Security".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include <tempo/gpu/engine.hpp>
#include <tempo/gpu/rows.hpp>

namespace tempo::perk {

enum class Params {
  perk_1_fast_aes_aes,
  perk_1_fast_aes_keccak,
  perk_1_fast_keccak_keccak,
  perk_1_short_aes_aes,
  perk_1_short_aes_keccak,
  perk_1_short_keccak_keccak,
  perk_3_fast_aes_aes,
  perk_3_fast_aes_keccak,
  perk_3_fast_keccak_keccak,
  perk_3_short_aes_aes,
  perk_3_short_aes_keccak,
  perk_3_short_keccak_keccak,
  perk_5_fast_aes_aes,
  perk_5_fast_aes_keccak,
  perk_5_fast_keccak_keccak,
  perk_5_short_aes_aes,
  perk_5_short_aes_keccak,
  perk_5_short_keccak_keccak,
};

// All 18 sets, in the enum's order.
std::span<const Params> all_params();

struct KeyPair {
  std::vector<std::uint8_t> public_key;
  std::vector<std::uint8_t> secret_key;
  ~KeyPair();  // wipes secret_key
};

std::size_t public_key_size(Params p);   // 104 / 151 / 195 bytes (levels 1 / 3 / 5)
std::size_t secret_key_size(Params p);   // 120 / 175 / 227
std::size_t signature_size(Params p);    // fast 4312 / 10423 / 18216, short 3473 / 8311 / 14830
// The randomness keygen and sign draw: 3 * lambda/8 bytes (H_seed, perm_seed, kernel seed)
// and 2 * lambda/8 bytes (rand).
std::size_t keygen_seed_size(Params p);
std::size_t sign_randomness_size(Params p);
// "perk-1-fast-aes_aes", ... (the names of the package's KAT files).
const char* name(Params p);
// "perk-1-fast-aes_aes", "perk_1_fast_aes_aes", "PERK-1-FAST-AES-AES", "1-fast-aes_aes", ...
// (case, '-' and '_' do not matter). std::invalid_argument naming the name and the sets otherwise.
Params parse_params(std::string_view name);

// Fills its argument with random bytes (keygen's and sign's randomness source).
using RandomSource = std::function<void(std::span<std::uint8_t>)>;

// ---- keys -----------------------------------------------------------------------------------
// Key generation as the package does it: three draws of lambda/8 bytes (H_seed, perm_seed,
// the kernel seed), in that order (with the NIST harness's DRBG: its three randombytes calls).
KeyPair keygen(Params p);                              // tempo::os_random (<tempo/os_random.hpp>)
KeyPair keygen(Params p, const RandomSource& random);
// The same from the three draws given at once: seed = H_seed || perm_seed || kernel seed,
// keygen_seed_size(p) bytes (std::invalid_argument otherwise).
KeyPair keygen_deterministic(Params p, std::span<const std::uint8_t> seed);

// ---- signing --------------------------------------------------------------------------------
// sign draws rand, the signing randomness (2 * lambda/8 bytes, as the package), from tempo::os_random.
// The overloads taking a tempo::Task run one signature's independent parts (the GGM tree
// levels, the tau subtrees' leaf commitments and VOLEs, the VOLE row hashes) as forks; the
// bytes are those of the serial call.
std::vector<std::uint8_t> sign(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg);
std::vector<std::uint8_t> sign(Task& t, Params p, std::span<const std::uint8_t> secret_key,
                               std::span<const std::uint8_t> msg);
// Writes exactly signature_size(p) bytes.
void sign_into(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg,
               std::span<std::uint8_t> signature_out);

// The same with the caller's rand (any length; the package and its KATs use
// sign_randomness_size(p) bytes): for tests and known answers. The tree seed and salt are a
// hash of the key seed, the message digest and rand, so a repeated rand makes signing
// deterministic: production code signs with sign().
std::vector<std::uint8_t> sign_deterministic(Params p, std::span<const std::uint8_t> secret_key,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rand);
std::vector<std::uint8_t> sign_deterministic(Task& t, Params p, std::span<const std::uint8_t> secret_key,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rand);
void sign_into_deterministic(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg,
                             std::span<const std::uint8_t> rand, std::span<std::uint8_t> signature_out);

bool verify(Params p, std::span<const std::uint8_t> public_key, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> signature);
bool verify(Task& t, Params p, std::span<const std::uint8_t> public_key, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> signature);

// The CPU code that runs the AES (levels 1-5 of the aes_* sets) and the carry-less products:
// "vaes+pclmul", "aesni+pclmul" or "portable" (constant-time, no tables), the fastest this CPU
// has. TEMPO_PERK_ISA=portable|aesni|vaes (case-insensitive) caps the choice, e.g. to test the portable
// code on an AES-NI machine; any other value is a std::invalid_argument (from this and from
// every keygen, signing and verifying call).
const char* cpu_isa_name();

// ---- batches on the offload engine ----------------------------------------------------------
//   pool.run([&](tempo::Task& t) {
//     tempo::gpu::BatchReport r = tempo::perk::sign_batch(t, p, secret_keys, messages, signatures);
//     r = tempo::perk::verify_batch(t, p, public_keys, messages, signatures, ok);
//   });
// The batch calls run SignOp / VerifyOp on tempo::gpu::Engine::shared(). Placement follows
// tempo::Backend (RunOptions, default TEMPO_BACKEND): cpu signs on the pool (whole
// signatures per worker; a batch smaller than the pool also forks inside each signature);
// auto lets the engine's cost model choose among the placements the ops offer; cuda needs an
// op with a device path (std::runtime_error at once otherwise, or when this build has no CUDA
// or no device is visible). Results are byte-identical to single calls wherever they run.

// Where a signature's rand comes from: os_random per signature (sign_batch), or input 2 of
// the batch (sign_batch_deterministic: tests and known answers only, as sign_deterministic).
// The same type as tempo::faest::RhoSource (<tempo/gpu/rows.hpp>).
using RandSource = gpu::rows::RandomnessSource;

// ---- SignOp: signing as an engine operation ("perk-sign/perk-1-fast-aes_aes", ...) ----------
// For callers who drive an Engine themselves (their own engine, submit, Pipeline). Item i:
// input 0 the secret key (secret_key_size(p) bytes), input 1 the message (any length), with
// RandSource::input input 2 its rand (any length); each at a fixed stride or by offsets.
// Output: the signature (signature_size(p) bytes). A malformed item throws
// std::invalid_argument from the op (sign_batch checks lengths before any work).
class SignOp final : public gpu::BatchOp {
 public:
  explicit SignOp(Params p, RandSource rand = RandSource::os_random);  // std::invalid_argument for a bad p
  std::string key() const override;
  std::size_t inputs() const override { return rand_ == RandSource::input ? 3 : 2; }
  std::size_t out_stride() const override;
  gpu::CostPrior prior() const override;  // one work unit = one signature
  void cpu(const gpu::Chunk& c) const override;
  bool forks_on_cpu() const override { return true; }
  void cpu_forked(Task& t, const gpu::Chunk& c) const override;
  // Every set has a device path: the host derives each signature's digest, tree root and
  // salt; the device runs the rest of the signature (forest, commitments, VOLE, the PKP
  // proof, grinding, the opening). It needs only an engine with devices (CUDA ones run its
  // kernels).
  bool has_staged_gpu() const override;
  void gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const override;
  bool holds_secrets() const override { return true; }  // secret keys (and rand)
  Params params() const noexcept { return p_; }
  RandSource rand_source() const noexcept { return rand_; }

 private:
  void sign_item(Task* t, const gpu::Chunk& c, std::size_t i) const;
  Params p_;
  RandSource rand_;
};

// ---- VerifyOp: verification as an engine operation ("perk-verify/perk-1-fast-aes_aes", ...) --
// Input 0 the public key (public_key_size(p) bytes), input 1 the message, input 2 the
// signature (signature_size(p) bytes); output one byte, 1 when the signature verifies, else 0.
class VerifyOp final : public gpu::BatchOp {
 public:
  explicit VerifyOp(Params p);  // std::invalid_argument for a bad p
  std::string key() const override;
  std::size_t inputs() const override { return 3; }
  std::size_t out_stride() const override { return 1; }
  gpu::CostPrior prior() const override;  // one work unit = one verification
  void cpu(const gpu::Chunk& c) const override;
  bool forks_on_cpu() const override { return true; }
  void cpu_forked(Task& t, const gpu::Chunk& c) const override;
  // Every set has a device path: the host parses each signature, rejects what the
  // CPU rejects before hashing and computes mu; the device rebuilds the forest from the
  // opening, the VOLE rows and the hashes, runs the PKP verifier and compares the challenges.
  // The verdicts are the CPU's.
  bool has_staged_gpu() const override;
  void gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const override;
  Params params() const noexcept { return p_; }

 private:
  void verify_item(Task* t, const gpu::Chunk& c, std::size_t i) const;
  Params p_;
};

// ---- the batch calls ----------------------------------------------------------------------
// Flat batches, in the ops' layout: `count` items per operand (fixed stride or offsets),
// signatures back to back in signatures_out (count * signature_size(p) bytes), one byte per
// verdict in results_out. Lengths and counts are checked before any work (std::invalid_argument).
gpu::BatchReport sign_batch(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                            std::span<std::uint8_t> signatures_out, gpu::RunOptions opt = {});
gpu::BatchReport sign_batch_deterministic(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                          gpu::Operand rands, std::span<std::uint8_t> signatures_out,
                                          gpu::RunOptions opt = {});
gpu::BatchReport verify_batch(Task& t, Params p, gpu::Operand public_keys, gpu::Operand messages,
                              gpu::Operand signatures, std::span<std::uint8_t> results_out, gpu::RunOptions opt = {});

namespace detail {
// The range forms' common part: checks every row, packs the rows into the ops' layout, runs
// the flat batch and leaves the results in the caller's rows. rands: null for os_random.
gpu::BatchReport sign_rows(Task& t, Params p, gpu::rows::Rows secret_keys, gpu::rows::Rows messages,
                           const gpu::rows::Rows* rands, gpu::rows::OutRows signatures_out, const gpu::RunOptions& opt);
gpu::BatchReport verify_rows(Task& t, Params p, gpu::rows::Rows public_keys, gpu::rows::Rows messages,
                             gpu::rows::Rows signatures, std::span<std::uint8_t> results_out,
                             const gpu::RunOptions& opt);
}  // namespace detail

// Any ranges of byte containers. signatures_out: containers resized to the batch size and to
// signature_size(p) where they can be (vectors), else of exactly those sizes; results_out:
// bool-like values, likewise.
template <gpu::rows::byte_rows Keys, gpu::rows::byte_rows Msgs, gpu::rows::writable_rows Sigs>
gpu::BatchReport sign_batch(Task& t, Params p, const Keys& secret_keys, const Msgs& messages, Sigs& signatures_out,
                            gpu::RunOptions opt = {}) {
  const auto outs = gpu::rows::out_spans(signatures_out, std::size(secret_keys), signature_size(p));
  return detail::sign_rows(t, p, gpu::rows::as_spans(secret_keys), gpu::rows::as_spans(messages), nullptr, outs, opt);
}

template <gpu::rows::byte_rows Keys, gpu::rows::byte_rows Msgs, gpu::rows::byte_rows Rands,
          gpu::rows::writable_rows Sigs>
gpu::BatchReport sign_batch_deterministic(Task& t, Params p, const Keys& secret_keys, const Msgs& messages,
                                          const Rands& rands, Sigs& signatures_out, gpu::RunOptions opt = {}) {
  const auto outs = gpu::rows::out_spans(signatures_out, std::size(secret_keys), signature_size(p));
  const auto rand_spans = gpu::rows::as_spans(rands);
  const gpu::rows::Rows rand_rows(rand_spans);
  return detail::sign_rows(t, p, gpu::rows::as_spans(secret_keys), gpu::rows::as_spans(messages), &rand_rows, outs,
                           opt);
}

template <gpu::rows::byte_rows Keys, gpu::rows::byte_rows Msgs, gpu::rows::byte_rows Sigs,
          gpu::rows::flag_range Results>
gpu::BatchReport verify_batch(Task& t, Params p, const Keys& public_keys, const Msgs& messages, const Sigs& signatures,
                              Results& results_out, gpu::RunOptions opt = {}) {
  const std::size_t n = std::size(public_keys);
  if constexpr (requires { results_out.resize(n); }) results_out.resize(n);
  gpu::rows::check_count("tempo::perk::verify_batch", "results_out", std::size(results_out), n);
  std::vector<std::uint8_t> ok(n);
  const gpu::BatchReport report = detail::verify_rows(t, p, gpu::rows::as_spans(public_keys),
                                                      gpu::rows::as_spans(messages), gpu::rows::as_spans(signatures),
                                                      ok, opt);
  std::size_t i = 0;
  for (auto&& r : results_out) r = ok[i++] != 0;
  return report;
}

}  // namespace tempo::perk
