// tfhe_peer: tempo::tfhe timed with the method of the TFHE library's gate driver of the peers
// folder (its tfhe_gate), so that the two print comparable lines: keys once, GATES + WARM
// pairs of fresh encryptions of random bits, one NAND per pair through the public API
// (eval_gate on a one-thread pool, as a user writes it), each gate timed on its own, the
// first WARM discarded; the median, mean and minimum over the rest. Every output is decrypted
// and checked against the plain NAND.
//
// Output (lines starting with '#' are information):
//   tempo gate_ms=12.345 mean_ms=12.400 min_ms=12.100 gates=200 keygen_ms=800.0 params=PN10QP27 decrypt_errors=0/210
// Exit status 1 when a gate decrypts wrong, 2 on an error.
//
// Env: GATES (default 200), WARM (default 10), TEMPO_TFHE_PARAMS (default PN10QP27).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/tfhe.hpp>

namespace tfhe = tempo::tfhe;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

int env_int(const char* name, int fallback, unsigned long long min) {
  return static_cast<int>(tempo::env_integer(name, min, 1000000ULL).value_or(static_cast<unsigned long long>(fallback)));
}

}  // namespace

int main() try {
  const int gates = env_int("GATES", 200, 1);
  const int warm = env_int("WARM", 10, 0);
  const char* set = std::getenv("TEMPO_TFHE_PARAMS");
  const tfhe::Params params = tfhe::Params::preset(set != nullptr && *set != '\0' ? set : "PN10QP27");
  tempo::ThreadPool pool(tempo::Options{.threads = 1});

  const auto k0 = Clock::now();
  const tfhe::Keys keys = pool.run([&](tempo::Task& t) { return tfhe::keygen(t, params); });
  const auto k1 = Clock::now();
  std::printf("# tempo tfhe params=%.*s n=%zu N=%zu log2Q=%u levels=%u log_bg=%u ks_levels=%u log_bks=%u secure=%d\n",
              static_cast<int>(params.name.size()), params.name.data(), params.n, params.N,
              static_cast<unsigned>(64 - __builtin_clzll(params.Q)), params.levels, params.log_bg, params.ks_levels,
              params.log_bks, static_cast<int>(params.secure));

  const int total = gates + warm;
  std::mt19937 rng(42);
  std::vector<bool> a(static_cast<std::size_t>(total)), b(static_cast<std::size_t>(total));
  std::vector<tfhe::Ciphertext> ca, cb, cr(static_cast<std::size_t>(total));
  for (int i = 0; i < total; ++i) {
    a[static_cast<std::size_t>(i)] = (rng() & 1) != 0;
    b[static_cast<std::size_t>(i)] = (rng() & 1) != 0;
    ca.push_back(tfhe::encrypt_bit(keys.secret, a[static_cast<std::size_t>(i)]));
    cb.push_back(tfhe::encrypt_bit(keys.secret, b[static_cast<std::size_t>(i)]));
  }
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(gates));
  for (int i = 0; i < total; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    const auto s = Clock::now();
    cr[k] = pool.run([&](tempo::Task& task) { return tfhe::eval_gate(task, keys.evaluation, tfhe::Gate::nand, ca[k], cb[k]); });
    const auto e = Clock::now();
    if (i >= warm) t.push_back(ms(s, e));
  }
  int errors = 0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(total); ++k)
    if (tfhe::decrypt_bit(keys.secret, cr[k]) != !(a[k] && b[k])) ++errors;
  double sum = 0;
  for (const double x : t) sum += x;
  std::sort(t.begin(), t.end());
  std::printf("tempo gate_ms=%.3f mean_ms=%.3f min_ms=%.3f gates=%d keygen_ms=%.1f params=%.*s decrypt_errors=%d/%d\n",
              t[t.size() / 2], sum / static_cast<double>(t.size()), t[0], gates, ms(k0, k1),
              static_cast<int>(params.name.size()), params.name.data(), errors, total);
  return errors == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tfhe_peer: %s\n", e.what());
  return 2;
}
