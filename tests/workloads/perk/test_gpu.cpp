// The GPU batch path on a real device (skipped cleanly without one): every shipped known
// answer of the 18 sets through the device, and signatures byte-equal to the CPU path
// over seeded batches (which then verify). TEMPO_PERK_GPU_BATCHES=N (default 2; the device
// gate, scripts/device/perk.sh, uses 1000) and TEMPO_PERK_GPU_BATCH_SIZE=M (default 32) scale
// the sweep.
#include <catch2/catch.hpp>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/perk.hpp>
#include <tempo/tempo.hpp>

#include "gpu_path.hpp"
#include "kat.hpp"

using tempo::Backend;
using tempo::perk::Params;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::size_t env_count(const char* name, std::size_t fallback) {
  return std::size_t(tempo::env_integer(name, 1, 1u << 20).value_or(fallback));
}

const auto all_sets = tempo::perk::all_params();  // every set has a device stage

struct Batch {
  std::vector<Bytes> sks, pks, msgs, rands;
};

Batch make_batch(Params p, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Batch b;
  for (std::size_t i = 0; i < n; ++i) {
    tempo::perk::KeyPair kp =
        tempo::perk::keygen(p, [&](std::span<std::uint8_t> o) { for (auto& x : o) x = std::uint8_t(rng()); });
    b.sks.push_back(kp.secret_key);
    b.pks.push_back(kp.public_key);
    Bytes m(rng() % 100), r(tempo::perk::sign_randomness_size(p));
    for (auto& x : m) x = std::uint8_t(rng());
    for (auto& x : r) x = std::uint8_t(rng());
    b.msgs.push_back(m);
    b.rands.push_back(r);
  }
  return b;
}

struct Signed {
  std::vector<Bytes> sigs;
  tempo::gpu::BatchReport report;
};

Signed sign_with(tempo::Task& t, Params p, const Batch& b, Backend backend) {
  Signed s;
  s.report = tempo::perk::sign_batch_deterministic(t, p, b.sks, b.msgs, b.rands, s.sigs, backend);
  return s;
}

bool have_device() {
  if (tempo::gpu::available(tempo::Backend::cuda)) return true;
  WARN("no CUDA device (or a build without CUDA): the GPU cases are skipped");
  return false;
}

}  // namespace

TEST_CASE("PERK Backend::cuda without a device is a clear runtime_error", "[gpu]") {
  if (tempo::gpu::available(tempo::Backend::cuda)) return;
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Batch b = make_batch(Params::perk_1_fast_aes_aes, 1, 1);
  try {
    pool.run([&](tempo::Task& t) { sign_with(t, Params::perk_1_fast_aes_aes, b, Backend::cuda); });
    FAIL("Backend::cuda did not throw without a device");
  } catch (const std::runtime_error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("CUDA") != std::string::npos);
  }
}

TEST_CASE("PERK GPU batches: every shipped known answer of every set", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  for (const Params p : all_sets) {
    INFO(tempo::perk::name(p));
    const auto entries = perk_test::read_rsp(std::string("PQCsignKAT_") + tempo::perk::name(p) + ".rsp");
    REQUIRE(entries.size() == 10);
    Batch b;
    std::vector<Bytes> want;
    for (const auto& e : entries) {
      const perk_test::KatSigner k = perk_test::kat_signer(p, e);
      b.sks.push_back(k.kp.secret_key);
      b.pks.push_back(k.kp.public_key);
      b.msgs.push_back(e.msg);
      b.rands.push_back(k.rand);
      want.push_back(k.sig);
    }
    const Signed s = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cuda); });
    CHECK(s.report.ran_on == tempo::gpu::Placement::gpu);
    for (std::size_t i = 0; i < want.size(); ++i) {
      INFO("count = " << i);
      CHECK(s.sigs[i] == want[i]);
    }
    // The known answers verify on the device.
    std::vector<bool> ok;
    const auto vr =
        pool.run([&](tempo::Task& t) { return tempo::perk::verify_batch(t, p, b.pks, b.msgs, want, ok, Backend::cuda); });
    CHECK(vr.ran_on == tempo::gpu::Placement::gpu);
    for (std::size_t i = 0; i < ok.size(); ++i) {
      INFO("verify count = " << i);
      CHECK(ok[i]);
    }
  }
}

TEST_CASE("PERK GPU batches: CPU = GPU bytes over seeded batches, and they verify", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  const std::size_t batches = env_count("TEMPO_PERK_GPU_BATCHES", 2);
  const std::size_t size = env_count("TEMPO_PERK_GPU_BATCH_SIZE", 32);
  std::size_t equal = 0, total = 0, verified = 0;
  for (std::size_t k = 0; k < batches; ++k) {
    // Mostly the level-1 fast set; every set now and then.
    const Params p = k % 4 != 3 ? Params::perk_1_fast_aes_aes : all_sets[(k / 4) % all_sets.size()];
    const Batch b = make_batch(p, size, 1000 + k);
    const auto gpu = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cuda); });
    const auto cpu = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cpu); }).sigs;
    REQUIRE(gpu.report.ran_on == tempo::gpu::Placement::gpu);
    for (std::size_t i = 0; i < size; ++i) equal += gpu.sigs[i] == cpu[i];
    total += size;
    std::vector<bool> ok;
    pool.run([&](tempo::Task& t) { tempo::perk::verify_batch(t, p, b.pks, b.msgs, gpu.sigs, ok, Backend::cpu); });
    for (const bool v : ok) verified += v ? 1 : 0;
  }
  std::printf("PERK CPU=GPU gate: %zu of %zu signatures byte-equal over %zu batches, %zu verify\n", equal, total,
              batches, verified);
  CHECK(equal == total);
  CHECK(verified == total);
}

