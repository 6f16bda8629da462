// tempo::tfhe benchmarks: gate bootstrap and key switch latency (median, p99), batched gates
// on the pool, encrypted 256-bit ADD/MUL as task graphs. Lux method: warm-up discarded,
// fixed iteration counts (key switch 100, bootstrap 30), median and p99 as counters.
//
// Flags besides Google Benchmark's: --params=PN10QP27,PN11QP54 (sets to run),
// --threads=1,16 (pool sizes for the throughput rows; empty = none), --add_bits=256 / --mul_bits=256
// (encrypted ADD / MUL widths, 0 = skip), --failure_bootstraps=N (failure-rate run per set),
// --failure_backend=cpu|cuda|auto (where the failure-rate bootstraps run; default cpu).
// Keys and ciphertexts use fresh OS randomness (keygen, encrypt_bit): results are checked
// by decryption, so no run depends on a seed.
// GPU rows (backend cuda; each reports "no CUDA device" as its error where there is none):
// --gpu_batches=256,1024,4096,16384 (batched gates/s per batch size; empty = none),
// --gpu_latency=1 (single-gate latency, 30 iterations), --gpu_add_bits=256 /
// --gpu_mul_bits=0 (encrypted ADD / MUL on cuda, 0 = skip).
// --auto_batches=16,64,256 (batched gates on backend auto, all cores: where the engine's cost
// model placed them, as counters gpu_share and split; empty = none, the default).
// --scaling_rounds=R (default 0: none): the scaling target's rows, R rounds of the same batch
// (--scaling_per_thread=8 gates per thread of the largest --threads pool) alternately on one
// thread and on all (cpu_scaling/...), and on as many plain threads, no shared pool
// (cpu_ceiling/...); bench/scaling.py prints the ratios.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <tempo/tfhe.hpp>

namespace {

using namespace tempo::tfhe;
using tempo::Backend;
using Clock = std::chrono::steady_clock;

std::vector<std::string> g_params = {"PN10QP27"};
std::vector<unsigned> g_threads = {1};
std::size_t g_mul_bits = 256;
std::size_t g_add_bits = 256;
std::size_t g_failure_bootstraps = 0;
Backend g_failure_backend = Backend::cpu;
std::vector<std::size_t> g_gpu_batches = {256, 1024, 4096, 16384};
bool g_gpu_latency = true;
std::size_t g_gpu_add_bits = 256;
std::size_t g_gpu_mul_bits = 0;
std::vector<std::size_t> g_auto_batches;
int g_scaling_rounds = 0;
std::size_t g_scaling_per_thread = 8;

bool no_device(benchmark::State& state) {
  if (tempo::gpu::available(Backend::cuda)) return false;
  state.SkipWithError("no CUDA device (or no CUDA build): GPU row skipped");
  for (auto _ : state) {
  }
  return true;
}

tempo::ThreadPool& pool(unsigned threads) {
  static std::map<unsigned, std::unique_ptr<tempo::ThreadPool>> pools;
  auto& p = pools[threads];
  if (!p) p = std::make_unique<tempo::ThreadPool>(tempo::Options{.threads = threads});
  return *p;
}

const Keys& keys(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Keys>> cache;
  auto& k = cache[name];
  if (!k) {
    const Params p = Params::preset(name);
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    k = std::make_unique<Keys>(pool(hw).run([&](tempo::Task& t) { return keygen(t, p); }));
  }
  return *k;
}

// Median and p99 of per-iteration times, as counters in microseconds.
void report(benchmark::State& state, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  state.counters["median_us"] = us[us.size() / 2];
  state.counters["p99_us"] = us[std::min(us.size() - 1, (us.size() * 99) / 100)];
}

// The NAND batches' inputs: gate i takes the bits (i & 1, (i >> 1) & 1), fresh encryptions.
void nand_inputs(const Keys& k, std::size_t count, std::vector<Ciphertext>& xs, std::vector<Ciphertext>& ys) {
  for (std::size_t i = 0; i < count; ++i) {
    xs.push_back(encrypt_bit(k.secret, i & 1));
    ys.push_back(encrypt_bit(k.secret, (i >> 1) & 1));
  }
}
// Marks the row failed unless every output decrypts to its gate's NAND.
void check_nand(benchmark::State& state, const Keys& k, const std::vector<Ciphertext>& out) {
  for (std::size_t i = 0; i < out.size(); ++i)
    if (decrypt_bit(k.secret, out[i]) != !((i & 1) && ((i >> 1) & 1))) {
      state.SkipWithError("wrong gate result");
      return;
    }
}

// One gate (AND) with its bootstrap, on a one-thread pool, user-shaped: public API, [&].
void BM_GateBootstrap(benchmark::State& state, std::string name) {
  const Keys& k = keys(name);
  const Ciphertext x = encrypt_bit(k.secret, true), y = encrypt_bit(k.secret, true);
  auto& p1 = pool(1);
  p1.run([&](tempo::Task& t) { return eval_gate(t, k.evaluation, Gate::and_, x, y); });  // warm-up
  std::vector<double> us;
  bool ok = true;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const Ciphertext r = p1.run([&](tempo::Task& t) { return eval_gate(t, k.evaluation, Gate::and_, x, y); });
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    ok = ok && decrypt_bit(k.secret, r);
  }
  if (!ok) state.SkipWithError("wrong gate result");
  report(state, us);
}

