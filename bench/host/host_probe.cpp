// host_probe: what the machine gives to many threads, with no runtime and no memory traffic.
//
// Each kernel is a register-resident loop (no loads or stores in the loop) of one kind of
// instruction mix. A measurement pins one std::thread per named CPU, releases them together
// and lets them run for a fixed window (--ms), counting the kernel's chunks, so every thread
// runs for the whole window and none finishes early. Per kernel, in three rounds (so that
// the host's drift falls on both): each CPU alone in turn, then all CPUs at once. Printed:
//   alone   the rate of one thread on each CPU (the spread is the host's per-core drift)
//   pair    (--pairs=all or first) CPU a together with CPU b: each one's rate over its rate
//           alone (about 0.5 for two hardware threads of one core on a port-bound kernel)
//   all     every CPU at once: the sum of the rates over the mean rate alone in the same
//           round: what T plain threads give over one on this host for that mix, before any
//           runtime or memory cost
// Kernels: scalar_lat (one chain of 64-bit multiplies: latency-bound), scalar_tp (eight
// independent chains: ALU-bound), avx2_mul (8 chains of 256-bit vpmulld), avx512_mul (8
// chains of 512-bit vpmulld/vpmuludq: the 32-bit NTT's and TFHE's mix), avx512_ifma (8
// chains of vpmadd52luq: the 50-bit NTT's), vaes512 and vpclmul512 (8 chains of 512-bit AES
// rounds / carry-less multiplies); the vector kernels run only where the CPU has them.
//
//   host_probe [--ms=MS] [--pairs=all|first|none] [--kernels=a,b,...]
// One line of JSON per measurement on stdout, a summary per kernel on stderr. x86-64 Linux.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <cpuid.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

using u64 = std::uint64_t;
using Clock = std::chrono::steady_clock;

// Each kernel runs `iters` rounds and returns a value the compiler cannot drop.
u64 scalar_lat(u64 iters, u64 seed) {
  u64 x = seed | 1;
  for (u64 i = 0; i < iters; ++i) x = x * 0x9E3779B97F4A7C15ull + i;
  return x;
}
u64 scalar_tp(u64 iters, u64 seed) {
  u64 x[8];
  for (int k = 0; k < 8; ++k) x[k] = seed + static_cast<u64>(k);
  for (u64 i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) x[k] = x[k] * 0x9E3779B97F4A7C15ull + i;
  u64 r = 0;
  for (int k = 0; k < 8; ++k) r ^= x[k];
  return r;
}
__attribute__((target("avx2"))) u64 avx2_mul(u64 iters, u64 seed) {
  __m256i x[8];
  const __m256i m = _mm256_set1_epi32(0x3B9ACA07);
  for (int k = 0; k < 8; ++k) x[k] = _mm256_set1_epi32(static_cast<int>(seed) + k);
  for (u64 i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) x[k] = _mm256_add_epi32(_mm256_mullo_epi32(x[k], m), m);
  __m256i r = x[0];
  for (int k = 1; k < 8; ++k) r = _mm256_xor_si256(r, x[k]);
  return static_cast<u64>(_mm256_extract_epi64(r, 0));
}
// The 512-bit kernels' eight chains: seeded apart, folded into one word at the end.
__attribute__((target("avx512f"))) inline void seed512(__m512i (&x)[8], u64 seed) {
  for (int k = 0; k < 8; ++k) x[k] = _mm512_set1_epi64(static_cast<long long>(seed) + k);
}
__attribute__((target("avx512f"))) inline u64 fold512(const __m512i (&x)[8]) {
  __m512i r = x[0];
  for (int k = 1; k < 8; ++k) r = _mm512_xor_si512(r, x[k]);
  return static_cast<u64>(_mm_cvtsi128_si64(_mm512_castsi512_si128(r)));
}

