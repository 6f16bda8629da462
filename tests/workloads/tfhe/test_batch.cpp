// The public batch ops (BootstrapOp, GateOp) on engines of simulated devices: auto placement
// by the cost model (a small batch stays on the CPU, a large one goes to the devices), the
// cuda backend, byte equality with the CPU path whatever the placement, layout checks.
#include <catch2/catch.hpp>

#include <array>

#include <tempo/gpu/engine.hpp>

#include "helpers.hpp"

using namespace tempo::tfhe;
using tempo::gpu::Placement;

namespace {

// Ciphertexts as op items: n + 1 words each.
std::vector<std::uint32_t> pack(const std::vector<Ciphertext>& cs) {
  std::vector<std::uint32_t> w;
  for (const Ciphertext& c : cs) {
    w.insert(w.end(), c.a.begin(), c.a.end());
    w.push_back(c.b);
  }
  return w;
}

std::span<const std::uint8_t> in_bytes(const std::vector<std::uint32_t>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(std::uint32_t)};
}
std::span<std::uint8_t> out_bytes(std::vector<std::uint32_t>& v) {
  return {reinterpret_cast<std::uint8_t*>(v.data()), v.size() * sizeof(std::uint32_t)};
}

// A gate batch's two inputs.
std::array<tempo::gpu::Operand, 2> gate_inputs(const std::vector<std::uint32_t>& x, const std::vector<std::uint32_t>& y,
                                               std::size_t stride) {
  return {tempo::gpu::Operand::fixed(in_bytes(x), stride), tempo::gpu::Operand::fixed(in_bytes(y), stride)};
}

std::vector<Ciphertext> encrypt_many(const Keys& k, std::size_t count, std::uint64_t tag) {
  std::vector<Ciphertext> out;
  for (std::size_t i = 0; i < count; ++i)
    out.push_back(encrypt_bit_deterministic(k.secret, (i * 5 + tag) % 3 == 0, tfhe_test::seed(tag, i)));
  return out;
}

}  // namespace

TEST_CASE("auto: the cost model keeps a small batch on the CPU and sends a large one to the devices", "[batch]") {
  // Two simulated devices (host threads running the op's CPU code on claimed chunks) and a
  // two-thread pool of its own, so the estimate does not depend on the test host's cores.
  tempo::gpu::Engine engine(tempo::gpu::EngineOptions{.simulated_devices = 2});
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Keys& k = tfhe_test::keys("TOY256", 3);
  const BootstrapOp boot(k.evaluation, engine);
  const GateOp gate(k.evaluation, Gate::nand, engine);
  CHECK(boot.key() == "tfhe-bootstrap/TOY256");
  CHECK(gate.key() == "tfhe-gate/TOY256/nand");
  const std::size_t stride = boot.out_stride();
  CHECK(stride == (k.secret.params().n + 1) * 4);

  // TOY256's priors: ~0.9 ms per bootstrap on a core, ~0.5 ms for one on a device (its chain
  // of blind-rotation steps), ~70 us each at the device's rate. These simulated devices also
  // cost a hand-off of about 2 ms per batch (host threads, not a GPU's microseconds), which
  // calibrate() tells the model as the engine's own measurements would. On 2 workers and 2
  // devices: 2 items stay on the CPU, 128 and 512 go to the devices (128 may be shared).
  const auto calibrate = [&](const tempo::gpu::BatchOp& op) {
    tempo::gpu::CostModel& m = engine.cost_model(op);
    m.reset();
    const double per_item = m.gpu().variable(1, 0);
    for (double items : {1.0, 32.0, 256.0, 1024.0}) m.observe_gpu(items, 0, 2.0 + items * per_item);
  };
  struct Case {
    std::size_t count;
    const char* decision;
  };
  for (const Case& cs : {Case{2, "cost model: cpu"}, Case{128, "cost model: "}, Case{512, "cost model: gpu"}}) {
    const std::size_t count = cs.count;
    const std::vector<Ciphertext> xs = encrypt_many(k, count, 60), ys = encrypt_many(k, count, 61);
    const std::vector<std::uint32_t> x = pack(xs), y = pack(ys);
    std::vector<Ciphertext> want_gate(count), want_boot(count);
    pool.run([&](tempo::Task& t) {
      eval_gates(t, k.evaluation, Gate::nand, xs, ys, want_gate, tempo::Backend::cpu);
      eval_bootstraps(t, k.evaluation, xs, want_boot, tempo::Backend::cpu);
    });
    std::vector<std::uint32_t> g(x.size()), b = x;  // the refresh runs in place
    tempo::gpu::BatchReport rg, rb;
    pool.run([&](tempo::Task& t) {
      // Calibrated afresh each time: what the model learns from one batch must not decide the next.
      calibrate(gate);
      rg = engine.run(t, gate, gate_inputs(x, y, stride), out_bytes(g), tempo::Backend::auto_select);
      calibrate(boot);
      rb = engine.run(t, boot, {tempo::gpu::Operand::fixed(in_bytes(b), stride)}, out_bytes(b),
                      tempo::Backend::auto_select);
    });
    for (const tempo::gpu::BatchReport* r : {&rg, &rb}) {
      INFO(count << " items: ran on " << tempo::gpu::placement_name(r->ran_on) << ", " << r->reason);
      CHECK(r->items == count);
      CHECK(r->reason.rfind(cs.decision, 0) == 0);
      if (count == 2) {
        CHECK(r->ran_on == Placement::cpu);
        CHECK(r->gpu_items == 0);
      } else if (count == 128) {
        CHECK(r->ran_on != Placement::cpu);  // how the two sides met depends on timing
        CHECK(r->gpu_items > 0);
      } else {
        CHECK(r->ran_on == Placement::gpu);
        CHECK(r->cpu_items == 0);
        CHECK(r->devices_used > 0);
      }
    }
    // The same bytes whichever side computed an item.
    CHECK(g == pack(want_gate));
    CHECK(b == pack(want_boot));
  }
}

