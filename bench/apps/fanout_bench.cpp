// Fan-out throughput: N messages of L bytes -> N 32-byte SHAKE256 digests.
//
//   cpu_1t        tempo::keccak::hash_batch_cpu on a 1-thread pool
//   cpu_all       tempo::keccak::hash_batch_cpu on all cores
//   dispatch_cpu  tempo::keccak::hash_batch(Backend::cpu) on all cores: the dispatch's
//                 overhead is the ratio to cpu_all (should be ~1.0)
//   openssl_1t    OpenSSL EVP SHAKE256, one core (reference)
//   gpu_kernel    the kernel alone on device-resident data (CUDA events; CUDA builds)
//   gpu_h2h_pinned / gpu_h2h_pageable  Backend::cuda, host memory to host memory
//   auto          Backend::auto_select (the cost model places it; label: where it ran)
//
// Sizes: N = 1e3 .. 1e8, L = 32 B, 1 KiB, 16 KiB, 256 KiB, with N*L capped per
// variant (4 GiB for the GPU paths and auto, 1 GiB for all cores, 64 MiB for one core)
// so that a full run fits in a few minutes. Items/s = digests per second.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <tempo/keccak/keccak.hpp>
#include <tempo/keccak/offload.hpp>
#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>


#if defined(TEMPO_GPU_BENCH_OPENSSL)
#include <openssl/evp.h>
#endif
#if defined(TEMPO_GPU_BENCH_CUDA)
#include "keccak_kernel_time.hpp"
#endif

namespace {
using namespace tempo;
using keccak::Algorithm;
constexpr std::size_t kOut = 32;
constexpr std::size_t kGpuCap = 4ull << 30, kAllCap = 1ull << 30, kOneCap = 64ull << 20;

// Deterministic input shared by every benchmark (splitmix64).
const std::uint8_t* input(std::size_t bytes) {
  static std::vector<std::uint8_t> data;
  if (data.size() < bytes) {
    const std::size_t old = data.size();
    data.resize(bytes);
    std::uint64_t x = 0x243F6A8885A308D3ULL + old;
    std::size_t i = old;
    for (; i + 8 <= bytes; i += 8) {
      x += 0x9E3779B97F4A7C15ULL;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      z ^= z >> 31;
      std::memcpy(&data[i], &z, 8);
    }
    for (; i < bytes; ++i) data[i] = static_cast<std::uint8_t>(i);
  }
  return data.data();
}
std::vector<std::uint8_t>& output(std::size_t bytes) {
  static std::vector<std::uint8_t> out;
  if (out.size() < bytes) out.resize(bytes);
  return out;
}
std::vector<std::uint64_t>& offsets(std::size_t n, std::size_t len) {
  static std::vector<std::uint64_t> off;
  off.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) off[i] = i * len;
  return off;
}
ThreadPool& pool_all() {
  static ThreadPool p(Options{});
  return p;
}
ThreadPool& pool_one() {
  static ThreadPool p(Options{.threads = 1});
  return p;
}

bool too_big(benchmark::State& st, std::size_t n, std::size_t len, std::size_t cap) {
  if (n * len > cap) {
    st.SkipWithError("skipped: N*len over this variant's cap");
    return true;
  }
  return false;
}

void finish(benchmark::State& st, std::size_t n, std::size_t len) {
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * n));
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * n * len));
  st.counters["N"] = static_cast<double>(n);
  st.counters["len"] = static_cast<double>(len);
}

void BM_cpu(benchmark::State& st, ThreadPool& pool, bool through_dispatch) {
  const std::size_t len = st.range(0), n = st.range(1);
  if (too_big(st, n, len, &pool == &pool_one() ? kOneCap : kAllCap)) return;
  const std::uint8_t* in = input(n * len);
  auto& out = output(n * kOut);
  auto& off = offsets(n, len);
  const keccak::MessageBatch b{{in, n * len}, off};
  for (auto _ : st) {
    pool.run([&](Task& t) {
      if (through_dispatch)
        keccak::hash_batch(t, Algorithm::shake256, b, kOut, {out.data(), n * kOut}, tempo::Backend::cpu);
      else
        keccak::hash_batch_cpu(t, Algorithm::shake256, b, kOut, {out.data(), n * kOut});
    });
    benchmark::DoNotOptimize(out.data());
  }
  finish(st, n, len);
}
void BM_cpu_1t(benchmark::State& st) { BM_cpu(st, pool_one(), false); }
void BM_cpu_all(benchmark::State& st) { BM_cpu(st, pool_all(), false); }
void BM_dispatch_cpu(benchmark::State& st) { BM_cpu(st, pool_all(), true); }

#if defined(TEMPO_GPU_BENCH_OPENSSL)
void BM_openssl_1t(benchmark::State& st) {
  const std::size_t len = st.range(0), n = st.range(1);
  if (too_big(st, n, len, kOneCap)) return;
  const std::uint8_t* in = input(n * len);
  auto& out = output(n * kOut);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const EVP_MD* md = EVP_shake256();
  for (auto _ : st) {
    for (std::size_t i = 0; i < n; ++i) {
      EVP_DigestInit_ex(ctx, md, nullptr);
      EVP_DigestUpdate(ctx, in + i * len, len);
      EVP_DigestFinalXOF(ctx, out.data() + i * kOut, kOut);
    }
    benchmark::DoNotOptimize(out.data());
  }
  EVP_MD_CTX_free(ctx);
  finish(st, n, len);
}
#endif

bool need_gpu(benchmark::State& st) {
  if (gpu::device_count() == 0) {
    st.SkipWithError("skipped: no CUDA device");
    return false;
  }
  return true;
}