__attribute__((target("avx512f"))) u64 avx512_mul(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i m = _mm512_set1_epi32(0x3B9ACA07);
  for (int k = 0; k < 8; ++k) x[k] = _mm512_set1_epi32(static_cast<int>(seed) + k);
  for (u64 i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) {
      const __m512i p = _mm512_mul_epu32(x[k], m);  // the Shoup product's pair: one 64-bit, one low 32-bit
      x[k] = _mm512_add_epi32(_mm512_mullo_epi32(x[k], m), p);
    }
  return fold512(x);
}
__attribute__((target("avx512f,avx512ifma"))) u64 avx512_ifma(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i m = _mm512_set1_epi64(0x000FEDCBA9876543ll);
  seed512(x, seed);
  for (u64 i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) x[k] = _mm512_madd52lo_epu64(m, x[k], m);
  return fold512(x);
}

__attribute__((target("avx512f,vaes"))) u64 vaes512(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i k = _mm512_set1_epi64(0x0F1E2D3C4B5A6978ll);
  seed512(x, seed);
  for (u64 i = 0; i < iters; ++i)
    for (int j = 0; j < 8; ++j) x[j] = _mm512_aesenc_epi128(x[j], k);
  return fold512(x);
}
__attribute__((target("avx512f,vpclmulqdq"))) u64 vpclmul512(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i k = _mm512_set1_epi64(0x0F1E2D3C4B5A6978ll);
  seed512(x, seed);
  for (u64 i = 0; i < iters; ++i)
    for (int j = 0; j < 8; ++j) x[j] = _mm512_xor_si512(_mm512_clmulepi64_epi128(x[j], k, 0x01), k);
  return fold512(x);
}

struct Kernel {
  const char* name;
  u64 (*fn)(u64, u64);
  bool available;
};

std::atomic<u64> g_sink{0};

void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

// The kernel's chunk: iterations that take about 50 us on this CPU, so that a thread checks
// the stop flag often enough and the check costs nothing.
u64 chunk_for(const Kernel& k, int cpu) {
  u64 iters = 64;
  for (;;) {
    double took = 0;
    std::thread w([&] {
      pin(cpu);
      const auto t0 = Clock::now();
      g_sink.fetch_xor(k.fn(iters, 7), std::memory_order_relaxed);
      took = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    });
    w.join();
    if (took > 20) return std::max<u64>(1, static_cast<u64>(static_cast<double>(iters) * 50 / took));
    iters *= 4;
  }
}

// Rates (iterations per microsecond) of one thread per CPU in `cpus`, released together and
// stopped together after `ms`: each thread counts the chunks it finished in the window.
std::vector<double> run(const Kernel& k, const std::vector<int>& cpus, u64 chunk, double ms) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false}, stop{false};
  std::vector<double> rate(cpus.size());
  std::vector<std::thread> ts;
  for (std::size_t i = 0; i < cpus.size(); ++i)
    ts.emplace_back([&, i] {
      pin(cpus[i]);
      ready.fetch_add(1, std::memory_order_acq_rel);
      while (!go.load(std::memory_order_acquire)) {
      }
      const auto t0 = Clock::now();
      u64 done = 0, r = 0;
      while (!stop.load(std::memory_order_relaxed)) r ^= k.fn(chunk, i + done), done += chunk;
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      g_sink.fetch_xor(r, std::memory_order_relaxed);
      rate[i] = static_cast<double>(done) / us;
    });
  while (ready.load(std::memory_order_acquire) < static_cast<int>(cpus.size())) {
  }
  go.store(true, std::memory_order_release);
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
  stop.store(true, std::memory_order_relaxed);
  for (auto& t : ts) t.join();
  return rate;
}

// CPUID leaf 7, sub-leaf 0: ECX bit 9 VAES, bit 10 VPCLMULQDQ (compilers differ in the
// feature names __builtin_cpu_supports accepts).
bool cpuid7_ecx(unsigned bit) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
  return ((c >> bit) & 1u) != 0;
}