void BM_KeySwitch(benchmark::State& state, std::string name) {
  const Keys& k = keys(name);
  const Params p = k.secret.params();
  std::vector<std::uint32_t> a(p.N);
  for (std::size_t i = 0; i < p.N; ++i) a[i] = static_cast<std::uint32_t>((i * 2654435761u) & (p.qks() - 1));
  benchmark::DoNotOptimize(key_switch(k.evaluation, a, 123));
  std::vector<double> us;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto r = key_switch(k.evaluation, a, 123);
    benchmark::DoNotOptimize(r.data());
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  report(state, us);
}

// A batch of gates spread over a pool of `threads`: gates/s.
void BM_GateBatch(benchmark::State& state, std::string name, unsigned threads) {
  const Keys& k = keys(name);
  const std::size_t count = 4 * static_cast<std::size_t>(threads);
  std::vector<Ciphertext> xs, ys, out(count);
  nand_inputs(k, count, xs, ys);
  auto& pl = pool(threads);
  for (auto _ : state)
    pl.run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::nand, xs, ys, out, Backend::cpu); });
  check_nand(state, k, out);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
  state.counters["gates_per_s"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
}

// Encrypted ADD / MUL on a pool of all cores, user-shaped.
void BM_Integer(benchmark::State& state, std::string name, bool multiply, std::size_t bits, unsigned threads,
                Backend backend) {
  if (backend == Backend::cuda && no_device(state)) return;
  const Keys& k = keys(name);
  std::vector<std::uint64_t> xv((bits + 63) / 64), yv(xv.size());
  for (std::size_t i = 0; i < xv.size(); ++i) {
    xv[i] = 0x9e3779b97f4a7c15ULL * (i + 1);
    yv[i] = 0xc2b2ae3d27d4eb4fULL * (i + 3);
  }
  const EncryptedUint x = encrypt_uint(k.secret, xv, bits), y = encrypt_uint(k.secret, yv, bits);
  const Circuit c = multiply ? Circuit::multiplier(bits) : Circuit::adder(bits);
  auto& pl = pool(threads);
  std::vector<double> us;
  EncryptedUint r;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    r = pl.run([&](tempo::Task& t) {
      return multiply ? mul(t, k.evaluation, x, y, backend) : add(t, k.evaluation, x, y, backend);
    });
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  // Check against plain arithmetic (mod 2^bits).
  std::vector<bool> in;
  for (std::size_t i = 0; i < bits; ++i) in.push_back((xv[i / 64] >> (i % 64)) & 1u);
  for (std::size_t i = 0; i < bits; ++i) in.push_back((yv[i / 64] >> (i % 64)) & 1u);
  const std::vector<bool> want = c.eval_plain(in);
  const std::vector<std::uint64_t> got = decrypt_uint(k.secret, r);
  for (std::size_t i = 0; i < bits; ++i)
    if (((got[i / 64] >> (i % 64)) & 1u) != static_cast<std::uint64_t>(want[i])) {
      state.SkipWithError("wrong encrypted result");
      break;
    }
  report(state, us);
  state.counters["gates"] = static_cast<double>(c.gate_count());
  state.counters["depth"] = static_cast<double>(c.depth());
  state.counters["gates_per_s"] = benchmark::Counter(static_cast<double>(c.gate_count()),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

// Decryption failure rate: chains of bootstraps (each round's inputs are the previous round's
// outputs, so inputs carry bootstrapped noise), all cores. Counts wrong decryptions and the
// measured output noise, and the failure probability that noise implies for the noisiest gate.
void BM_FailureRate(benchmark::State& state, std::string name, std::size_t total) {
  if (g_failure_backend == Backend::cuda && no_device(state)) return;
  const Keys& k = keys(name);
  const Params p = k.secret.params();
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  // Rows of 64 per core on the CPU; 16384 per batch on the device (its batch sweet spot).
  const std::size_t row = g_failure_backend == Backend::cpu ? 64 * static_cast<std::size_t>(hw) : 16384;
  const std::size_t width = std::min<std::size_t>(total, row);
  const std::size_t rounds = (total + width - 1) / width;
  std::size_t failures = 0, done = 0;
  double sum2 = 0;
  std::int64_t worst = 0;
  for (auto _ : state) {
    std::vector<Ciphertext> cur, next(width);
    std::vector<bool> bits;
    for (std::size_t i = 0; i < width; ++i) {
      bits.push_back(i & 1);
      cur.push_back(encrypt_bit(k.secret, bits.back()));
    }
    for (std::size_t r = 0; r < rounds; ++r) {
      pool(hw).run([&](tempo::Task& t) { eval_bootstraps(t, k.evaluation, cur, next, g_failure_backend); });
      for (std::size_t i = 0; i < width; ++i) {
        const std::int64_t e = noise_of(k.secret, next[i], bits[i]);
        failures += decrypt_bit(k.secret, next[i]) != bits[i];
        sum2 += static_cast<double>(e * e);
        worst = std::max(worst, e < 0 ? -e : e);
      }
      done += width;
      std::swap(cur, next);
    }
  }
  const double var = sum2 / static_cast<double>(done);
  const double margin = static_cast<double>(p.q()) / 8.0;
  state.counters["bootstraps"] = static_cast<double>(done);
  state.counters["failures"] = static_cast<double>(failures);
  state.counters["measured_sigma_q"] = std::sqrt(var);
  state.counters["predicted_sigma_q"] = std::sqrt(p.noise().output_var);
  state.counters["max_abs_noise_q"] = static_cast<double>(worst);
  state.counters["margin_q"] = margin;
  state.counters["predicted_gate_failure"] = p.noise().failure_per_gate;
  state.counters["measured_sigma_gate_failure"] = std::erfc(margin / std::sqrt(6.0 * var) / std::sqrt(2.0));
}

// GPU: a batch of `count` NAND gates on backend cuda (the key resident after the warm-up).
void BM_GpuGateBatch(benchmark::State& state, std::string name, std::size_t count) {
  if (no_device(state)) return;
  const Keys& k = keys(name);
  std::vector<Ciphertext> xs, ys, out(count);
  nand_inputs(k, count, xs, ys);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  auto& pl = pool(hw);
  pl.run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::nand, xs, ys, out, Backend::cuda); });  // upload
  std::vector<double> us;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    pl.run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::nand, xs, ys, out, Backend::cuda); });
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  check_nand(state, k, out);
  report(state, us);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
  state.counters["gates_per_s"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
}

