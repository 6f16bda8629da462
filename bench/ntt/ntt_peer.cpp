// ntt_peer: tempo::ntt timed with the method of the Intel HEXL NTT driver of the peers
// folder (its hexl_ntt), so that the two print comparable lines. For each (n, bits) below,
// q is the largest prime q = 1 (mod 2n) under 2^bits and the Plan is Plan(n, q) (the
// smallest primitive 2n-th root, as HEXL picks); each row is the median over REPS runs of
// 16 transforms, after WARM discarded transforms of each. The two rows' runs alternate (tempo,
// tempo-unchecked, then the other way round), so that their ratio is taken under the same
// host speed.
//
//   tempo           the public API as a user writes it: plan.forward(x) / plan.inverse(x) on
//                   a std::vector<uint64_t>, in place (checks the length and every value;
//                   HEXL's ComputeForward is out of place and checks nothing)
//   tempo-unchecked the same kernel without the value scan: forward_unchecked on the Plan
//                   bound to the same path (detail::with_cpu_path), so that checked /
//                   unchecked shows what the public call costs
//
// Configs: HEXL's (1024,27) (1024,50) (2048,50) (1024,60) (2048,60), plus (2048,27) (HEXL
// does not time it; its IFMA path costs the same for any q < 2^50, so scripts/device/
// ntt_peers.sh compares it with HEXL's n=2048 bits=50 row) and ML-DSA (n=256, q=8380417,
// psi=1753: Plan::preset("MLDSA"), printed with bits=23).
//
// Output, one line per row (lines starting with '#' are information):
//   tempo n=1024 bits=27 q=134215681 path=avx512-q30 fwd_us=0.812 inv_us=0.790 correct=yes
// correct: inverse(forward(x)) == x, forward is negacyclic (X^(n-1) * b, as HEXL's driver
// checks), and the unchecked kernel gives the same bytes. Exit status 1 when a row is NO.
//
// Env: REPS (default 2001), WARM (default 2000), TEMPO_PEER_ONLY: a comma-separated subset of
// n1024_q27 n2048_q27 n1024_q50 n2048_q50 n1024_q60 n2048_q60 mldsa (case-insensitive; default
// all; an unknown name exits 2), TEMPO_NTT_ISA (caps the path, as for any Plan).
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/ntt.hpp>
#include <tempo/ntt/detail/cpu_paths.hpp>

namespace ntt = tempo::ntt;
using u64 = std::uint64_t;
using Clock = std::chrono::steady_clock;

namespace {

volatile u64 g_sink;

// Two callables' medians from interleaved samples (f, g, then g, f, alternating), so that
// the host's drift falls on both alike: the checked call against the unchecked kernel.
template <class F, class G>
std::pair<double, double> paired_median_us(F&& f, G&& g, int warm, int reps, int inner) {
  for (int i = 0; i < warm; ++i) f(), g();
  std::vector<double> tf(static_cast<std::size_t>(reps)), tg(tf.size());
  const auto sample = [inner](auto& h) {
    const auto a = Clock::now();
    for (int i = 0; i < inner; ++i) h();
    return std::chrono::duration<double, std::micro>(Clock::now() - a).count() / inner;
  };
  for (std::size_t r = 0; r < tf.size(); ++r) {
    if (r % 2 == 0) tf[r] = sample(f), tg[r] = sample(g);
    else tg[r] = sample(g), tf[r] = sample(f);
  }
  const auto median = [](std::vector<double>& t) {
    const auto mid = t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2);
    std::nth_element(t.begin(), mid, t.end());
    return *mid;
  };
  return {median(tf), median(tg)};
}

// q: the largest prime q = 1 (mod 2n) below 2^bits, the prime HEXL's driver prints for the
// same (n, bits) (its GeneratePrimes(1, bits - 1, false, n)); Plan(n, q) checks primality.
struct Config {
  std::string name;  // for TEMPO_PEER_ONLY
  std::size_t n;
  unsigned bits;
  u64 q;
  bool mldsa;
};

std::string lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

// TEMPO_PEER_ONLY's names (lower case); empty: every config.
std::vector<std::string> only_names() {
  std::vector<std::string> names;
  const char* only = std::getenv("TEMPO_PEER_ONLY");
  std::string_view rest(only ? only : "");
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    if (std::string item = lower(rest.substr(0, comma)); !item.empty()) names.push_back(item);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return names;
}

int env_int(const char* name, int fallback, unsigned long long min) {
  return static_cast<int>(tempo::env_integer(name, min, 1000000000ULL).value_or(static_cast<unsigned long long>(fallback)));
}

