// Public API: parameter sets and names, size checks, keys, single signatures.
#include <tempo/perk.hpp>

#include <cstring>
#include <stdexcept>
#include <string>

#include <tempo/os_random.hpp>
#include <tempo/secure_zero.hpp>

#include "core.hpp"

namespace tempo::perk {
namespace detail {

const ParamSet& param_set(Params p) {
  const auto i = static_cast<std::size_t>(p);
  if (i >= 18) throw std::invalid_argument("tempo::perk: unknown parameter set");
  return param_sets[i];
}

void check_size(const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("tempo::perk: ") + what + " must be " + std::to_string(want) +
                                " bytes, got " + std::to_string(got));
}

namespace {
// t: forks inside the signature, or null for a serial one (the same bytes either way).
void sign_impl(tempo::Task* t, Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
               std::span<const std::uint8_t> rand, std::span<std::uint8_t> out) {
  const ParamSet& ps = param_set(p);
  check_size("secret key", sk.size(), ps.sk_bytes());
  check_size("signature buffer", out.size(), ps.sig_bytes());
  SignOptions opt;
  opt.task = t;
  sign_core(ps, active_kernels(), sk.data(), msg.data(), msg.size(), rand.data(), rand.size(), out.data(), opt);
}
void sign_fresh(tempo::Task* t, Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                std::span<std::uint8_t> out) {
  std::uint8_t rand[2 * max_lambda_bytes];
  Wipe wipe{rand, sizeof rand};
  const std::size_t n = 2 * param_set(p).lambda_bytes;
  tempo::os_random(std::span<std::uint8_t>(rand, n));
  sign_impl(t, p, sk, msg, std::span<const std::uint8_t>(rand, n), out);
}
bool verify_impl(tempo::Task* t, Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                 std::span<const std::uint8_t> sig) {
  const ParamSet& ps = param_set(p);
  check_size("public key", pk.size(), ps.pk_bytes());
  check_size("signature", sig.size(), ps.sig_bytes());
  return verify_core(ps, active_kernels(), pk.data(), msg.data(), msg.size(), sig.data(), nullptr, t);
}
KeyPair keygen_from(Params p, const std::uint8_t* seed) {
  const ParamSet& ps = param_set(p);
  active_kernels();  // TEMPO_PERK_ISA is checked by every call
  ExpandedKey ek;
  expand_key(ps, seed, ek);
  KeyPair kp;
  kp.public_key = ek.pk;
  kp.secret_key = ek.sk;
  return kp;
}
}  // namespace
}  // namespace detail

KeyPair::~KeyPair() { tempo::secure_zero(secret_key); }

std::span<const Params> all_params() {
  static const Params all[18] = {
      Params::perk_1_fast_aes_aes,   Params::perk_1_fast_aes_keccak,   Params::perk_1_fast_keccak_keccak,
      Params::perk_1_short_aes_aes,  Params::perk_1_short_aes_keccak,  Params::perk_1_short_keccak_keccak,
      Params::perk_3_fast_aes_aes,   Params::perk_3_fast_aes_keccak,   Params::perk_3_fast_keccak_keccak,
      Params::perk_3_short_aes_aes,  Params::perk_3_short_aes_keccak,  Params::perk_3_short_keccak_keccak,
      Params::perk_5_fast_aes_aes,   Params::perk_5_fast_aes_keccak,   Params::perk_5_fast_keccak_keccak,
      Params::perk_5_short_aes_aes,  Params::perk_5_short_aes_keccak,  Params::perk_5_short_keccak_keccak};
  return all;
}

std::size_t public_key_size(Params p) { return detail::param_set(p).pk_bytes(); }
std::size_t secret_key_size(Params p) { return detail::param_set(p).sk_bytes(); }
std::size_t signature_size(Params p) { return detail::param_set(p).sig_bytes(); }
std::size_t keygen_seed_size(Params p) { return 3 * std::size_t{detail::param_set(p).lambda_bytes}; }
std::size_t sign_randomness_size(Params p) { return 2 * std::size_t{detail::param_set(p).lambda_bytes}; }
const char* name(Params p) { return detail::param_set(p).name; }

Params parse_params(std::string_view name) {
  auto norm = [](std::string_view s) {
    std::string k;
    for (char c : s) {
      if (c == '_') c = '-';
      k += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    if (k.starts_with("perk-")) k.erase(0, 5);
    return k;
  };
  const std::string key = norm(name);
  std::string list;
  for (Params p : all_params()) {
    if (norm(perk::name(p)) == key) return p;
    list += (list.empty() ? "" : ", ") + std::string(perk::name(p));
  }
  throw std::invalid_argument("unknown PERK parameter set '" + std::string(name) + "' (expected one of: " + list +
                              "; case, '-' and '_' do not matter)");
}

const char* cpu_isa_name() { return detail::active_kernels().name; }

KeyPair keygen(Params p) { return keygen(p, tempo::os_random); }

KeyPair keygen(Params p, const RandomSource& random) {
  const detail::ParamSet& ps = detail::param_set(p);
  std::uint8_t seed[3 * detail::max_lambda_bytes];
  detail::Wipe wipe{seed, sizeof seed};
  for (unsigned i = 0; i < 3; ++i)  // H_seed, perm_seed, kernel seed: three draws, as the package
    random(std::span<std::uint8_t>(seed + i * ps.lambda_bytes, ps.lambda_bytes));
  return detail::keygen_from(p, seed);
}

KeyPair keygen_deterministic(Params p, std::span<const std::uint8_t> seed) {
  detail::check_size("keygen seed", seed.size(), keygen_seed_size(p));
  return detail::keygen_from(p, seed.data());
}

std::vector<std::uint8_t> sign(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg) {
  std::vector<std::uint8_t> sig(signature_size(p));
  detail::sign_fresh(nullptr, p, sk, msg, sig);
  return sig;
}

std::vector<std::uint8_t> sign(tempo::Task& t, Params p, std::span<const std::uint8_t> sk,
                               std::span<const std::uint8_t> msg) {
  std::vector<std::uint8_t> sig(signature_size(p));
  detail::sign_fresh(&t, p, sk, msg, sig);
  return sig;
}

void sign_into(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
               std::span<std::uint8_t> out) {
  detail::sign_fresh(nullptr, p, sk, msg, out);
}

std::vector<std::uint8_t> sign_deterministic(Params p, std::span<const std::uint8_t> sk,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rand) {
  std::vector<std::uint8_t> sig(signature_size(p));
  detail::sign_impl(nullptr, p, sk, msg, rand, sig);
  return sig;
}

std::vector<std::uint8_t> sign_deterministic(tempo::Task& t, Params p, std::span<const std::uint8_t> sk,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rand) {
  std::vector<std::uint8_t> sig(signature_size(p));
  detail::sign_impl(&t, p, sk, msg, rand, sig);
  return sig;
}

void sign_into_deterministic(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                             std::span<const std::uint8_t> rand, std::span<std::uint8_t> out) {
  detail::sign_impl(nullptr, p, sk, msg, rand, out);
}

bool verify(Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> sig) {
  return detail::verify_impl(nullptr, p, pk, msg, sig);
}

bool verify(tempo::Task& t, Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> sig) {
  return detail::verify_impl(&t, p, pk, msg, sig);
}

}  // namespace tempo::perk
