// Public API: parameter checks, keys, the AES witness, the instruction-set choice, single
// signatures. Batches: batch.cpp.
#include <tempo/faest.hpp>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tempo/voleith/isa.hpp>
#include <tempo/env.hpp>
#include <tempo/os_random.hpp>
#include <tempo/tempo.hpp>

#include "backend.hpp"
#include "common.hpp"
#include "stages.hpp"

namespace tempo::faest {
namespace detail {

const ParamSet& param_set(Params p) {
  switch (p) {
    case Params::faest_128f: return params_128f;
    case Params::faest_128s: return params_128s;
  }
  throw std::invalid_argument("tempo::faest: unknown parameter set");
}

std::atomic<bool> stage_timing_on{false};

namespace {

// The calling thread's CPU time where the OS gives it (a shared, loaded machine then still
// shows what one signature costs), else wall-clock time. In microseconds.
double stage_now_us() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) * 1e-3;
#else
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
}
constexpr unsigned n_stages = unsigned(Stage::count);
constexpr const char* stage_names[n_stages] = {"front",       "tree",      "leaves",      "com_hash",
                                               "vole",        "vole_hash", "quicksilver", "grind_open"};

// Sums over every recorded call, printed when the process exits.
struct StageTotals {
  std::mutex m;
  std::array<std::array<double, n_stages>, 4> us{};  // [op * 2 + is_128f][stage]
  std::array<unsigned long, 4> calls{};
  ~StageTotals() {
    for (unsigned k = 0; k < 4; ++k) {
      if (calls[k] == 0) continue;
      double total = 0;
      for (double v : us[k]) total += v;
      std::fprintf(stderr, "tempo::faest stages: %s %s, mean us over %lu calls:", k / 2 ? "verify" : "sign",
                   k % 2 ? "FAEST-128f" : "FAEST-128s", calls[k]);
      for (unsigned s = 0; s < n_stages; ++s) std::fprintf(stderr, " %s %.1f", stage_names[s], us[k][s] / double(calls[k]));
      std::fprintf(stderr, " total %.1f\n", total / double(calls[k]));
    }
  }
};
StageTotals& stage_totals() {
  static StageTotals totals;
  return totals;
}

struct StageRun {
  bool active = false;
  unsigned key = 0;
  double last = 0;
  std::array<double, n_stages> us{};
};
thread_local StageRun stage_run;

}  // namespace

void stage_begin_impl(TimedOp op, bool is_128f) {
  stage_totals();  // constructed before first use, so destroyed (and printed) after it
  stage_run = StageRun{true, unsigned(op) * 2 + unsigned(is_128f), stage_now_us(), {}};
}
void stage_mark_impl(Stage s) {
  if (!stage_run.active) return;
  const double now = stage_now_us();
  stage_run.us[unsigned(s)] += now - stage_run.last;
  stage_run.last = now;
}
void stage_end_impl() {
  if (!stage_run.active) return;
  stage_run.active = false;
  StageTotals& tot = stage_totals();
  const std::lock_guard<std::mutex> lock(tot.m);
  for (unsigned s = 0; s < n_stages; ++s) tot.us[stage_run.key][s] += stage_run.us[s];
  ++tot.calls[stage_run.key];
}

const BackendOps& active_backend() {
  static const BackendOps* const vaes = vaes_backend();
  static const BackendOps* const ni = ni_backend();
  stage_timing_on.store(tempo::env_flag("TEMPO_FAEST_STAGES").value_or(false), std::memory_order_relaxed);
  // Read at every call, as every TEMPO_* variable: a getenv per signature is noise.
  return voleith::choose("TEMPO_FAEST_ISA", vaes, ni, portable_backend());
}

void check_size(const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("tempo::faest: ") + what + " must be " + std::to_string(want) +
                                " bytes, got " + std::to_string(got));
}

