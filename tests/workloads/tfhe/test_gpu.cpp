// The CUDA path on a real device: batches on backend cuda byte-equal to backend cpu. Without
// a device (or without a CUDA build) the device cases pass with a warning saying they were
// skipped, and the contract case checks that cuda fails fast with a clear error.
// Sizes: TEMPO_TFHE_GPU_SEEDS ciphertexts per parameter set (default 256; TOY256, PN10QP27
// and PN10QP27L3, PN11QP54 too with TEMPO_TFHE_FULL=1). The 1000-seed x 4-set gates are the
// [equiv] cases with TEMPO_TFHE_FULL=1 (they compare cpu with cuda whenever a device is present).
#include <catch2/catch.hpp>

#include <random>

#include "helpers.hpp"

using namespace tempo::tfhe;
using tempo::Backend;

namespace {

bool have_device() {
  if (tempo::gpu::available(Backend::cuda)) return true;
  WARN("skipped: no CUDA TFHE path here (no CUDA build or no device)");
  return false;
}

std::size_t gpu_seeds() { return tfhe_test::env_count("TEMPO_TFHE_GPU_SEEDS", 256); }

std::vector<std::string> gpu_sets() {
  if (tfhe_test::full()) return {"TOY256", "TOY256G2", "PN10QP27", "PN10QP27L3", "PN10QP27L3G2", "PN11QP54"};
  return {"TOY256", "TOY256G2", "PN10QP27", "PN10QP27L3", "PN10QP27L3G2"};
}

std::vector<Ciphertext> encrypt_many(const Keys& k, std::size_t count, std::uint64_t tag, std::vector<bool>* bits) {
  std::vector<Ciphertext> out;
  for (std::size_t i = 0; i < count; ++i) {
    const auto s = tfhe_test::seed(tag, i);
    const bool b = ((i * 7 + tag) % 3) == 1;
    if (bits != nullptr) bits->push_back(b);
    out.push_back(encrypt_bit_deterministic(k.secret, b, s));
  }
  return out;
}

}  // namespace

TEST_CASE("cuda backend contract: fails fast without a device, runs with one", "[gpu]") {
  const Keys& k = tfhe_test::keys("TOY256", 0);
  const std::vector<Ciphertext> xs = encrypt_many(k, 3, 1, nullptr), ys = encrypt_many(k, 3, 2, nullptr);
  std::vector<Ciphertext> out(3), ref(3);
  tfhe_test::pool().run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::or_, xs, ys, ref, Backend::cpu); });
  if (!tempo::gpu::available(Backend::cuda)) {
    try {
      tfhe_test::pool().run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::or_, xs, ys, out, Backend::cuda); });
      FAIL("backend cuda without a device did not throw");
    } catch (const std::runtime_error& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find("CUDA backend was requested") != std::string::npos);
    }
    const std::vector<Ciphertext> empty;
    std::vector<Ciphertext> none;
    CHECK_THROWS_AS(tfhe_test::pool().run([&](tempo::Task& t) { eval_bootstraps(t, k.evaluation, empty, none, Backend::cuda); }),
                    std::runtime_error);
  } else {
    const tempo::gpu::BatchReport rep = tfhe_test::pool().run(
        [&](tempo::Task& t) { return eval_gates(t, k.evaluation, Gate::or_, xs, ys, out, Backend::cuda); });
    CHECK(out == ref);
    CHECK(rep.ran_on == tempo::gpu::Placement::gpu);
  }
  // auto always runs (the CPU for a batch this small, or without a device).
  tfhe_test::pool().run(
      [&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::or_, xs, ys, out, Backend::auto_select); });
  CHECK(out == ref);
}

TEST_CASE("eval_bootstraps: cuda byte-equal to cpu", "[gpu]") {
  if (!have_device()) return;
  const std::size_t seeds = gpu_seeds();
  std::size_t equal = 0;
  for (const auto& name : gpu_sets()) {
    const Keys& k = tfhe_test::keys(name, 2);
    std::vector<bool> bits;
    const std::vector<Ciphertext> cs = encrypt_many(k, seeds, 0x9e0 + Params::preset(name).id, &bits);
    std::vector<Ciphertext> on_cpu(seeds), on_gpu(seeds), again(seeds);
    tfhe_test::pool().run([&](tempo::Task& t) {
      eval_bootstraps(t, k.evaluation, cs, on_cpu, Backend::cpu);
      eval_bootstraps(t, k.evaluation, cs, on_gpu, Backend::cuda);
      eval_bootstraps(t, k.evaluation, on_gpu, again, Backend::cuda);  // the key is resident now
    });
    for (std::size_t i = 0; i < seeds; ++i) {
      INFO(name << " item " << i);
      REQUIRE(to_bytes(on_gpu[i]) == to_bytes(on_cpu[i]));
      REQUIRE(decrypt_bit(k.secret, on_gpu[i]) == bits[i]);
      REQUIRE(decrypt_bit(k.secret, again[i]) == bits[i]);
      ++equal;
    }
  }
  WARN("gpu: " << equal << " bootstraps byte-equal between cpu and cuda");
}