TEST_CASE("PERK GPU batches: several slices in flight; os_random signatures verify", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  const Params p = Params::perk_1_fast_aes_aes;
  const Batch b = make_batch(p, 37, 5);
  auto spans = [](const std::vector<Bytes>& v) {
    return std::vector<std::span<const std::uint8_t>>(v.begin(), v.end());
  };
  const auto sks = spans(b.sks), msgs = spans(b.msgs), rands = spans(b.rands);
  std::vector<Bytes> sigs(b.sks.size(), Bytes(tempo::perk::signature_size(p)));
  std::vector<std::span<std::uint8_t>> outs(sigs.begin(), sigs.end());
  // Slices of 8: five device batches, two in flight.
  pool.run([&](tempo::Task& t) {
    tempo::perk::detail::sign_batch_gpu(t, p, sks, msgs, rands, outs, tempo::gpu::Engine::shared(), 8);
  });
  for (std::size_t i = 0; i < sigs.size(); ++i) {
    INFO("signature " << i);
    CHECK(sigs[i] == tempo::perk::sign_deterministic(p, b.sks[i], b.msgs[i], b.rands[i]));
  }
  std::vector<Bytes> fresh;
  const auto report =
      pool.run([&](tempo::Task& t) { return tempo::perk::sign_batch(t, p, b.sks, b.msgs, fresh, Backend::cuda); });
  CHECK(report.ran_on == tempo::gpu::Placement::gpu);
  std::vector<bool> ok;
  pool.run([&](tempo::Task& t) { tempo::perk::verify_batch(t, p, b.pks, b.msgs, fresh, ok, Backend::cpu); });
  for (std::size_t i = 0; i < ok.size(); ++i) CHECK(ok[i]);
}

TEST_CASE("PERK GPU verification: the CPU's verdicts over valid, corrupted and mismatched signatures", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  const std::size_t size = env_count("TEMPO_PERK_GPU_BATCH_SIZE", 32);
  std::size_t agree = 0, total = 0, valid = 0;
  for (std::size_t k = 0; k < all_sets.size(); ++k) {
    const Params p = all_sets[k];
    INFO(tempo::perk::name(p));
    Batch b = make_batch(p, size, 2000 + k);
    std::vector<Bytes> sigs;
    pool.run([&](tempo::Task& t) { tempo::perk::sign_batch_deterministic(t, p, b.sks, b.msgs, b.rands, sigs, Backend::cpu); });
    // A third kept, a third with one flipped bit anywhere (padding included), a third with
    // another message or another key.
    std::mt19937_64 rng(3000 + k);
    for (std::size_t i = 0; i < size; ++i) {
      if (i % 3 == 1) {
        const std::size_t bit = std::size_t(rng() % (8 * sigs[i].size()));
        sigs[i][bit / 8] ^= std::uint8_t(1u << (bit % 8));
      } else if (i % 3 == 2) {
        if (i % 2 == 0) b.msgs[i].push_back(7);
        else b.pks[i] = b.pks[(i + 1) % size];
      }
    }
    std::vector<bool> gpu, cpu;
    const auto report =
        pool.run([&](tempo::Task& t) { return tempo::perk::verify_batch(t, p, b.pks, b.msgs, sigs, gpu, Backend::cuda); });
    pool.run([&](tempo::Task& t) { tempo::perk::verify_batch(t, p, b.pks, b.msgs, sigs, cpu, Backend::cpu); });
    CHECK(report.ran_on == tempo::gpu::Placement::gpu);
    for (std::size_t i = 0; i < size; ++i) {
      INFO("item " << i);
      CHECK(gpu[i] == cpu[i]);
      agree += gpu[i] == cpu[i];
      valid += cpu[i] ? 1 : 0;
    }
    total += size;
    // Slices of 8 through the batch loop directly.
    auto spans = [](const std::vector<Bytes>& v) {
      return std::vector<std::span<const std::uint8_t>>(v.begin(), v.end());
    };
    const auto pks = spans(b.pks), msgs = spans(b.msgs), ss = spans(sigs);
    std::vector<std::uint8_t> sliced(size, 0x5A);
    pool.run([&](tempo::Task& t) {
      tempo::perk::detail::verify_batch_gpu(t, p, pks, msgs, ss, sliced, tempo::gpu::Engine::shared(), 8);
    });
    for (std::size_t i = 0; i < size; ++i) CHECK(int(sliced[i]) == (cpu[i] ? 1 : 0));
  }
  std::printf("PERK GPU verify gate: %zu of %zu verdicts equal to the CPU's, %zu valid\n", agree, total, valid);
  CHECK(agree == total);
  CHECK(valid > 0);
  CHECK(valid < total);
}