namespace {

// AES-128 of one block, constant time (the OWF: key secret, input public).
void owf(const std::uint8_t key[16], const std::uint8_t in[16], std::uint8_t out[16]) {
  std::uint8_t rk[176];
  ct::expand_keys(ct::aes128, key, 1, rk);
  std::memcpy(out, in, 16);
  ct::encrypt_blocks(ct::aes128, rk, 176, out, 1);
  secure_zero(rk, sizeof rk);
}

std::uint8_t gf8_pow238(std::uint8_t x) {  // 238 = 0b11101110
  std::uint8_t y = ct::gf8_mul(x, x);  // x^2
  x = ct::gf8_mul(y, y);               // x^4
  y = ct::gf8_mul(x, y);               // x^6
  x = ct::gf8_mul(x, x);               // x^8
  y = ct::gf8_mul(x, y);               // x^14
  x = ct::gf8_mul(x, x);               // x^16
  x = ct::gf8_mul(x, x);               // x^32
  y = ct::gf8_mul(x, y);               // x^46
  x = ct::gf8_mul(x, x);               // x^64
  y = ct::gf8_mul(x, y);               // x^110
  x = ct::gf8_mul(x, x);               // x^128
  return ct::gf8_mul(x, y);            // x^238
}
// The inverse norm N(x)^-1 = x^-17 = x^238, as 4 bits (faest-ref aes.c invnorm).
std::uint8_t invnorm(std::uint8_t in) {
  const std::uint8_t y = gf8_pow238(in);
  return std::uint8_t((y & 1) | ((y >> 6) & 1) << 1 | ((y >> 7) & 1) << 2 | ((y >> 2) & 1) << 3);
}

// The extended witness (FAEST v2 Algorithm "ExtendWitness", faest-ref aes_extend_witness):
// key, the first word of round keys 1..10, then for rounds 1..9 the inverse norms of the
// S-box inputs (odd rounds) or the state after ShiftRows (even rounds).
void extend(const std::uint8_t key[16], const std::uint8_t in[16], std::uint8_t w[ell_bytes]) {
  std::uint8_t rk[176], s[16];
  ct::expand_keys(ct::aes128, key, 1, rk);
  std::memcpy(w, key, 16);
  for (unsigned j = 0; j < 10; ++j) std::memcpy(w + 16 + 4 * j, rk + 16 * (j + 1), 4);
  std::uint8_t* o = w + lke_bytes;
  xor_bytes(s, in, rk, 16);
  for (unsigned round = 1; round < 10; ++round) {
    if (round % 2 == 1)
      for (unsigned i = 0; i < 16; i += 2) *o++ = std::uint8_t(invnorm(s[i]) | invnorm(s[i + 1]) << 4);
    ct::sub_bytes(s, 16);
    ct::shift_rows(s);
    if (round % 2 == 0) {
      std::memcpy(o, s, 16);
      o += 16;
    }
    ct::mix_columns(s);
    for (unsigned b = 0; b < 16; ++b) s[b] ^= rk[16 * round + b];
  }
  secure_zero(rk, sizeof rk);
  secure_zero(s, sizeof s);
}

// Keygen's rejection rule: the two lowest bits of the AES key may not both be set.
bool key_allowed(const std::uint8_t* key) { return (key[0] & 3) != 3; }

// Unpacks a secret key into pk (32 B) and the witness; throws for a malformed key.
void unpack(Params p, std::span<const std::uint8_t> sk, std::uint8_t pk[32], std::uint8_t w[ell_bytes]) {
  param_set(p);
  check_size("secret key", sk.size(), 32);
  if (!key_allowed(sk.data() + 16))
    throw std::invalid_argument("tempo::faest: malformed secret key (AES key bits 0 and 1 both set)");
  std::memcpy(pk, sk.data(), 16);
  if (const auto fast = active_backend().owf_witness) {
    fast(sk.data() + 16, sk.data(), pk + 16, w);
    return;
  }
  owf(sk.data() + 16, sk.data(), pk + 16);
  extend(sk.data() + 16, sk.data(), w);
}

}  // namespace

void sign_impl(tempo::Task* t, Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
               std::span<const std::uint8_t> rho, std::span<std::uint8_t> out) {
  const ParamSet& ps = param_set(p);
  check_size("signature buffer", out.size(), ps.sig_size);
  const BackendOps& isa = active_backend();
  std::uint8_t pk[32], w[ell_bytes];
  unpack(p, sk, pk, w);
  isa.sign(t, ps, pk, sk.data() + 16, w, msg.data(), msg.size(), rho.data(), rho.size(), out.data());
  secure_zero(w, sizeof w);
}

bool verify_impl(tempo::Task* t, Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                 std::span<const std::uint8_t> sig) {
  const ParamSet& ps = param_set(p);
  check_size("public key", pk.size(), 32);
  check_size("signature", sig.size(), ps.sig_size);
  return active_backend().verify(t, ps, pk.data(), msg.data(), msg.size(), sig.data());
}

