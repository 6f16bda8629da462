// The engine's multi-device paths on simulated devices (host threads that claim
// chunks like devices and run the op's CPU code): claiming across devices, a batch too
// small for two devices, one device failing or out of memory while the other works.
// The same paths on real GPUs: scripts/device/engine.sh (one GPU) and issue 14 (two).
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

#include "test_ops.hpp"

using namespace tempo;
using gpu::Operand;

namespace {
gpu::RunOptions forced(gpu::Placement p) {
  gpu::RunOptions o;
  o.backend = tempo::Backend::auto_select;
  o.force = true;
  o.forced = p;
  return o;
}
std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}
std::vector<std::uint8_t> xor_ref(const std::vector<std::uint8_t>& in, const std::vector<std::uint8_t>& key) {
  std::vector<std::uint8_t> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<std::uint8_t>(in[i] ^ key[i % 64]);
  return out;
}
}  // namespace

TEST_CASE("two simulated devices share a large batch and give the CPU's bytes", "[engine][multi]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  gpu::Engine e(eo);
  REQUIRE(e.devices() == 2);
  const auto key = random_bytes(64, 1);
  gtest::XorKey op(e, key);
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto in = random_bytes(64 * 200000, seed);  // 12.8 MB: several chunks
    const auto want = xor_ref(in, key);
    for (auto p : {gpu::Placement::gpu, gpu::Placement::split}) {
      std::vector<std::uint8_t> out(in.size());
      const auto r = pool.run([&](Task& t) { return e.run(t, op, {Operand::fixed(in, 64)}, out, forced(p)); });
      CHECK(out == want);
      CHECK(r.cpu_items + r.gpu_items == 200000);
      // split: the pool may claim every block before a stream thread claims a chunk
      // (the scheduler decides); only gpu placement promises device items.
      if (p == gpu::Placement::gpu) {
        CHECK(r.cpu_items == 0);
        INFO("devices used " << r.devices_used << ", chunks " << r.gpu_chunks);
        CHECK(r.devices_used >= 1);
      }
    }
  }
}

TEST_CASE("a batch of one chunk stays on one device", "[engine][multi]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  gpu::Engine e(eo);
  const auto key = random_bytes(64, 2);
  gtest::XorKey op(e, key);
  const auto in = random_bytes(64 * 100, 3);
  std::vector<std::uint8_t> out(in.size());
  const auto r = pool.run([&](Task& t) { return e.run(t, op, {Operand::fixed(in, 64)}, out, forced(gpu::Placement::gpu)); });
  CHECK(out == xor_ref(in, key));
  CHECK(r.devices_used == 1);
  CHECK(r.gpu_chunks == 1);
}

TEST_CASE("one device out of memory: the other and the CPU finish the batch correctly", "[engine][multi][faults]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  eo.simulated_failing_device = 1;
  eo.simulated_failure_code = 2;  // cudaErrorMemoryAllocation
  gpu::Engine e(eo);
  const auto key = random_bytes(64, 4);
  gtest::XorKey op(e, key);
  const auto in = random_bytes(64 * 300000, 5);
  std::vector<std::uint8_t> out(in.size());
  const auto r = pool.run([&](Task& t) { return e.run(t, op, {Operand::fixed(in, 64)}, out, forced(gpu::Placement::gpu)); });
  CHECK(out == xor_ref(in, key));
  CHECK(r.cpu_items + r.gpu_items == 300000);
  // Device 1 may or may not have claimed a chunk before device 0 took them all.
  if (r.fell_back) CHECK(r.cpu_items > 0);
  // Its memory is refused too: a resident batch asked of it falls back to the host under auto.
  auto b0 = gpu::DeviceBatch(e, 10, 64, tempo::Backend::auto_select);
  auto b1 = gpu::DeviceBatch(e, 10, 64, tempo::Backend::auto_select);
  CHECK((b0.device() == 0 || b1.device() == 0));
  CHECK((b0.device() == -1 || b1.device() == -1));
}

TEST_CASE("one device failing: the batch fails with its CUDA error, never a wrong answer", "[engine][multi][faults]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  eo.simulated_failing_device = 0;
  eo.simulated_failure_code = 700;  // cudaErrorIllegalAddress
  gpu::Engine e(eo);
  const auto key = random_bytes(64, 6);
  gtest::XorKey op(e, key);
  const auto in = random_bytes(64 * 300000, 7);
  std::vector<std::uint8_t> out(in.size());
  pool.run([&](Task& t) {
    CHECK_THROWS_WITH(e.run(t, op, {Operand::fixed(in, 64)}, out, forced(gpu::Placement::gpu)),
                      Catch::Contains("simulated device 0") && Catch::Contains("CUDA error 700"));
  });
}

TEST_CASE("resident batches go round robin over devices; mixing devices is refused", "[engine][multi][resident]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  gpu::Engine e(eo);
  const auto key = random_bytes(64, 8);
  gtest::XorKey op(e, key);
  gtest::AddPairs add(64);
  const auto a0 = random_bytes(64 * 50, 9);
  auto a = gpu::DeviceBatch::upload(e, a0, 64, tempo::Backend::cuda);
  auto b = gpu::DeviceBatch::upload(e, a0, 64, tempo::Backend::cuda);
  CHECK(a.device() != b.device());
  pool.run([&](Task& t) {
    e.run_resident(t, op, {&a}, a);
    CHECK_THROWS_WITH(e.run_resident(t, add, {&a, &b}, a), Catch::Contains("lives on device"));
  });
  CHECK(a.download() == xor_ref(a0, key));
}