#if defined(TEMPO_GPU_BENCH_CUDA)
void BM_gpu_kernel(benchmark::State& st) {
  const std::size_t len = st.range(0), n = st.range(1);
  if (!need_gpu(st) || too_big(st, n, len, kGpuCap)) return;
  for (auto _ : st) {
    const double ms = keccak_bench::kernel_only_ms(Algorithm::shake256, len, kOut, n, 0, 5, 0, nullptr, nullptr);
    st.SetIterationTime(ms / 1e3);
  }
  finish(st, n, len);
}

// Kernel variants on 32 B -> 32 B: 0 = specialised unrolled, 1 = generic, 2 = specialised rolled.
void BM_gpu_kernel_variant(benchmark::State& st) {
  const std::size_t n = st.range(1);
  const int variant = static_cast<int>(st.range(0));
  if (!need_gpu(st)) return;
  std::vector<std::uint8_t> ins, digs;
  for (auto _ : st) {
    const double ms = keccak_bench::kernel_only_ms(Algorithm::shake256, 32, kOut, n, variant, 9, 64, &ins, &digs);
    st.SetIterationTime(ms / 1e3);
  }
  // Check the sample against the CPU: a fast wrong kernel must not look good.
  for (std::size_t i = 0; i * 32 < ins.size(); ++i) {
    std::uint8_t want[32];
    keccak::hash(Algorithm::shake256, {ins.data() + i * 32, 32}, want);
    if (std::memcmp(want, digs.data() + i * 32, 32) != 0) {
      st.SkipWithError("WRONG DIGEST from the kernel");
      return;
    }
  }
  finish(st, n, 32);
  st.SetLabel(variant == 0 ? "specialised-unrolled" : variant == 1 ? "generic" : "specialised-rolled");
}
#endif

struct Pinned {
  gpu::HostBuffer in, out;
};
Pinned& pinned(std::size_t in_bytes, std::size_t out_bytes) {
  static Pinned p;
  if (p.in.size() < in_bytes) {
    p.in = gpu::HostBuffer(in_bytes);
    std::memcpy(p.in.data(), input(in_bytes), in_bytes);
  }
  if (p.out.size() < out_bytes) p.out = gpu::HostBuffer(out_bytes);
  return p;
}

void BM_gpu_h2h(benchmark::State& st, bool use_pinned, tempo::Backend backend) {
  const std::size_t len = st.range(0), n = st.range(1);
  if ((backend == tempo::Backend::cuda && !need_gpu(st)) || too_big(st, n, len, kGpuCap)) return;
  const std::uint8_t* in;
  std::uint8_t* out;
  if (use_pinned) {
    Pinned& p = pinned(n * len, n * kOut);
    in = p.in.data();
    out = p.out.data();
  } else {
    in = input(n * len);
    out = output(n * kOut).data();
  }
  const keccak::FixedBatch b{{in, n * len}, len, n};
  gpu::BatchReport rep;
  double gpu_items = 0, kernel_ms = 0, in_ms = 0, out_ms = 0;
  for (auto _ : st) {
    rep = pool_all().run([&](Task& t) { return keccak::hash_batch(t, Algorithm::shake256, b, kOut, {out, n * kOut}, backend); });
    gpu_items += static_cast<double>(rep.gpu_items);
    kernel_ms += rep.kernel_ms;
    in_ms += rep.copy_in_ms;
    out_ms += rep.copy_out_ms;
    benchmark::DoNotOptimize(out);
  }
  finish(st, n, len);
  const double it = static_cast<double>(st.iterations());
  st.counters["gpu_frac"] = gpu_items / (it * static_cast<double>(n));
  st.counters["kernel_ms"] = kernel_ms / it;
  st.counters["copy_in_ms"] = in_ms / it;
  st.counters["copy_out_ms"] = out_ms / it;
  st.SetLabel(std::string(gpu::placement_name(rep.ran_on)));
}
void BM_gpu_h2h_pinned(benchmark::State& st) { BM_gpu_h2h(st, true, tempo::Backend::cuda); }
void BM_gpu_h2h_pageable(benchmark::State& st) { BM_gpu_h2h(st, false, tempo::Backend::cuda); }
void BM_auto(benchmark::State& st) { BM_gpu_h2h(st, false, tempo::Backend::auto_select); }
void BM_auto_pinned(benchmark::State& st) { BM_gpu_h2h(st, true, tempo::Backend::auto_select); }

void size_args(benchmark::internal::Benchmark* b) {
  for (std::int64_t len : {32, 1024, 16384, 262144})
    for (std::int64_t n = 100; n <= 100000000; n *= 10) b->Args({len, n});
  b->ArgNames({"len", "N"})->Unit(benchmark::kMillisecond);
}
void sizes(benchmark::internal::Benchmark* b) {
  size_args(b);
  b->UseRealTime();
}
}  // namespace

BENCHMARK(BM_cpu_1t)->Apply(sizes);
BENCHMARK(BM_cpu_all)->Apply(sizes);
BENCHMARK(BM_dispatch_cpu)->Apply(sizes);
#if defined(TEMPO_GPU_BENCH_OPENSSL)
BENCHMARK(BM_openssl_1t)->Apply(sizes);
#endif
#if defined(TEMPO_GPU_BENCH_CUDA)
BENCHMARK(BM_gpu_kernel)->Apply(size_args)->UseManualTime();
BENCHMARK(BM_gpu_kernel_variant)
    ->ArgsProduct({{0, 1, 2}, {1000000, 10000000}})
    ->ArgNames({"variant", "N"})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
#endif
BENCHMARK(BM_gpu_h2h_pinned)->Apply(sizes);
BENCHMARK(BM_gpu_h2h_pageable)->Apply(sizes);
BENCHMARK(BM_auto)->Apply(sizes);
BENCHMARK(BM_auto_pinned)->Apply(sizes);

BENCHMARK_MAIN();