TEST_CASE("backend cuda on simulated devices; cpu never touches them", "[batch]") {
  tempo::gpu::Engine engine(tempo::gpu::EngineOptions{.simulated_devices = 2});
  const Keys& k = tfhe_test::keys("TOY256", 3);
  const GateOp gate(k.evaluation, Gate::xor_, engine);
  const std::vector<Ciphertext> xs = encrypt_many(k, 12, 70), ys = encrypt_many(k, 12, 71);
  const std::vector<std::uint32_t> x = pack(xs), y = pack(ys);
  std::vector<Ciphertext> want(xs.size());
  tfhe_test::pool().run(
      [&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::xor_, xs, ys, want, tempo::Backend::cpu); });
  const std::size_t stride = gate.out_stride();
  for (const tempo::Backend be : {tempo::Backend::cuda, tempo::Backend::cpu}) {
    std::vector<std::uint32_t> g(x.size());
    const tempo::gpu::BatchReport r = tfhe_test::pool().run([&](tempo::Task& t) {
      return engine.run(t, gate, gate_inputs(x, y, stride), out_bytes(g), be);
    });
    INFO(tempo::backend_name(be) << ": " << r.reason);
    CHECK(r.ran_on == (be == tempo::Backend::cuda ? Placement::gpu : Placement::cpu));
    CHECK(g == pack(want));
  }
}

TEST_CASE("ops check their items' layout", "[batch]") {
  const Keys& k = tfhe_test::keys("TOY256", 3);
  const BootstrapOp boot(k.evaluation);
  std::vector<std::uint32_t> words(3 * 17, 0), out(3 * 65);  // TOY256: n + 1 = 65 words
  CHECK_THROWS_WITH(tfhe_test::pool().run([&](tempo::Task& t) {
                      tempo::gpu::Engine::shared().run(t, boot, {tempo::gpu::Operand::fixed(in_bytes(words), 17 * 4)},
                                                       out_bytes(out), tempo::Backend::cpu);
                    }),
                    Catch::Contains("fixed items of 260 bytes"));
  CHECK_THROWS_AS(BootstrapOp(EvaluationKey{}), std::invalid_argument);
  CHECK_THROWS_AS(GateOp(EvaluationKey{}, Gate::and_), std::invalid_argument);
}
