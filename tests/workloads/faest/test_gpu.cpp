// The GPU batch path on a real device (skipped cleanly without one): signatures byte-equal
// to the CPU path and the v2 known answers, verification verdicts equal, over seeded batches.
// TEMPO_FAEST_GPU_BATCHES=N (default 2; the device gate uses 1000) and
// TEMPO_FAEST_GPU_BATCH_SIZE=M (default 64) scale the sweep.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/faest.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/tempo.hpp>

#include "kat.hpp"

#if defined(TEMPO_FAEST_HAVE_CUDA)
#include "cuda/faest_kernels.hpp"
#include "emulate.hpp"
#include "gpu_path.hpp"
#endif

using tempo::Backend;
using tempo::faest::Params;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::size_t env_count(const char* name, std::size_t fallback) {
  return std::size_t(tempo::env_integer(name, 1, 1u << 20).value_or(fallback));
}

struct Batch {
  std::vector<Bytes> sks, pks, msgs, rhos;
};

Batch make_batch(Params p, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Batch b;
  for (std::size_t i = 0; i < n; ++i) {
    tempo::faest::KeyPair kp =
        tempo::faest::keygen(p, [&](std::span<std::uint8_t> o) { for (auto& x : o) x = std::uint8_t(rng()); });
    b.sks.push_back(kp.secret_key);
    b.pks.push_back(kp.public_key);
    Bytes m(rng() % 100), r(16);
    for (auto& x : m) x = std::uint8_t(rng());
    for (auto& x : r) x = std::uint8_t(rng());
    b.msgs.push_back(m);
    b.rhos.push_back(r);
  }
  return b;
}

struct Signed {
  std::vector<Bytes> sigs;
  tempo::gpu::BatchReport report;
};

Signed sign_with(tempo::Task& t, Params p, const Batch& b, Backend backend) {
  Signed s;
  s.report = tempo::faest::sign_batch_deterministic(t, p, b.sks, b.msgs, b.rhos, s.sigs, backend);
  return s;
}

bool have_device() {
  if (tempo::gpu::available(tempo::Backend::cuda)) return true;
  WARN("no CUDA device (or a build without CUDA): the GPU cases are skipped");
  return false;
}

}  // namespace

TEST_CASE("Backend::cuda without a device is a clear runtime_error", "[gpu]") {
  if (tempo::gpu::available(tempo::Backend::cuda)) return;
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Batch b = make_batch(Params::faest_128f, 1, 1);
  try {
    pool.run([&](tempo::Task& t) { sign_with(t, Params::faest_128f, b, Backend::cuda); });
    FAIL("Backend::cuda did not throw without a device");
  } catch (const std::runtime_error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("CUDA") != std::string::npos);
  }
}

TEST_CASE("GPU batches: the v2 known answers", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  const auto v = faest_test::read_v2_vectors();
  for (const Params p : {Params::faest_128f, Params::faest_128s}) {
    const auto& sec = v.at(p == Params::faest_128f ? "faest_128f" : "faest_128s");
    Batch b;
    b.sks = {faest_test::hex(sec.at("sk"))};
    b.pks = {faest_test::hex(sec.at("pk"))};
    b.msgs = {faest_test::hex(v.at("").at("msg"))};
    b.rhos = {faest_test::hex(v.at("").at("rho"))};
    const Signed s = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cuda); });
    CHECK(s.report.ran_on == tempo::gpu::Placement::gpu);
    const auto& sigs = s.sigs;
    CHECK(sigs[0] == faest_test::hex(sec.at("signature")));
    std::vector<bool> ok;
    pool.run([&](tempo::Task& t) { tempo::faest::verify_batch(t, p, b.pks, b.msgs, sigs, ok, Backend::cuda); });
    CHECK(ok[0]);
  }
}