// inverse(forward(x)) == x, and forward(X^(n-1) * b mod X^n + 1) == forward(X^(n-1)) .* forward(b).
bool check(const ntt::Plan& plan, const ntt::Plan& raw, std::mt19937_64& rng) {
  const std::size_t n = plan.n();
  const u64 q = plan.q();
  std::vector<u64> x(n), y, z;
  for (auto& v : x) v = rng() % q;
  y = x;
  plan.forward(y);
  z = y;
  plan.inverse(z);
  bool ok = z == x;
  std::vector<u64> y2 = x, z2 = y;
  raw.forward_unchecked(y2);
  raw.inverse_unchecked(z2);
  ok = ok && y2 == y && z2 == x;

  std::vector<u64> a(n, 0), b(n), ab(n, 0), prod(n);
  a[n - 1] = 1;
  for (auto& v : b) v = rng() % q;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t k = i + n - 1;
    if (k < n) ab[k] = b[i];
    else ab[k - n] = (q - b[i]) % q;
  }
  plan.forward(a);
  plan.forward(b);
  plan.forward(ab);
  plan.pointwise(a, b, prod);
  return ok && prod == ab;
}

}  // namespace

int main() try {
  const int reps = env_int("REPS", 2001, 1);
  const int warm = env_int("WARM", 2000, 0);
  constexpr int inner = 16;
  const Config configs[] = {{"n1024_q27", 1024, 27, 134215681, false},
                            {"n2048_q27", 2048, 27, 134176769, false},
                            {"n1024_q50", 1024, 50, 1125899906826241ull, false},
                            {"n2048_q50", 2048, 50, 1125899906826241ull, false},
                            {"n1024_q60", 1024, 60, 1152921504606830593ull, false},
                            {"n2048_q60", 2048, 60, 1152921504606830593ull, false},
                            {"mldsa", 256, 23, 8380417, true}};
  const std::vector<std::string> only = only_names();
  for (const std::string& name : only) {
    if (std::none_of(std::begin(configs), std::end(configs), [&](const Config& c) { return c.name == name; })) {
      std::fprintf(stderr, "ntt_peer: TEMPO_PEER_ONLY names '%s'; the configs are", name.c_str());
      for (const Config& c : configs) std::fprintf(stderr, " %s", c.name.c_str());
      std::fprintf(stderr, "\n");
      return 2;
    }
  }
  std::printf("# tempo ntt_peer reps=%d warm=%d inner=%d cpu_avx512ifma=%d TEMPO_NTT_ISA=%s in_place=yes\n", reps,
              warm, inner, static_cast<int>(!!__builtin_cpu_supports("avx512ifma")),
              std::getenv("TEMPO_NTT_ISA") ? std::getenv("TEMPO_NTT_ISA") : "");
  bool all_ok = true;
  for (const Config& c : configs) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    const u64 q = c.q;
    if (q >= (u64{1} << c.bits) || q % (2 * c.n) != 1) {
      std::printf("bad prime for n=%zu bits=%u\n", c.n, c.bits);
      return 2;
    }
    const ntt::Plan plan = c.mldsa ? ntt::Plan::preset("MLDSA") : ntt::Plan(c.n, q);
    const ntt::Plan raw = ntt::detail::with_cpu_path(plan, plan.cpu_path());
    std::mt19937_64 rng(12345 + c.n + c.bits);
    const bool ok = check(plan, raw, rng);
    all_ok = all_ok && ok;

    std::vector<u64> x(c.n);
    for (auto& v : x) v = rng() % q;
    // In place: each call transforms the previous call's output (always in [0, q), so the
    // checked calls accept it); the work does not depend on the values. The public (checked)
    // call and the raw kernel are sampled alternately.
    const auto [f_chk, f_raw] = paired_median_us([&] { plan.forward(x); g_sink = x[1]; },
                                                 [&] { raw.forward_unchecked(x); g_sink = x[1]; }, warm, reps, inner);
    const auto [i_chk, i_raw] = paired_median_us([&] { plan.inverse(x); g_sink = x[1]; },
                                                 [&] { raw.inverse_unchecked(x); g_sink = x[1]; }, warm, reps, inner);
    const auto row = [&](const char* who, double f, double i) {
      std::printf("%s n=%zu bits=%u q=%llu path=%.*s fwd_us=%.3f inv_us=%.3f correct=%s\n", who, c.n, c.bits,
                  static_cast<unsigned long long>(q), static_cast<int>(plan.cpu_path().size()),
                  plan.cpu_path().data(), f, i, ok ? "yes" : "NO");
      std::fflush(stdout);
    };
    row("tempo", f_chk, i_chk);
    row("tempo-unchecked", f_raw, i_raw);
  }
  return all_ok ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "ntt_peer: %s\n", e.what());
  return 2;
}
