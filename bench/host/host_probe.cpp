// host_probe: what the machine gives to many threads, with no runtime and no memory traffic.
//
// Each kernel is a register-resident loop (no loads or stores in the loop) of one kind of
// instruction mix; a run pins one std::thread per named CPU, releases them together and
// times each thread's own loop. Printed per kernel:
//   alone   the rate of one thread on each CPU in turn (the spread is the host's per-core drift)
//   pairs   CPU a together with CPU b: each one's rate over its rate alone (about 0.5 for two
//           hardware threads of one core on a port-bound kernel, about 1 for separate cores)
//   all     every CPU at once: the sum of the rates over the mean rate alone (the ceiling of
//           any T-thread/one-thread ratio on this host for that instruction mix)
// Kernels: scalar_lat (one chain of 64-bit multiplies: latency-bound), scalar_tp (eight
// independent chains: ALU-throughput-bound), avx2_mul (8 chains of 256-bit vpmulld),
// avx512_mul (8 chains of 512-bit vpmulld/vpmuludq, the 32-bit NTT's mix), avx512_ifma
// (8 chains of vpmadd52luq, the 50/60-bit NTT's mix), vaes512 and vpclmul512 (8 chains of
// 512-bit AES rounds / carry-less multiplies, the signature families' mix); the vector
// kernels run only where the CPU has the instructions.
//
//   host_probe [--ms=MS] [--pairs=all|first] [--kernels=a,b,...]
// One line of JSON per measurement on stdout (kind, kernel, cpus, rates), a summary on stderr.
// GCC 12's intrinsic headers initialise their placeholder operands from themselves, which its
// own -Wuninitialized reports where the intrinsics inline (target attributes, no -mavx512f).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
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
__attribute__((target("avx512f"))) u64 avx512_mul(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i m = _mm512_set1_epi32(0x3B9ACA07);
  for (int k = 0; k < 8; ++k) x[k] = _mm512_set1_epi32(static_cast<int>(seed) + k);
  for (u64 i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) {
      const __m512i p = _mm512_mul_epu32(x[k], m);  // the Shoup product's pair: one 64-bit, one low 32-bit
      x[k] = _mm512_add_epi32(_mm512_mullo_epi32(x[k], m), p);
    }
  __m512i r = x[0];
  for (int k = 1; k < 8; ++k) r = _mm512_xor_si512(r, x[k]);
  return static_cast<u64>(_mm_cvtsi128_si64(_mm512_castsi512_si128(r)));
}
__attribute__((target("avx512f,avx512ifma"))) u64 avx512_ifma(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i m = _mm512_set1_epi64(0x000FEDCBA9876543ll);
  for (int k = 0; k < 8; ++k) x[k] = _mm512_set1_epi64(static_cast<long long>(seed) + k);
  for (u64 i = 0; i < iters; ++i)
    for (int k = 0; k < 8; ++k) x[k] = _mm512_madd52lo_epu64(m, x[k], m);
  __m512i r = x[0];
  for (int k = 1; k < 8; ++k) r = _mm512_xor_si512(r, x[k]);
  return static_cast<u64>(_mm_cvtsi128_si64(_mm512_castsi512_si128(r)));
}

