// tempo::keccak benchmarks. items_per_second and the "hashes/s" counter are messages hashed
// per second (permutations per second for the BM_Keccak* rows).
//
//   bench_keccak --benchmark_filter=Shake256      the batch comparison against OpenSSL
//   TEMPO_KECCAK_ISA=portable bench_keccak    the same without the AVX2/AVX-512 4-way kernels
#if TEMPO_BENCH_WITH_OPENSSL
#include <openssl/evp.h>
#endif

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <tempo/keccak/detail/x4.hpp>
#include <tempo/keccak/keccak.hpp>
#include <tempo/tempo.hpp>

namespace tc = tempo::keccak;

namespace {

constexpr std::size_t kOut = 32;

// About 4 MiB of input per batch (at least 16 messages), so a batch is not cache-bound.
std::size_t messages_for(std::size_t len) {
  const std::size_t n = (std::size_t{4} << 20) / (len + 64);
  return n < 16 ? 16 : n;
}

struct Batch {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets;
  std::vector<std::uint8_t> out;
  Batch(std::size_t n, std::size_t len) : data(n * len), offsets(n + 1), out(n * kOut) {
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 7);
    for (std::size_t i = 0; i <= n; ++i) offsets[i] = i * len;
  }
  tc::MessageBatch view() const { return {data, offsets}; }
  std::size_t size() const { return offsets.size() - 1; }
};

tempo::ThreadPool& all_cores() {
  static tempo::ThreadPool pool(tempo::Options{.threads = 0});
  return pool;
}

void report(benchmark::State& st, std::size_t n, std::size_t len) {
  const auto items = static_cast<std::int64_t>(st.iterations()) * static_cast<std::int64_t>(n);
  st.SetItemsProcessed(items);
  st.SetBytesProcessed(items * static_cast<std::int64_t>(len));
  st.counters["hashes/s"] = benchmark::Counter(static_cast<double>(items), benchmark::Counter::kIsRate);
}

// ---- SHAKE256 batch, len -> 32 bytes

void BM_Shake256Batch_Tempo1Thread(benchmark::State& st) {
  const auto len = static_cast<std::size_t>(st.range(0));
  Batch b(messages_for(len), len);
  for (auto _ : st) {
    tc::hash_batch_cpu_serial(tc::Algorithm::shake256, b.view(), kOut, b.out);
    benchmark::DoNotOptimize(b.out.data());
  }
  report(st, b.size(), len);
  st.SetLabel(tc::permutation_isa_name());
}

void BM_Shake256Batch_TempoAllCores(benchmark::State& st) {
  const auto len = static_cast<std::size_t>(st.range(0));
  Batch b(messages_for(len), len);
  auto& pool = all_cores();
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tc::hash_batch_cpu(t, tc::Algorithm::shake256, b.view(), kOut, b.out); });
    benchmark::DoNotOptimize(b.out.data());
  }
  report(st, b.size(), len);
  st.SetLabel(std::string(tc::permutation_isa_name()) + ", " + std::to_string(std::thread::hardware_concurrency()) +
              " threads");
}

#if TEMPO_BENCH_WITH_OPENSSL
// The reference the performance target is stated against: EVP_Digest per message.
void BM_Shake256_OpenSSL_EVP_Digest(benchmark::State& st) {
  const auto len = static_cast<std::size_t>(st.range(0));
  Batch b(messages_for(len), len);
  const EVP_MD* md = EVP_shake256();
  for (auto _ : st) {
    for (std::size_t i = 0; i < b.size(); ++i) {
      unsigned char digest[EVP_MAX_MD_SIZE];
      unsigned int dlen = 0;
      if (EVP_Digest(b.data.data() + i * len, len, digest, &dlen, md, nullptr) != 1)
        throw std::runtime_error("EVP_Digest failed");
      benchmark::DoNotOptimize(digest);
    }
  }
  report(st, b.size(), len);
}

