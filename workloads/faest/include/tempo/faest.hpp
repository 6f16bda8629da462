// FAEST-128f and FAEST-128s signatures (FAEST specification v2), byte-identical to the
// reference implementation faest-ref 2.0.5: keys, signatures and the NIST known answers.
//
//   auto kp  = tempo::faest::keygen(Params::faest_128f);                 // OS randomness
//   auto sig = tempo::faest::sign(Params::faest_128f, kp.secret_key, msg);  // rho from the OS
//   bool ok  = tempo::faest::verify(Params::faest_128f, kp.public_key, msg, sig);
//   pool.run([&](tempo::Task& t) {                                        // many at once
//     tempo::gpu::BatchReport r = tempo::faest::sign_batch(t, Params::faest_128f, keys, msgs, sigs);
//   });
//
// Keys: public = OWF input (16 B) || AES-128_key(input) (16 B); secret = input || AES key.
// Signatures: 5924 B (128f) and 4506 B (128s). Wrong key or signature lengths throw
// std::invalid_argument; verify returns false for a well-formed signature that does not verify.
// Every call is thread-safe; overloads taking a tempo::Task run one signature's independent
// parts (the GGM tree levels, leaf commitments, the tau VOLE expansions) as forks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <tempo/gpu/engine.hpp>
#include <tempo/gpu/rows.hpp>

namespace tempo {
class Task;  // <tempo/tempo.hpp>
}

namespace tempo::faest {

enum class Params { faest_128f, faest_128s };

struct KeyPair {
  std::vector<std::uint8_t> public_key;
  std::vector<std::uint8_t> secret_key;
  ~KeyPair();  // wipes secret_key
};

std::size_t public_key_size(Params p);
std::size_t secret_key_size(Params p);
std::size_t signature_size(Params p);
const char* name(Params p);  // "FAEST-128f", "FAEST-128s"
// "128f", "FAEST-128f", "faest_128f", ... (case, '-' and '_' do not matter).
// std::invalid_argument naming the name and the sets otherwise.
Params parse_params(std::string_view name);

// Fills its argument with random bytes (keygen's and sign's randomness source).
using RandomSource = std::function<void(std::span<std::uint8_t>)>;

// Key generation as faest-ref does it: draw the 16-byte AES key until its two lowest bits are
// not both set (the keygen rejection rule), then the 16-byte OWF input.
KeyPair keygen(Params p);
KeyPair keygen(Params p, const RandomSource& random);

// ---- signing --------------------------------------------------------------------------------
// sign draws rho, the signing randomness (16 bytes, as faest-ref), from tempo::os_random (<tempo/os_random.hpp>).
std::vector<std::uint8_t> sign(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg);
std::vector<std::uint8_t> sign(tempo::Task& t, Params p, std::span<const std::uint8_t> secret_key,
                               std::span<const std::uint8_t> msg);
// Writes exactly signature_size(p) bytes.
void sign_into(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg,
               std::span<std::uint8_t> signature_out);

// The same with the caller's rho (any length): for tests and known answers (the NIST KATs,
// the v2 vectors), where the same inputs must give the same bytes. The per-signature seed is
// a hash of the key, the message and rho, so a repeated rho makes signing deterministic and
// gives up the hedge that fresh randomness gives against fault and side-channel attacks:
// production code signs with sign().
std::vector<std::uint8_t> sign_deterministic(Params p, std::span<const std::uint8_t> secret_key,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rho);
std::vector<std::uint8_t> sign_deterministic(tempo::Task& t, Params p, std::span<const std::uint8_t> secret_key,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rho);
void sign_into_deterministic(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg,
                             std::span<const std::uint8_t> rho, std::span<std::uint8_t> signature_out);

bool verify(Params p, std::span<const std::uint8_t> public_key, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> signature);
bool verify(tempo::Task& t, Params p, std::span<const std::uint8_t> public_key,
            std::span<const std::uint8_t> msg, std::span<const std::uint8_t> signature);

// The AES witness (extended key schedule, ell = 1280 bits) of a secret key; exposed for tests.
std::vector<std::uint8_t> extend_witness(Params p, std::span<const std::uint8_t> secret_key);

// The CPU instruction set that runs the AES and the field arithmetic: "vaes+pclmul",
// "aesni+pclmul" or "portable" (constant-time, no tables), the fastest this CPU has.
// TEMPO_FAEST_ISA=portable|aesni|vaes (case-insensitive) caps the choice, e.g. to test the
// portable code on an AES-NI machine; an ISA the CPU lacks falls back to the next slower one;
// any other value is a std::invalid_argument (from this and from every signing call).
const char* cpu_isa_name();

// ---- batches on the offload engine ----------------------------------------------------------
// The batch calls run SignOp / VerifyOp on tempo::gpu::Engine::shared(). Placement follows
// tempo::Backend (RunOptions, default TEMPO_BACKEND): cpu signs on the pool; cuda runs the
// hybrid device path (the host derives each signature's seeds, the device expands and commits
// the VOLE, the host finishes the proof) and throws std::runtime_error at once when this build
// has no CUDA or no device is visible; auto lets the engine's cost model choose (small batches
// stay on the pool; large ones go to the device when it pays). CUDA failures are
// tempo::gpu::CudaError. Results are byte-identical to single calls wherever they run.

// Where a signature's rho comes from: os_random per signature (sign_batch), or input 2 of the
// batch (sign_batch_deterministic: tests and known answers only, as sign_deterministic). The
// same type as tempo::perk::RandSource (<tempo/gpu/rows.hpp>).
using RhoSource = gpu::rows::RandomnessSource;

// Signing as an engine operation ("faest-sign/128f", "faest-sign/128s"), for callers who
// drive an Engine themselves (their own engine, submit, Pipeline). Item i: input 0 the secret
// key (32 bytes), input 1 the message (any length), with RhoSource::input input 2 its rho (any
// length); each at a fixed stride or by offsets. Output: the signature. A malformed item
// throws std::invalid_argument from the op (sign_batch checks lengths before any work).
class SignOp final : public gpu::BatchOp {
 public:
  explicit SignOp(Params p, RhoSource rho = RhoSource::os_random);  // std::invalid_argument for a bad p
  std::string key() const override;
  std::size_t inputs() const override { return rho_ == RhoSource::input ? 3 : 2; }
  std::size_t out_stride() const override;
  gpu::CostPrior prior() const override;  // one work unit = one signature
  void cpu(const gpu::Chunk& c) const override;
  bool forks_on_cpu() const override { return true; }
  void cpu_forked(Task& t, const gpu::Chunk& c) const override;
  // The hybrid path needs only an engine with devices: CUDA ones run its kernels,
  // simulated ones (tests) the same stage's CPU code.
  bool has_staged_gpu() const override { return true; }
  void gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const override;
  bool holds_secrets() const override { return true; }  // secret keys (and rho)
  Params params() const noexcept { return p_; }
  RhoSource rho_source() const noexcept { return rho_; }