__attribute__((target("avx512f,vaes"))) u64 vaes512(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i k = _mm512_set1_epi64(0x0F1E2D3C4B5A6978ll);
  for (int j = 0; j < 8; ++j) x[j] = _mm512_set1_epi64(static_cast<long long>(seed) + j);
  for (u64 i = 0; i < iters; ++i)
    for (int j = 0; j < 8; ++j) x[j] = _mm512_aesenc_epi128(x[j], k);
  __m512i r = x[0];
  for (int j = 1; j < 8; ++j) r = _mm512_xor_si512(r, x[j]);
  return static_cast<u64>(_mm_cvtsi128_si64(_mm512_castsi512_si128(r)));
}
__attribute__((target("avx512f,vpclmulqdq"))) u64 vpclmul512(u64 iters, u64 seed) {
  __m512i x[8];
  const __m512i k = _mm512_set1_epi64(0x0F1E2D3C4B5A6978ll);
  for (int j = 0; j < 8; ++j) x[j] = _mm512_set1_epi64(static_cast<long long>(seed) + j);
  for (u64 i = 0; i < iters; ++i)
    for (int j = 0; j < 8; ++j) x[j] = _mm512_xor_si512(_mm512_clmulepi64_epi128(x[j], k, 0x01), k);
  __m512i r = x[0];
  for (int j = 1; j < 8; ++j) r = _mm512_xor_si512(r, x[j]);
  return static_cast<u64>(_mm_cvtsi128_si64(_mm512_castsi512_si128(r)));
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

// Iterations that take about `ms` on this CPU, found once per kernel.
u64 calibrate(const Kernel& k, int cpu, double ms) {
  std::thread t([&] { pin(cpu); });
  t.join();
  u64 iters = 1000;
  for (;;) {
    u64 got = 0;
    double took = 0;
    std::thread w([&] {
      pin(cpu);
      const auto t0 = Clock::now();
      got = k.fn(iters, 7);
      took = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    });
    w.join();
    g_sink.fetch_xor(got, std::memory_order_relaxed);
    if (took > ms / 4) return static_cast<u64>(static_cast<double>(iters) * ms / took);
    iters *= 4;
  }
}

// Rates (iterations per microsecond) of one thread per CPU in `cpus`, released together.
std::vector<double> run(const Kernel& k, const std::vector<int>& cpus, u64 iters) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<double> rate(cpus.size());
  std::vector<std::thread> ts;
  for (std::size_t i = 0; i < cpus.size(); ++i)
    ts.emplace_back([&, i] {
      pin(cpus[i]);
      ready.fetch_add(1, std::memory_order_acq_rel);
      while (!go.load(std::memory_order_acquire)) {
      }
      const auto t0 = Clock::now();
      const u64 r = k.fn(iters, i);
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      g_sink.fetch_xor(r, std::memory_order_relaxed);
      rate[i] = static_cast<double>(iters) / us;
    });
  while (ready.load(std::memory_order_acquire) < static_cast<int>(cpus.size())) {
  }
  go.store(true, std::memory_order_release);
  for (auto& t : ts) t.join();
  return rate;
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
  double ms = 60;
  bool all_pairs = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--ms=", 0) == 0) ms = std::atof(a.c_str() + 5);
    else if (a == "--pairs=all") all_pairs = true;
    else if (a == "--pairs=first") all_pairs = false;
    else if (a.rfind("--kernels=", 0) == 0) only = "," + a.substr(10) + ",";
    else {
      std::fprintf(stderr, "host_probe: unknown argument '%s' (see the header of bench/host/host_probe.cpp)\n", a.c_str());
      return 2;
    }
  }
  __builtin_cpu_init();
  const Kernel kernels[] = {
      {"scalar_lat", scalar_lat, true},
      {"scalar_tp", scalar_tp, true},
      {"avx2_mul", avx2_mul, __builtin_cpu_supports("avx2") != 0},
      {"avx512_mul", avx512_mul, __builtin_cpu_supports("avx512f") != 0},
      {"avx512_ifma", avx512_ifma, __builtin_cpu_supports("avx512ifma") != 0},
      {"vaes512", vaes512, __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vaes")},
      {"vpclmul512", vpclmul512, __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq")},
  };
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof(allowed), &allowed);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  const std::size_t n = cpus.size();
  for (const Kernel& k : kernels) {
    if (!k.available || (!only.empty() && only.find(std::string(",") + k.name + ",") == std::string::npos)) continue;
    const u64 iters = calibrate(k, cpus[0], ms);
    std::vector<double> alone(n);
    for (std::size_t i = 0; i < n; ++i) alone[i] = run(k, {cpus[i]}, iters)[0];
    std::printf("{\"kind\":\"alone\",\"kernel\":\"%s\",\"rates\":[%s]}\n", k.name, join(alone).c_str());
    double mean_alone = 0;
    for (double r : alone) mean_alone += r / static_cast<double>(n);
    // Pairs: each CPU's rate together with another, over its own rate alone.
    std::vector<double> worst(n, 2.0);
    std::vector<int> worst_with(n, -1);
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b) {
        if (!all_pairs && a != 0) break;
        const auto r = run(k, {cpus[a], cpus[b]}, iters);
        const double fa = r[0] / alone[a], fb = r[1] / alone[b];
        std::printf("{\"kind\":\"pair\",\"kernel\":\"%s\",\"cpus\":[%d,%d],\"share\":[%.3f,%.3f]}\n", k.name, cpus[a],
                    cpus[b], fa, fb);
        if (fa < worst[a]) worst[a] = fa, worst_with[a] = cpus[b];
        if (fb < worst[b]) worst[b] = fb, worst_with[b] = cpus[a];
      }
    std::vector<int> all_cpus(cpus.begin(), cpus.end());
    std::vector<double> ratios;
    for (int rep = 0; rep < 3; ++rep) {
      const auto r = run(k, all_cpus, iters);
      double sum = 0;
      for (double x : r) sum += x;
      ratios.push_back(sum / mean_alone);
      std::printf("{\"kind\":\"all\",\"kernel\":\"%s\",\"threads\":%zu,\"rates\":[%s],\"sum_over_alone\":%.3f}\n",
                  k.name, n, join(r).c_str(), sum / mean_alone);
    }
    std::sort(ratios.begin(), ratios.end());
    const auto [mn, mx] = std::minmax_element(alone.begin(), alone.end());
    std::fprintf(stderr, "%-12s alone %.4g..%.4g /us; %zu at once: %.2fx one (median of 3);", k.name, *mn, *mx, n,
                 ratios[1]);
    std::fprintf(stderr, " worst pair share");
    for (std::size_t a = 0; a < n; ++a)
      if (worst_with[a] >= 0) std::fprintf(stderr, " %d+%d:%.2f", cpus[a], worst_with[a], worst[a]);
    std::fprintf(stderr, "\n");
    std::fflush(stdout);
  }
  return g_sink.load() == 42 ? 1 : 0;  // never: keeps the kernels' results alive
}