// GPU: one gate per call on backend cuda (launch, one block, copies): single-gate latency.
void BM_GpuGateLatency(benchmark::State& state, std::string name) {
  if (no_device(state)) return;
  const Keys& k = keys(name);
  const std::vector<Ciphertext> xs{encrypt_bit(k.secret, true)}, ys{encrypt_bit(k.secret, true)};
  std::vector<Ciphertext> out(1);
  auto& p1 = pool(1);
  p1.run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::and_, xs, ys, out, Backend::cuda); });  // upload
  std::vector<double> us;
  bool ok = true;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    p1.run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::and_, xs, ys, out, Backend::cuda); });
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    ok = ok && decrypt_bit(k.secret, out[0]);
  }
  if (!ok) state.SkipWithError("wrong gate result");
  report(state, us);
}

// Backend auto: a batch of `count` NAND gates placed by the engine's cost model (which
// calibrates on every batch, the warm-up included); the counters say where it ran.
void BM_AutoGateBatch(benchmark::State& state, std::string name, std::size_t count) {
  const Keys& k = keys(name);
  std::vector<Ciphertext> xs, ys, out(count);
  nand_inputs(k, count, xs, ys);
  auto& pl = pool(std::max(1u, std::thread::hardware_concurrency()));
  pl.run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::nand, xs, ys, out, Backend::auto_select); });
  std::vector<double> us;
  double gpu_items = 0, splits = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const tempo::gpu::BatchReport r = pl.run([&](tempo::Task& t) {
      return eval_gates(t, k.evaluation, Gate::nand, xs, ys, out, Backend::auto_select);
    });
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    gpu_items += static_cast<double>(r.gpu_items);
    splits += r.ran_on == tempo::gpu::Placement::split ? 1 : 0;
  }
  check_nand(state, k, out);
  report(state, us);
  const double runs = static_cast<double>(state.iterations());
  state.counters["gpu_share"] = gpu_items / (runs * static_cast<double>(count));
  state.counters["split"] = splits / runs;
  state.counters["gates_per_s"] =
      benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
}