// A faster way to drive OpenSSL (reused context, pre-fetched MD, exactly 32 output bytes),
// shown so the comparison is not only against the convenience call.
void BM_Shake256_OpenSSL_XOF32_ReusedCtx(benchmark::State& st) {
  const auto len = static_cast<std::size_t>(st.range(0));
  Batch b(messages_for(len), len);
  EVP_MD* md = EVP_MD_fetch(nullptr, "SHAKE256", nullptr);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  for (auto _ : st) {
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (EVP_DigestInit_ex(ctx, md, nullptr) != 1 || EVP_DigestUpdate(ctx, b.data.data() + i * len, len) != 1 ||
          EVP_DigestFinalXOF(ctx, b.out.data() + i * kOut, kOut) != 1)
        throw std::runtime_error("EVP XOF failed");
    }
    benchmark::DoNotOptimize(b.out.data());
  }
  EVP_MD_CTX_free(ctx);
  EVP_MD_free(md);
  report(st, b.size(), len);
}

#endif  // TEMPO_BENCH_WITH_OPENSSL

// ---- permutations

void BM_KeccakF1600_Portable(benchmark::State& st) {
  std::uint64_t s[25] = {1};
  for (auto _ : st) {
    tc::keccak_f1600(s);
    benchmark::DoNotOptimize(s);
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
}

void BM_KeccakF1600_x4(benchmark::State& st) {
  std::uint64_t s[4][25] = {{1}, {2}, {3}, {4}};
  std::uint64_t* p[4] = {s[0], s[1], s[2], s[3]};
  for (auto _ : st) {
    tc::keccak_f1600_x4(p);
    benchmark::DoNotOptimize(s);
  }
  st.SetItemsProcessed(4 * static_cast<std::int64_t>(st.iterations()));
  st.SetLabel(tc::permutation_isa_name());
}

// The kernel the batch/KT code uses: interleaved lanes, no transposition.
void BM_KeccakF1600_x4_Interleaved(benchmark::State& st) {
  alignas(32) std::uint64_t lanes[100] = {1, 2, 3, 4};
  for (auto _ : st) {
    tc::detail::permute_x4_interleaved(lanes, 24);
    benchmark::DoNotOptimize(lanes);
  }
  st.SetItemsProcessed(4 * static_cast<std::int64_t>(st.iterations()));
  st.SetLabel(tc::permutation_isa_name());
}

// ---- KangarooTwelve on one long message

void BM_KT128_Serial(benchmark::State& st) {
  const auto len = static_cast<std::size_t>(st.range(0));
  std::vector<std::uint8_t> msg(len, 0x5A), out(32);
  for (auto _ : st) {
    tc::kt128(msg, {}, out);
    benchmark::DoNotOptimize(out.data());
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * len));
}

void BM_KT128_TempoAllCores(benchmark::State& st) {
  const auto len = static_cast<std::size_t>(st.range(0));
  std::vector<std::uint8_t> msg(len, 0x5A), out(32);
  auto& pool = all_cores();
  for (auto _ : st) {
    pool.run([&](tempo::Task& t) { tc::kt128(t, msg, {}, out); });
    benchmark::DoNotOptimize(out.data());
  }
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * len));
}

}  // namespace

#define TEMPO_SHAKE_SIZES ->Arg(32)->Arg(1024)->Arg(16 << 10)->Arg(256 << 10)->UseRealTime()
BENCHMARK(BM_Shake256Batch_Tempo1Thread) TEMPO_SHAKE_SIZES;
BENCHMARK(BM_Shake256Batch_TempoAllCores) TEMPO_SHAKE_SIZES;
#if TEMPO_BENCH_WITH_OPENSSL
BENCHMARK(BM_Shake256_OpenSSL_EVP_Digest) TEMPO_SHAKE_SIZES;
BENCHMARK(BM_Shake256_OpenSSL_XOF32_ReusedCtx) TEMPO_SHAKE_SIZES;
#endif
BENCHMARK(BM_KeccakF1600_Portable);
BENCHMARK(BM_KeccakF1600_x4);
BENCHMARK(BM_KeccakF1600_x4_Interleaved);
BENCHMARK(BM_KT128_Serial)->Arg(1 << 20)->Arg(16 << 20)->UseRealTime();
BENCHMARK(BM_KT128_TempoAllCores)->Arg(1 << 20)->Arg(16 << 20)->UseRealTime();

BENCHMARK_MAIN();
