// The GPU batch path on a real device (skipped cleanly without one): signatures byte-equal
// to the CPU path and the v2 known answers, verification verdicts equal, over seeded batches.
// TEMPO_FAEST_GPU_BATCHES=N (default 2; the device gate uses 1000) and
// TEMPO_FAEST_GPU_BATCH_SIZE=M (default 64) scale the sweep.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <tempo/faest.hpp>
#include <tempo/gpu/backend.hpp>
#include <tempo/tempo.hpp>

#include "kat.hpp"

using tempo::faest::Backend;
using tempo::faest::Params;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::size_t env_count(const char* name, std::size_t fallback) {
  const char* e = std::getenv(name);
  return e != nullptr && *e != '\0' ? std::size_t(std::strtoull(e, nullptr, 10)) : fallback;
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

std::vector<Bytes> sign_with(tempo::Task& t, Params p, const Batch& b, Backend backend) {
  std::vector<Bytes> sigs(b.sks.size(), Bytes(tempo::faest::signature_size(p)));
  std::vector<std::span<std::uint8_t>> outs;
  for (auto& s : sigs) outs.emplace_back(s);
  const auto sk = tempo::faest::detail::as_spans(b.sks), msg = tempo::faest::detail::as_spans(b.msgs),
             rho = tempo::faest::detail::as_spans(b.rhos);
  tempo::faest::sign_batch_spans(t, p, sk, msg, rho, outs, backend);
  return sigs;
}

bool have_device() {
  if (tempo::gpu::available(tempo::Backend::cuda)) return true;
  WARN("no CUDA device (or a build without CUDA): the GPU cases are skipped");
  return false;
}

}  // namespace

TEST_CASE("Backend::gpu without a device is a clear runtime_error", "[gpu]") {
  if (tempo::gpu::available(tempo::Backend::cuda)) return;
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Batch b = make_batch(Params::faest_128f, 1, 1);
  try {
    pool.run([&](tempo::Task& t) { sign_with(t, Params::faest_128f, b, Backend::gpu); });
    FAIL("Backend::gpu did not throw without a device");
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
    const auto sigs = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::gpu); });
    CHECK(sigs[0] == faest_test::hex(sec.at("signature")));
    std::vector<bool> ok;
    pool.run([&](tempo::Task& t) { tempo::faest::verify_batch(t, p, b.pks, b.msgs, sigs, ok, Backend::gpu); });
    CHECK(ok[0]);
  }
}

TEST_CASE("GPU batches: CPU = GPU bytes over seeded batches, verification verdicts equal", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  const std::size_t batches = env_count("TEMPO_FAEST_GPU_BATCHES", 2);
  const std::size_t size = env_count("TEMPO_FAEST_GPU_BATCH_SIZE", 64);
  std::size_t equal = 0, total = 0;
  for (std::size_t k = 0; k < batches; ++k) {
    const Params p = k % 4 == 3 ? Params::faest_128s : Params::faest_128f;
    const Batch b = make_batch(p, size, 1000 + k);
    auto gpu = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::gpu); });
    const auto cpu = pool.run([&](tempo::Task& t) { return sign_with(t, p, b, Backend::cpu); });
    for (std::size_t i = 0; i < size; ++i) equal += gpu[i] == cpu[i];
    total += size;
    gpu[k % size][(k * 131) % gpu[0].size()] ^= 1;  // one tampered signature per batch
    std::vector<bool> ok_gpu, ok_cpu;
    pool.run([&](tempo::Task& t) {
      tempo::faest::verify_batch(t, p, b.pks, b.msgs, gpu, ok_gpu, Backend::gpu);
      tempo::faest::verify_batch(t, p, b.pks, b.msgs, gpu, ok_cpu, Backend::cpu);
    });
    REQUIRE(ok_gpu == ok_cpu);
    CHECK(!ok_gpu[k % size]);
  }
  std::printf("FAEST CPU=GPU gate: %zu of %zu signatures byte-equal over %zu batches\n", equal, total, batches);
  CHECK(equal == total);
}