// The launcher's shapes for small batches: a cluster of blocks per item (1, 3, 16), and on a
// 132-SM device (H100, H200) the doubled shape (more than one and at most two items per SM:
// pairs per block, 133 with a last block of one; 511: groups of 128-thread items, the group
// resident_group picks).
TEST_CASE("eval_bootstraps: small batches byte-equal to cpu", "[gpu]") {
  if (!have_device()) return;
  for (const auto& name : gpu_sets())
    for (const std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{16}, std::size_t{133}, std::size_t{263}, std::size_t{511}}) {
      const Keys& k = tfhe_test::keys(name, 2);
      std::vector<bool> bits;
      const std::vector<Ciphertext> cs = encrypt_many(k, count, 0x51 + count, &bits);
      std::vector<Ciphertext> on_cpu(count), on_gpu(count);
      tfhe_test::pool().run([&](tempo::Task& t) {
        eval_bootstraps(t, k.evaluation, cs, on_cpu, Backend::cpu);
        eval_bootstraps(t, k.evaluation, cs, on_gpu, Backend::cuda);
      });
      for (std::size_t i = 0; i < count; ++i) {
        INFO(name << " batch " << count << " item " << i);
        REQUIRE(to_bytes(on_gpu[i]) == to_bytes(on_cpu[i]));
        REQUIRE(decrypt_bit(k.secret, on_gpu[i]) == bits[i]);
      }
    }
}

TEST_CASE("eval_gates: every gate on cuda byte-equal to cpu", "[gpu]") {
  if (!have_device()) return;
  for (const auto& name : gpu_sets()) {
    const Keys& k = tfhe_test::keys(name, 0);
    std::vector<bool> bx, by;
    const std::vector<Ciphertext> xs = encrypt_many(k, 64, 11, &bx), ys = encrypt_many(k, 64, 12, &by);
    for (Gate g : {Gate::and_, Gate::or_, Gate::xor_, Gate::nand, Gate::nor, Gate::xnor}) {
      std::vector<Ciphertext> on_cpu(64), on_gpu(64);
      tfhe_test::pool().run([&](tempo::Task& t) {
        eval_gates(t, k.evaluation, g, xs, ys, on_cpu, Backend::cpu);
        eval_gates(t, k.evaluation, g, xs, ys, on_gpu, Backend::cuda);
      });
      for (std::size_t i = 0; i < 64; ++i) {
        INFO(name << " " << gate_name(g) << " item " << i);
        REQUIRE(to_bytes(on_gpu[i]) == to_bytes(on_cpu[i]));
        REQUIRE(decrypt_bit(k.secret, on_gpu[i]) == gate_plain(g, bx[i], by[i]));
      }
    }
  }
}

TEST_CASE("circuits on cuda: one GPU batch per level, same bytes as cpu", "[gpu]") {
  if (!have_device()) return;
  const Keys& k = tfhe_test::keys("TOY256", 0);
  std::mt19937_64 rng(5);
  for (int rep = 0; rep < 3; ++rep) {
    const std::uint64_t x = rng() & 0xffff, y = rng() & 0xffff;
    const std::uint64_t xv[1] = {x}, yv[1] = {y};
    const auto ex = encrypt_uint(k.secret, xv, 16), ey = encrypt_uint(k.secret, yv, 16);
    tfhe_test::pool().run([&](tempo::Task& t) {
      const auto on_gpu = add(t, k.evaluation, ex, ey, Backend::cuda);
      const auto on_cpu = add(t, k.evaluation, ex, ey, Backend::cpu);
      REQUIRE(on_gpu.bits.size() == on_cpu.bits.size());
      for (std::size_t i = 0; i < on_gpu.bits.size(); ++i) REQUIRE(to_bytes(on_gpu.bits[i]) == to_bytes(on_cpu.bits[i]));
      CHECK(decrypt_uint(k.secret, on_gpu).at(0) == ((x + y) & 0xffff));
    });
  }
}

TEST_CASE("device key cache: keys that die and new keys", "[gpu]") {
  if (!have_device()) return;
  for (std::uint64_t s = 0; s < 3; ++s) {
    const Keys k = keygen_deterministic(Params::preset("TOY256"), tfhe_test::seed(0x6b6579, s));
    std::vector<bool> bits;
    const std::vector<Ciphertext> cs = encrypt_many(k, 32, 50 + s, &bits);
    std::vector<Ciphertext> on_cpu(cs.size()), on_gpu(cs.size());
    tfhe_test::pool().run([&](tempo::Task& t) {
      eval_bootstraps(t, k.evaluation, cs, on_cpu, Backend::cpu);
      eval_bootstraps(t, k.evaluation, cs, on_gpu, Backend::cuda);
    });
    REQUIRE(on_gpu == on_cpu);
  }  // each key's device copies are freed here
}

TEST_CASE("auto with a device: a large batch leaves the pool, same bytes", "[gpu]") {
  if (!have_device()) return;
  const Keys& k = tfhe_test::keys("TOY256", 0);
  std::vector<bool> bx, by;
  const std::vector<Ciphertext> xs = encrypt_many(k, 2048, 80, &bx), ys = encrypt_many(k, 2048, 81, &by);
  std::vector<Ciphertext> on_cpu(xs.size()), by_auto(xs.size());
  const tempo::gpu::BatchReport rep = tfhe_test::pool().run([&](tempo::Task& t) {
    eval_gates(t, k.evaluation, Gate::and_, xs, ys, on_cpu, Backend::cpu);
    return eval_gates(t, k.evaluation, Gate::and_, xs, ys, by_auto, Backend::auto_select);
  });
  INFO(tempo::gpu::placement_name(rep.ran_on) << ": " << rep.reason);
  CHECK(rep.ran_on != tempo::gpu::Placement::cpu);
  CHECK(rep.gpu_items > 0);
  REQUIRE(by_auto == on_cpu);
  WARN("auto, 2048 TOY256 gates: " << tempo::gpu::placement_name(rep.ran_on) << ", " << rep.gpu_items
                                   << " on the device, " << rep.total_ms << " ms (" << rep.reason << ")");
}