#if defined(TEMPO_FAEST_HAVE_CUDA)
// Where the device and the host emulation part: one item's scratch after every launch, for
// the v2 vector's signing and verification. The first launch and array that differ name the
// stage to look at.
TEST_CASE("GPU stage: the device's scratch equals the emulation's after every launch", "[gpu]") {
  if (!have_device()) return;
  namespace d = tempo::faest::detail;
  namespace dev = tempo::faest::dev;
  const auto v = faest_test::read_v2_vectors();
  static const char* const array_names[] = {"nodes", "com", "rows", "hi", "vole", "back"};
  for (const Params p : {Params::faest_128f, Params::faest_128s}) {
    const auto& sec = v.at(p == Params::faest_128f ? "faest_128f" : "faest_128s");
    const Bytes sk = faest_test::hex(sec.at("sk")), pk = faest_test::hex(sec.at("pk")),
                msg = faest_test::hex(v.at("").at("msg")), rho = faest_test::hex(v.at("").at("rho")),
                sig = faest_test::hex(sec.at("signature"));
    for (const bool verifier : {false, true}) {
      const dev::Layout lay = d::gpu_layout_of(p, verifier);
      Bytes in(lay.in_stride()), out_dev(lay.out_stride()), out_emu(lay.out_stride());
      Bytes scratch_sig(sig.size());
      if (verifier) {
        d::VerifyJob job;
        d::verify_prepare(p, pk, msg, sig.data(), job, in.data());
        REQUIRE(job.ok);
      } else {
        d::sign_prepare(p, sk, msg, rho, scratch_sig.data(), in.data());
      }
      std::vector<Bytes> emu, gpu;
      faest_test::emulate_stage(lay, in.data(), out_emu.data(), 1, false, &emu);
      REQUIRE(tempo::faest::cuda::run_stage_snapshots(lay, in.data(), out_dev.data(), gpu) == 0);
      REQUIRE(gpu.size() == emu.size());
      const std::uint64_t sizes[] = {lay.nodes_bytes(), lay.com_bytes(), lay.rows_bytes(),
                                     lay.hi_bytes(),    lay.vole_bytes(), lay.back_bytes()};
      std::size_t launch = 0;
      bool parted = false;  // report the first launch that differs only
      dev::for_each_stage(lay, [&](const dev::Launch& l) {
        if (parted) return;
        const Bytes& e = emu[launch];
        const Bytes& g = gpu[launch];
        REQUIRE(e.size() == g.size());
        std::uint64_t at = 0;
        for (std::size_t k = 0; k < 6; ++k) {
          for (std::uint64_t b = 0; b < sizes[k]; ++b)
            if (e[at + b] != g[at + b]) {
              FAIL_CHECK((verifier ? "verify" : "sign") << " " << tempo::faest::name(p) << ": launch " << launch
                                                        << " (stage " << unsigned(l.stage) << ", level " << l.level
                                                        << ") differs first in " << array_names[k] << " at byte " << b
                                                        << " of " << sizes[k]);
              parted = true;
              break;
            }
          at += sizes[k];
        }
        ++launch;
      });
      CHECK(out_dev == out_emu);
    }
  }
}
#endif

TEST_CASE("GPU batches: CPU = GPU bytes over seeded batches, verification verdicts equal", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  const std::size_t batches = env_count("TEMPO_FAEST_GPU_BATCHES", 2);
  const std::size_t size = env_count("TEMPO_FAEST_GPU_BATCH_SIZE", 64);
  std::size_t equal = 0, total = 0;
  for (std::size_t k = 0; k < batches; ++k) {
    const Params p = k % 4 == 3 ? Params::faest_128s : Params::faest_128f;
    const Batch b = make_batch(p, size, 1000 + k);
    auto gpu = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cuda); }).sigs;
    const auto cpu = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cpu); }).sigs;
    for (std::size_t i = 0; i < size; ++i) equal += gpu[i] == cpu[i];
    total += size;
    gpu[k % size][(k * 131) % gpu[0].size()] ^= 1;  // one tampered signature per batch
    std::vector<bool> ok_gpu, ok_cpu;
    pool.run([&](tempo::Task& t) {
      tempo::faest::verify_batch(t, p, b.pks, b.msgs, gpu, ok_gpu, Backend::cuda);
      tempo::faest::verify_batch(t, p, b.pks, b.msgs, gpu, ok_cpu, Backend::cpu);
    });
    REQUIRE(ok_gpu == ok_cpu);
    CHECK(!ok_gpu[k % size]);
  }
  std::printf("FAEST CPU=GPU gate: %zu of %zu signatures byte-equal over %zu batches\n", equal, total, batches);
  CHECK(equal == total);
}

TEST_CASE("GPU batches under auto: the cost model places them (fresh engine), bytes equal the CPU path's", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  tempo::gpu::Engine engine;  // its own cost models: the priors, whatever ran before
  const Params p = Params::faest_128f;
  const std::size_t sig = tempo::faest::signature_size(p);
  const tempo::faest::SignOp op(p, tempo::faest::RhoSource::input);
  for (const std::size_t n : {std::size_t{8}, std::size_t{4096}}) {
    const Batch b = make_batch(p, n, 77 + n);
    Bytes keys, msgs, rhos;
    std::vector<std::uint64_t> offsets{0};
    for (std::size_t i = 0; i < n; ++i) {
      keys.insert(keys.end(), b.sks[i].begin(), b.sks[i].end());
      msgs.insert(msgs.end(), b.msgs[i].begin(), b.msgs[i].end());
      rhos.insert(rhos.end(), b.rhos[i].begin(), b.rhos[i].end());
      offsets.push_back(msgs.size());
    }
    Bytes out(n * sig);
    engine.cost_model(op).reset();
    const auto report = pool.run([&](tempo::Task& t) {
      return engine.run(t, op,
                        {tempo::gpu::Operand::fixed(keys, 32), tempo::gpu::Operand::variable(msgs, offsets),
                         tempo::gpu::Operand::fixed(rhos, 16)},
                        out, Backend::auto_select);
    });
    std::printf("FAEST-128f auto, %zu signatures on %zu threads: %s in %.1f ms (%s)\n", n, pool.thread_count(),
                std::string(tempo::gpu::placement_name(report.ran_on)).c_str(), report.total_ms, report.reason.c_str());
    if (n == 8) CHECK(report.ran_on == tempo::gpu::Placement::cpu);
    const auto cpu = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cpu); }).sigs;
    std::size_t equal = 0;
    for (std::size_t i = 0; i < n; ++i)
      equal += std::equal(cpu[i].begin(), cpu[i].end(), out.begin() + std::ptrdiff_t(i * sig)) ? 1 : 0;
    CHECK(equal == n);
  }
}
