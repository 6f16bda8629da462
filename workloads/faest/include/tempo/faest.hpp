// FAEST-128f and FAEST-128s signatures (FAEST specification v2), byte-identical to the
// reference implementation faest-ref 2.0.5: keys, signatures and the NIST known answers.
//
//   auto kp  = tempo::faest::keygen(Params::faest_128f);              // OS randomness
//   auto sig = tempo::faest::sign(Params::faest_128f, kp.secret_key, msg, rho);
//   bool ok  = tempo::faest::verify(Params::faest_128f, kp.public_key, msg, sig);
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
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

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

// Fills its argument with random bytes (keygen's and sign's randomness source).
using RandomSource = std::function<void(std::span<std::uint8_t>)>;
void os_random(std::span<std::uint8_t> out);  // getrandom(2); throws std::runtime_error on failure

// Key generation as faest-ref does it: draw the 16-byte AES key until its two lowest bits are
// not both set (the keygen rejection rule), then the 16-byte OWF input.
KeyPair keygen(Params p);
KeyPair keygen(Params p, const RandomSource& random);

// rho: the signing randomness (any length; faest-ref draws lambda/8 = 16 bytes).
std::vector<std::uint8_t> sign(Params p, std::span<const std::uint8_t> secret_key,
                               std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rho);
std::vector<std::uint8_t> sign(Params p, std::span<const std::uint8_t> secret_key,
                               std::span<const std::uint8_t> msg);  // rho from os_random
std::vector<std::uint8_t> sign(tempo::Task& t, Params p, std::span<const std::uint8_t> secret_key,
                               std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rho);
// Writes exactly signature_size(p) bytes.
void sign_into(Params p, std::span<const std::uint8_t> secret_key, std::span<const std::uint8_t> msg,
               std::span<const std::uint8_t> rho, std::span<std::uint8_t> signature_out);

bool verify(Params p, std::span<const std::uint8_t> public_key, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> signature);
bool verify(tempo::Task& t, Params p, std::span<const std::uint8_t> public_key,
            std::span<const std::uint8_t> msg, std::span<const std::uint8_t> signature);

// The AES witness (extended key schedule, ell = 1280 bits) of a secret key; exposed for tests.
std::vector<std::uint8_t> extend_witness(Params p, std::span<const std::uint8_t> secret_key);

// Which implementation runs: "vaes+pclmul", "aesni+pclmul" or "portable" (constant-time,
// no tables). TEMPO_FAEST_BACKEND=portable (or aesni) forces a slower one.
const char* cpu_backend_name();

// ---- batches -----------------------------------------------------------------------------
// cpu: the pool (signatures spread by tempo::parallel_for). gpu: the device path through
// tempo::gpu's engine (the VOLE commitment or its reconstruction on the GPU, the rest on the
// pool); throws std::runtime_error when this build has no CUDA or no device is visible,
// never falls back. automatic: the GPU when a device is present and the batch has at least
// 1024 signatures (TEMPO_FAEST_GPU_MIN_BATCH), else the pool. CUDA failures are
// tempo::gpu::CudaError (a std::runtime_error with the CUDA text). Results are
// byte-identical to single calls either way.
enum class Backend { cpu, gpu, automatic };

void sign_batch_spans(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> secret_keys,
                      std::span<const std::span<const std::uint8_t>> messages,
                      std::span<const std::span<const std::uint8_t>> rhos,  // empty: OS randomness
                      std::span<const std::span<std::uint8_t>> signatures_out, Backend backend);
void verify_batch_spans(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> public_keys,
                        std::span<const std::span<const std::uint8_t>> messages,
                        std::span<const std::span<const std::uint8_t>> signatures,
                        std::span<std::uint8_t> results_out, Backend backend);

namespace detail {
template <class R>
std::vector<std::span<const std::uint8_t>> as_spans(const R& r) {
  std::vector<std::span<const std::uint8_t>> v;
  v.reserve(std::size(r));
  for (const auto& x : r) v.emplace_back(std::data(x), std::size(x));
  return v;
}
}  // namespace detail

// Any ranges of byte containers (std::vector<std::uint8_t>, std::span, std::array, ...).
// signatures_out: a container of std::vector<std::uint8_t>, resized to the batch size when it
// can be; results_out: a container of bool-like values, likewise.
template <class Keys, class Msgs, class Sigs>
void sign_batch(tempo::Task& t, Params p, const Keys& secret_keys, const Msgs& messages, Sigs& signatures_out,
                Backend backend = Backend::cpu) {
  const std::size_t n = std::size(secret_keys);
  if constexpr (requires { signatures_out.resize(n); }) signatures_out.resize(n);
  if (std::size(signatures_out) != n)
    throw std::invalid_argument("tempo::faest::sign_batch: signatures_out has the wrong size");
  std::vector<std::span<std::uint8_t>> outs;
  outs.reserve(n);
  for (auto& s : signatures_out) {
    s.resize(signature_size(p));
    outs.emplace_back(s.data(), s.size());
  }
  sign_batch_spans(t, p, detail::as_spans(secret_keys), detail::as_spans(messages), {}, outs, backend);
}

template <class Keys, class Msgs, class Sigs, class Results>
void verify_batch(tempo::Task& t, Params p, const Keys& public_keys, const Msgs& messages, const Sigs& signatures,
                  Results& results_out, Backend backend = Backend::cpu) {
  const std::size_t n = std::size(public_keys);
  if constexpr (requires { results_out.resize(n); }) results_out.resize(n);
  if (std::size(results_out) != n)
    throw std::invalid_argument("tempo::faest::verify_batch: results_out has the wrong size");
  std::vector<std::uint8_t> ok(n);
  verify_batch_spans(t, p, detail::as_spans(public_keys), detail::as_spans(messages), detail::as_spans(signatures),
                     ok, backend);
  std::size_t i = 0;
  for (auto&& r : results_out) r = ok[i++] != 0;
}

}  // namespace tempo::faest