void unpack_secret_key(Params p, std::span<const std::uint8_t> sk, std::uint8_t pk[32], std::uint8_t w[ell_bytes]) {
  unpack(p, sk, pk, w);
}

}  // namespace detail

KeyPair::~KeyPair() { tempo::secure_zero(secret_key); }

std::size_t public_key_size(Params p) { return detail::param_set(p), 32; }
std::size_t secret_key_size(Params p) { return detail::param_set(p), 32; }
std::size_t signature_size(Params p) { return detail::param_set(p).sig_size; }
const char* name(Params p) { return p == Params::faest_128f ? "FAEST-128f" : (detail::param_set(p), "FAEST-128s"); }
Params parse_params(std::string_view name) {
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_') key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (key.starts_with("faest")) key.erase(0, 5);
  if (key == "128f") return Params::faest_128f;
  if (key == "128s") return Params::faest_128s;
  throw std::invalid_argument("unknown FAEST parameter set '" + std::string(name) +
                              "' (expected one of: 128f, 128s, FAEST-128f, FAEST-128s)");
}

const char* cpu_isa_name() { return detail::active_backend().name; }

KeyPair keygen(Params p) { return keygen(p, tempo::os_random); }

KeyPair keygen(Params p, const RandomSource& random) {
  detail::param_set(p);
  KeyPair kp;
  kp.secret_key.assign(32, 0);
  kp.public_key.assign(32, 0);
  std::uint8_t* key = kp.secret_key.data() + 16;
  do {
    random(std::span<std::uint8_t>(key, 16));
  } while (!detail::key_allowed(key));  // a rejected key is discarded, so this leaks nothing kept
  random(std::span<std::uint8_t>(kp.secret_key.data(), 16));
  std::memcpy(kp.public_key.data(), kp.secret_key.data(), 16);
  detail::owf(key, kp.secret_key.data(), kp.public_key.data() + 16);
  return kp;
}

std::vector<std::uint8_t> extend_witness(Params p, std::span<const std::uint8_t> secret_key) {
  std::uint8_t pk[32];
  std::vector<std::uint8_t> w(detail::ell_bytes);
  detail::unpack(p, secret_key, pk, w.data());
  return w;
}

void sign_into_deterministic(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                             std::span<const std::uint8_t> rho, std::span<std::uint8_t> out) {
  detail::sign_impl(nullptr, p, sk, msg, rho, out);
}

std::vector<std::uint8_t> sign_deterministic(Params p, std::span<const std::uint8_t> sk,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rho) {
  std::vector<std::uint8_t> sig(signature_size(p));
  detail::sign_impl(nullptr, p, sk, msg, rho, sig);
  return sig;
}

std::vector<std::uint8_t> sign_deterministic(tempo::Task& t, Params p, std::span<const std::uint8_t> sk,
                                             std::span<const std::uint8_t> msg, std::span<const std::uint8_t> rho) {
  std::vector<std::uint8_t> sig(signature_size(p));
  detail::sign_impl(&t, p, sk, msg, rho, sig);
  return sig;
}

namespace {
// One signature with 16 bytes of fresh rho, wiped afterwards.
void sign_fresh(tempo::Task* t, Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                std::span<std::uint8_t> out) {
  std::uint8_t rho[16];
  tempo::os_random(rho);
  detail::Wipe<decltype(rho)> wipe{rho};
  detail::sign_impl(t, p, sk, msg, rho, out);
}
}  // namespace

void sign_into(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
               std::span<std::uint8_t> out) {
  sign_fresh(nullptr, p, sk, msg, out);
}

std::vector<std::uint8_t> sign(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg) {
  std::vector<std::uint8_t> sig(signature_size(p));
  sign_fresh(nullptr, p, sk, msg, sig);
  return sig;
}

std::vector<std::uint8_t> sign(tempo::Task& t, Params p, std::span<const std::uint8_t> sk,
                               std::span<const std::uint8_t> msg) {
  std::vector<std::uint8_t> sig(signature_size(p));
  sign_fresh(&t, p, sk, msg, sig);
  return sig;
}

bool verify(Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> sig) {
  return detail::verify_impl(nullptr, p, pk, msg, sig);
}
bool verify(tempo::Task& t, Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
            std::span<const std::uint8_t> sig) {
  return detail::verify_impl(&t, p, pk, msg, sig);
}

}  // namespace tempo::faest