 private:
  void sign_item(Task* t, const gpu::Chunk& c, std::size_t i) const;
  Params p_;
  RhoSource rho_;
};

// Verification as an engine operation ("faest-verify/128f", ...): input 0 the public key (32
// bytes), input 1 the message, input 2 the signature (signature_size(p) bytes); output one
// byte, 1 when the signature verifies, else 0.
class VerifyOp final : public gpu::BatchOp {
 public:
  explicit VerifyOp(Params p);
  std::string key() const override;
  std::size_t inputs() const override { return 3; }
  std::size_t out_stride() const override { return 1; }
  gpu::CostPrior prior() const override;
  void cpu(const gpu::Chunk& c) const override;
  bool forks_on_cpu() const override { return true; }
  void cpu_forked(Task& t, const gpu::Chunk& c) const override;
  bool has_staged_gpu() const override { return true; }
  void gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const override;
  Params params() const noexcept { return p_; }

 private:
  Params p_;
};

// Flat batches, in the ops' layout: `count` items per operand (fixed stride or offsets),
// signatures back to back in signatures_out (count * signature_size(p) bytes), one byte per
// verdict in results_out. Lengths and counts are checked before any work (std::invalid_argument).
gpu::BatchReport sign_batch(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                            std::span<std::uint8_t> signatures_out, gpu::RunOptions opt = {});
gpu::BatchReport sign_batch_deterministic(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                          gpu::Operand rhos, std::span<std::uint8_t> signatures_out,
                                          gpu::RunOptions opt = {});
gpu::BatchReport verify_batch(Task& t, Params p, gpu::Operand public_keys, gpu::Operand messages,
                              gpu::Operand signatures, std::span<std::uint8_t> results_out, gpu::RunOptions opt = {});

namespace detail {
using gpu::rows::as_spans;
using Rows = gpu::rows::Rows;
using OutRows = gpu::rows::OutRows;

// The range forms' common part: packs the rows into the ops' layout, runs the flat batch and
// copies the results out. rhos: null for os_random.
gpu::BatchReport sign_rows(Task& t, Params p, Rows secret_keys, Rows messages, const Rows* rhos, OutRows signatures_out,
                           const gpu::RunOptions& opt);
gpu::BatchReport verify_rows(Task& t, Params p, Rows public_keys, Rows messages, Rows signatures,
                             std::span<std::uint8_t> results_out, const gpu::RunOptions& opt);
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

template <gpu::rows::byte_rows Keys, gpu::rows::byte_rows Msgs, gpu::rows::byte_rows Rhos,
          gpu::rows::writable_rows Sigs>
gpu::BatchReport sign_batch_deterministic(Task& t, Params p, const Keys& secret_keys, const Msgs& messages,
                                          const Rhos& rhos, Sigs& signatures_out, gpu::RunOptions opt = {}) {
  const auto outs = gpu::rows::out_spans(signatures_out, std::size(secret_keys), signature_size(p));
  const auto rho_spans = gpu::rows::as_spans(rhos);
  const detail::Rows rho_rows(rho_spans);
  return detail::sign_rows(t, p, gpu::rows::as_spans(secret_keys), gpu::rows::as_spans(messages), &rho_rows, outs, opt);
}

template <gpu::rows::byte_rows Keys, gpu::rows::byte_rows Msgs, gpu::rows::byte_rows Sigs,
          gpu::rows::flag_range Results>
gpu::BatchReport verify_batch(Task& t, Params p, const Keys& public_keys, const Msgs& messages, const Sigs& signatures,
                              Results& results_out, gpu::RunOptions opt = {}) {
  const std::size_t n = std::size(public_keys);
  if constexpr (requires { results_out.resize(n); }) results_out.resize(n);
  gpu::rows::check_count("tempo::faest::verify_batch", "results_out", std::size(results_out), n);
  std::vector<std::uint8_t> ok(n);
  const gpu::BatchReport report = detail::verify_rows(t, p, gpu::rows::as_spans(public_keys),
                                                      gpu::rows::as_spans(messages), gpu::rows::as_spans(signatures),
                                                      ok, opt);
  std::size_t i = 0;
  for (auto&& r : results_out) r = ok[i++] != 0;
  return report;
}

}  // namespace tempo::faest
