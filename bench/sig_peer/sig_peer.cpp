// sig_peer: tempo's signature families timed the way the peers folder's drivers time theirs
// (faest_bench.c, the PERK team's benchmark): one thread, a fresh key pair per iteration
// (OS randomness), a 32-byte message, keygen / sign / verify each timed on its own, medians
// over N iterations after WARM warm-ups; sign draws its randomness from the OS, as a user's
// call does. scripts/device/sig_peers.sh runs it beside the peers on one pinned core.
//
//   sig_peer [SET...]          SET: any name tempo::faest::parse_params or
//                              tempo::perk::parse_params takes (default: perk-1-fast-aes_aes
//                              perk-1-short-aes_aes faest-128f faest-128s)
//   env N (default 200; 40 for short/s sets), WARM (default 3)
//
// One line per set: "tempo <name> sign_ms=... verify_ms=... keygen_ms=... p99_sign_ms=...
// p99_verify_ms=... n=... verify_failures=...". Exit status 1 when a signature does not
// verify or a corrupted one does (the check the peers' drivers make).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/faest.hpp>
#include <tempo/perk.hpp>

namespace {

using Bytes = std::vector<std::uint8_t>;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

// One set, through its family's keygen / sign / verify.
template <class Keygen, class Sign, class Verify>
int measure(const std::string& name, bool small_set, Keygen keygen, Sign sign, Verify verify) {
  const long n = static_cast<long>(tempo::env_integer("N", 1, 1000000).value_or(small_set ? 40 : 200));
  const long warm = static_cast<long>(tempo::env_integer("WARM", 0, 1000000).value_or(3));
  std::vector<double> tk, ts, tv;
  int failures = 0;
  Bytes msg(32);
  for (long i = -warm; i < n; ++i) {
    for (std::size_t j = 0; j < msg.size(); ++j) msg[j] = static_cast<std::uint8_t>(i * 31 + static_cast<long>(j));
    auto t0 = Clock::now();
    const auto kp = keygen();
    const double k_ms = ms_since(t0);
    t0 = Clock::now();
    Bytes sig = sign(kp.secret_key, msg);
    const double s_ms = ms_since(t0);
    t0 = Clock::now();
    const bool ok = verify(kp.public_key, msg, sig);
    const double v_ms = ms_since(t0);
    if (!ok) ++failures;
    if (i == 0) {  // a corrupted signature must be rejected
      sig[sig.size() / 2] ^= 1;
      if (verify(kp.public_key, msg, sig)) ++failures;
    }
    if (i >= 0) {
      tk.push_back(k_ms);
      ts.push_back(s_ms);
      tv.push_back(v_ms);
    }
  }
  std::printf("tempo %s sign_ms=%.4f verify_ms=%.4f keygen_ms=%.4f p99_sign_ms=%.4f p99_verify_ms=%.4f n=%ld "
              "verify_failures=%d\n",
              name.c_str(), quantile(ts, 0.5), quantile(tv, 0.5), quantile(tk, 0.5), quantile(ts, 0.99),
              quantile(tv, 0.99), n, failures);
  std::fflush(stdout);
  return failures ? 1 : 0;
}

int run_set(const std::string& set) {
  try {
    const tempo::perk::Params p = tempo::perk::parse_params(set);
    const std::string nm = tempo::perk::name(p);
    return measure(
        nm, nm.find("short") != std::string::npos, [&] { return tempo::perk::keygen(p); },
        [&](const Bytes& sk, const Bytes& m) { return tempo::perk::sign(p, sk, m); },
        [&](const Bytes& pk, const Bytes& m, const Bytes& s) { return tempo::perk::verify(p, pk, m, s); });
  } catch (const std::invalid_argument&) {
  }
  const tempo::faest::Params p = tempo::faest::parse_params(set);  // throws for an unknown name
  const std::string nm = tempo::faest::name(p);
  return measure(
      nm, nm.back() == 's', [&] { return tempo::faest::keygen(p); },
      [&](const Bytes& sk, const Bytes& m) { return tempo::faest::sign(p, sk, m); },
      [&](const Bytes& pk, const Bytes& m, const Bytes& s) { return tempo::faest::verify(p, pk, m, s); });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sets(argv + 1, argv + argc);
  if (sets.empty()) sets = {"perk-1-fast-aes_aes", "perk-1-short-aes_aes", "faest-128f", "faest-128s"};
  int status = 0;
  try {
    for (const auto& s : sets) status |= run_set(s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sig_peer: %s\n", e.what());
    return 2;
  }
  return status;
}