// ---- the scaling target's ratio: one batch of NAND gates (Backend::cpu) on 1 thread and on
// all, registered alternately round by round so that the host's drifting clock falls on
// both sides; each row is the median of its samples (at least 3). cpu_ceiling rows, in the
// same rounds: the same gates on plain threads, each running its contiguous share through a
// one-thread pool of its own (the same groups of bootstraps, nothing shared between
// threads): what the cores give when all of them bootstrap at once (the all-core clock,
// memory traffic of the keys), the bound of the pool's rate.
void reg_cpu_scaling(const std::string& name, unsigned threads, std::size_t count, int round, bool ceiling) {
  const std::string row = std::string(ceiling ? "cpu_ceiling/" : "cpu_scaling/") + name + "/round:" +
                          std::to_string(round) + "/threads:" + std::to_string(threads) + "/count:" +
                          std::to_string(count);
  benchmark::RegisterBenchmark(row.c_str(), [name, threads, count, ceiling](benchmark::State& state) {
    const Keys& k = keys(name);
    std::vector<Ciphertext> xs, ys, out(count);
    nand_inputs(k, count, xs, ys);
    auto& pl = pool(threads);
    std::vector<std::unique_ptr<tempo::ThreadPool>> own;  // the ceiling's one-thread pools
    if (ceiling)
      for (unsigned w = 0; w < threads; ++w) own.push_back(std::make_unique<tempo::ThreadPool>(tempo::Options{.threads = 1}));
    const std::span<const Ciphertext> x(xs), y(ys);
    const std::span<Ciphertext> o(out);
    auto sample_us = [&] {
      const auto t0 = Clock::now();
      if (ceiling) {
        std::vector<std::thread> ts;
        for (unsigned w = 0; w < threads; ++w)
          ts.emplace_back([&, w] {
            const std::size_t lo = count * w / threads, n = count * (w + 1) / threads - lo;
            own[w]->run([&](tempo::Task& t) {
              eval_gates(t, k.evaluation, Gate::nand, x.subspan(lo, n), y.subspan(lo, n), o.subspan(lo, n), Backend::cpu);
            });
          });
        for (auto& t : ts) t.join();
      } else {
        pl.run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::nand, xs, ys, out, Backend::cpu); });
      }
      return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    };
    for (auto _ : state) {
      sample_us();  // warm-up: the pools' threads, the key's pages
      std::vector<double> us(3);
      for (auto& v : us) v = sample_us();
      std::sort(us.begin(), us.end());
      state.SetIterationTime(us[1] * 1e-6);
      state.counters["median_us"] = us[1];
      state.counters["gates_per_s"] = static_cast<double>(count) / (us[1] * 1e-6);
    }
    check_nand(state, k, out);
    state.counters["threads"] = threads;
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--params=", 0) == 0) g_params = split(a.substr(9));
    else if (a.rfind("--threads=", 0) == 0) {
      g_threads.clear();
      for (const auto& t : split(a.substr(10)))
        if (!t.empty()) g_threads.push_back(static_cast<unsigned>(std::stoul(t)));
    } else if (a.rfind("--mul_bits=", 0) == 0) g_mul_bits = std::stoul(a.substr(11));
    else if (a.rfind("--add_bits=", 0) == 0) g_add_bits = std::stoul(a.substr(11));
    else if (a.rfind("--failure_bootstraps=", 0) == 0) g_failure_bootstraps = std::stoul(a.substr(21));
    else if (a.rfind("--failure_backend=", 0) == 0) g_failure_backend = tempo::parse_backend(a.substr(18));
    else if (a.rfind("--gpu_batches=", 0) == 0) {
      g_gpu_batches.clear();
      for (const auto& b : split(a.substr(14)))
        if (!b.empty()) g_gpu_batches.push_back(std::stoul(b));
    } else if (a.rfind("--gpu_latency=", 0) == 0) g_gpu_latency = a.substr(14) != "0";
    else if (a.rfind("--gpu_add_bits=", 0) == 0) g_gpu_add_bits = std::stoul(a.substr(15));
    else if (a.rfind("--auto_batches=", 0) == 0) {
      for (const auto& b : split(a.substr(15)))
        if (!b.empty()) g_auto_batches.push_back(std::stoul(b));
    }
    else if (a.rfind("--gpu_mul_bits=", 0) == 0) g_gpu_mul_bits = std::stoul(a.substr(15));
    else if (a.rfind("--scaling_rounds=", 0) == 0) g_scaling_rounds = std::stoi(a.substr(17));
    else if (a.rfind("--scaling_per_thread=", 0) == 0) g_scaling_per_thread = std::stoul(a.substr(21));
    else rest.push_back(argv[i]);
  }
  int rc = static_cast<int>(rest.size());
  benchmark::Initialize(&rc, rest.data());
  for (const auto& name : g_params) {
    benchmark::RegisterBenchmark(("gate_bootstrap/" + name).c_str(), BM_GateBootstrap, name)
        ->Iterations(30)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("key_switch/" + name).c_str(), BM_KeySwitch, name)
        ->Iterations(100)->Unit(benchmark::kMicrosecond)->UseRealTime();
    if (g_failure_bootstraps > 0)
      benchmark::RegisterBenchmark(("failure_rate/" + name).c_str(), BM_FailureRate, name, g_failure_bootstraps)
          ->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
    for (unsigned th : g_threads)
      benchmark::RegisterBenchmark(("gate_batch/" + name + "/threads:" + std::to_string(th)).c_str(), BM_GateBatch,
                                   name, th)
          ->MinTime(1.0)->Unit(benchmark::kMillisecond)->UseRealTime();
    for (std::size_t b : g_gpu_batches)
      benchmark::RegisterBenchmark(("gpu_gate_batch/" + name + "/batch:" + std::to_string(b)).c_str(), BM_GpuGateBatch,
                                   name, b)
          ->MinTime(1.0)->Unit(benchmark::kMillisecond)->UseRealTime();
    if (g_gpu_latency)
      benchmark::RegisterBenchmark(("gpu_gate_latency/" + name).c_str(), BM_GpuGateLatency, name)
          ->Iterations(30)->Unit(benchmark::kMillisecond)->UseRealTime();
    for (std::size_t b : g_auto_batches)
      benchmark::RegisterBenchmark(("auto_gate_batch/" + name + "/batch:" + std::to_string(b)).c_str(),
                                   BM_AutoGateBatch, name, b)
          ->MinTime(1.0)->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  const unsigned top = g_threads.empty() ? 1 : *std::max_element(g_threads.begin(), g_threads.end());
  const std::string first = g_params.front();
  for (int round = 0; round < g_scaling_rounds && top > 1; ++round) {
    const std::size_t count = g_scaling_per_thread * top;
    for (unsigned th : {1u, top}) reg_cpu_scaling(first, th, count, round, false);
    reg_cpu_scaling(first, top, count, round, true);
  }
  if (g_add_bits > 0)
    benchmark::RegisterBenchmark(("add" + std::to_string(g_add_bits) + "/" + first + "/threads:" + std::to_string(top)).c_str(),
                                 BM_Integer, first, false, g_add_bits, top, Backend::cpu)
        ->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();
  if (g_mul_bits > 0)
    benchmark::RegisterBenchmark(("mul" + std::to_string(g_mul_bits) + "/" + first + "/threads:" + std::to_string(top)).c_str(),
                                 BM_Integer, first, true, g_mul_bits, top, Backend::cpu)
        ->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
  if (g_gpu_add_bits > 0)
    benchmark::RegisterBenchmark(("add" + std::to_string(g_gpu_add_bits) + "/" + first + "/cuda").c_str(), BM_Integer,
                                 first, false, g_gpu_add_bits, top, Backend::cuda)
        ->Iterations(5)->Unit(benchmark::kMillisecond)->UseRealTime();
  if (g_gpu_mul_bits > 0)
    benchmark::RegisterBenchmark(("mul" + std::to_string(g_gpu_mul_bits) + "/" + first + "/cuda").c_str(), BM_Integer,
                                 first, true, g_gpu_mul_bits, top, Backend::cuda)
        ->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