std::string join(const std::vector<double>& v) {
  std::string s;
  char b[32];
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::snprintf(b, sizeof b, "%s%.4g", i ? "," : "", v[i]);
    s += b;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  double ms = 40;
  std::string pairs = "none", only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--ms=", 0) == 0) ms = std::atof(a.c_str() + 5);
    else if (a.rfind("--pairs=", 0) == 0) pairs = a.substr(8);
    else if (a.rfind("--kernels=", 0) == 0) only = "," + a.substr(10) + ",";
    else {
      std::fprintf(stderr, "host_probe: unknown argument '%s' (see the header of bench/host/host_probe.cpp)\n", a.c_str());
      return 2;
    }
  }
  if (!(ms > 0 && ms <= 10000) || (pairs != "none" && pairs != "first" && pairs != "all")) {
    std::fprintf(stderr, "host_probe: --ms must be in (0, 10000] and --pairs one of none, first, all\n");
    return 2;
  }
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") != 0;
  const Kernel kernels[] = {
      {"scalar_lat", scalar_lat, true},
      {"scalar_tp", scalar_tp, true},
      {"avx2_mul", avx2_mul, __builtin_cpu_supports("avx2") != 0},
      {"avx512_mul", avx512_mul, avx512},
      {"avx512_ifma", avx512_ifma, avx512 && __builtin_cpu_supports("avx512ifma")},
      {"vaes512", vaes512, avx512 && cpuid7_ecx(9)},
      {"vpclmul512", vpclmul512, avx512 && cpuid7_ecx(10)},
  };
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof(allowed), &allowed);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  const std::size_t n = cpus.size();
  for (const Kernel& k : kernels) {
    if (!k.available || (!only.empty() && only.find(std::string(",") + k.name + ",") == std::string::npos)) continue;
    const u64 chunk = chunk_for(k, cpus[0]);
    std::vector<double> ratios, spread_lo, spread_hi;
    for (int round = 0; round < 3; ++round) {
      std::vector<double> alone(n);
      for (std::size_t i = 0; i < n; ++i) alone[i] = run(k, {cpus[i]}, chunk, ms)[0];
      double mean = 0;
      for (double r : alone) mean += r / static_cast<double>(n);
      std::printf("{\"kind\":\"alone\",\"kernel\":\"%s\",\"round\":%d,\"rates\":[%s]}\n", k.name, round,
                  join(alone).c_str());
      const auto all = run(k, cpus, chunk, ms);
      double sum = 0;
      for (double x : all) sum += x;
      ratios.push_back(sum / mean);
      spread_lo.push_back(*std::min_element(alone.begin(), alone.end()));
      spread_hi.push_back(*std::max_element(alone.begin(), alone.end()));
      std::printf("{\"kind\":\"all\",\"kernel\":\"%s\",\"round\":%d,\"threads\":%zu,\"rates\":[%s],"
                  "\"sum_over_alone\":%.3f}\n",
                  k.name, round, n, join(all).c_str(), sum / mean);
      if (round == 0 && pairs != "none") {
        for (std::size_t a = 0; a < n; ++a)
          for (std::size_t b = a + 1; b < n; ++b) {
            if (pairs == "first" && a != 0) break;
            const auto r = run(k, {cpus[a], cpus[b]}, chunk, ms);
            std::printf("{\"kind\":\"pair\",\"kernel\":\"%s\",\"cpus\":[%d,%d],\"share\":[%.3f,%.3f]}\n", k.name,
                        cpus[a], cpus[b], r[0] / alone[a], r[1] / alone[b]);
          }
      }
      std::fflush(stdout);
    }
    std::sort(ratios.begin(), ratios.end());
    std::fprintf(stderr, "%-12s alone %.4g..%.4g /us; %zu at once: %.2fx one [%.2f, %.2f] (3 rounds)\n", k.name,
                 *std::min_element(spread_lo.begin(), spread_lo.end()),
                 *std::max_element(spread_hi.begin(), spread_hi.end()), n, ratios[1], ratios[0], ratios[2]);
  }
  return g_sink.load() == 42 ? 1 : 0;  // never in practice: keeps the kernels' results alive
}
