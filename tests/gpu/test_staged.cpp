// The engine's hooks for ops with long items or multi-stage device paths:
// forks_on_cpu (the op splits its CPU range itself) and gpu_staged (host stages around
// device stages, each run through the engine), on simulated devices.
#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

using namespace tempo;
using gpu::Operand;

namespace {

// out = in + 1 per byte; the "device stage" of the staged op.
class AddOne final : public gpu::BatchOp {
 public:
  std::string key() const override { return "test-add-one"; }
  std::size_t out_stride() const override { return 8; }
  void cpu(const gpu::Chunk& c) const override {
    for (std::size_t i = 0; i < c.count; ++i) {
      auto in = c.in[0].item(i);
      auto out = c.out_item(i);
      for (std::size_t k = 0; k < 8; ++k) out[k] = static_cast<std::uint8_t>(in[k] + 1);
    }
  }
};

// out = 2 * (in + 1): a host stage (double) after a device stage (AddOne through the engine).
class Staged final : public gpu::BatchOp {
 public:
  explicit Staged(double prior_cpu_ms_per_item) : prior_ms_(prior_cpu_ms_per_item) {}
  std::string key() const override { return "test-staged/" + std::to_string(prior_ms_); }
  std::size_t out_stride() const override { return 8; }
  gpu::CostPrior prior() const override {
    gpu::CostPrior p;
    p.cpu_fixed = 0.001;
    p.cpu_per_work = prior_ms_;
    p.gpu_fixed = 5.0;
    p.gpu_per_work = prior_ms_ / 1000;
    return p;
  }
  bool forks_on_cpu() const override { return true; }
  void cpu(const gpu::Chunk& c) const override {
    for (std::size_t i = 0; i < c.count; ++i) {
      auto in = c.in[0].item(i);
      auto out = c.out_item(i);
      for (std::size_t k = 0; k < 8; ++k) out[k] = static_cast<std::uint8_t>(2 * (in[k] + 1));
    }
  }
  void cpu_forked(Task& t, const gpu::Chunk& c) const override {
    forked_calls.fetch_add(1);
    tempo::parallel_for(t, std::size_t{0}, c.count, [&](std::size_t i) {
      gpu::Chunk one = c;
      one.count = 1;
      one.in[0].data = c.in[0].data + i * c.in[0].stride;
      one.out = c.out + i * c.out_stride;
      cpu(one);
    });
  }
  bool has_staged_gpu() const override { return true; }
  void gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const override {
    staged_calls.fetch_add(1);
    const std::span<const std::uint8_t> in(c.in[0].data, c.count * 8);
    const std::span<std::uint8_t> out(c.out, c.count * 8);
    const auto r = engine.run(t, AddOne{}, {Operand::fixed(in, 8)}, out, tempo::Backend::cuda);
    device_items.fetch_add(r.gpu_items);
    for (auto& b : out) b = static_cast<std::uint8_t>(2 * b);
  }
  mutable std::atomic<int> forked_calls{0}, staged_calls{0};
  mutable std::atomic<std::size_t> device_items{0};

 private:
  double prior_ms_;
};

std::vector<std::uint8_t> want_of(const std::vector<std::uint8_t>& in) {
  std::vector<std::uint8_t> w(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) w[i] = static_cast<std::uint8_t>(2 * (in[i] + 1));
  return w;
}

}  // namespace

TEST_CASE("a staged op: small batches on the CPU's forks, large ones through its device stages", "[engine][staged]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  gpu::Engine e(eo);
  Staged op(1.0);  // 1 ms per item on a core, a 5 ms fixed cost on the device
  for (std::size_t n : {std::size_t{4}, std::size_t{4000}}) {
    std::vector<std::uint8_t> in(n * 8);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 7);
    std::vector<std::uint8_t> out(in.size());
    const auto r = pool.run([&](Task& t) { return e.run(t, op, {Operand::fixed(in, 8)}, out, tempo::Backend::auto_select); });
    CHECK(out == want_of(in));
    INFO(r.reason);
    if (n == 4) {
      CHECK(r.ran_on == gpu::Placement::cpu);
    } else {
      CHECK(r.ran_on == gpu::Placement::gpu);  // never split: a staged op has no CPU blocks
      CHECK(r.gpu_items == n);
    }
  }
  CHECK(op.forked_calls.load() == 1);
  CHECK(op.staged_calls.load() == 1);
  CHECK(op.device_items.load() == 4000);
}

TEST_CASE("a staged op under Backend::cuda and through submit/join", "[engine][staged]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 1;
  gpu::Engine e(eo);
  Staged op(1.0);
  std::vector<std::uint8_t> in(10 * 8, 3), out(in.size()), out2(in.size());
  pool.run([&](Task& t) {
    const auto r = e.run(t, op, {Operand::fixed(in, 8)}, out, tempo::Backend::cuda);
    CHECK(r.ran_on == gpu::Placement::gpu);
    auto o = e.submit(t, op, {Operand::fixed(in, 8)}, out2, tempo::Backend::cuda);
    const auto r2 = o.join(t);
    CHECK(r2.ran_on == gpu::Placement::gpu);
  });
  CHECK(out == want_of(in));
  CHECK(out2 == want_of(in));
  CHECK(op.staged_calls.load() == 2);
}

TEST_CASE("Backend::cpu never calls the staged path", "[engine][staged]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 1;
  gpu::Engine e(eo);
  Staged op(1.0);
  std::vector<std::uint8_t> in(5000 * 8, 9), out(in.size());
  const auto r = pool.run([&](Task& t) { return e.run(t, op, {Operand::fixed(in, 8)}, out, tempo::Backend::cpu); });
  CHECK(r.ran_on == gpu::Placement::cpu);
  CHECK(out == want_of(in));
  CHECK(op.staged_calls.load() == 0);
}

TEST_CASE("one backend parser: case-insensitive, gpu is cuda, bad names named", "[engine][backend]") {
  CHECK(tempo::parse_backend("CPU") == tempo::Backend::cpu);
  CHECK(tempo::parse_backend("gpu") == tempo::Backend::cuda);
  CHECK(tempo::parse_backend("Cuda") == tempo::Backend::cuda);
  CHECK(tempo::parse_backend("AUTO") == tempo::Backend::auto_select);
  CHECK_THROWS_WITH(tempo::parse_backend("tpu"), Catch::Contains("'tpu'") && Catch::Contains("cpu, cuda, gpu, auto"));
  CHECK(tempo::backend_name(tempo::Backend::auto_select) == "auto");
}

namespace {
// Records every chunk's (count, batch) and copies its input: for Chunk::batch.
class ChunkLog final : public gpu::BatchOp {
 public:
  std::string key() const override { return "test-chunk-log"; }
  std::size_t out_stride() const override { return 8; }
  std::size_t min_device_chunk() const override { return 16; }
  void cpu(const gpu::Chunk& c) const override {
    std::memcpy(c.out, c.in[0].data, c.count * 8);
    std::lock_guard lock(m);
    chunks.emplace_back(c.count, c.batch);
  }
  mutable std::mutex m;
  mutable std::vector<std::pair<std::size_t, std::size_t>> chunks;
};
}  // namespace

TEST_CASE("every chunk knows its whole batch's size (Chunk::batch), on every placement", "[engine][chunk]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  gpu::Engine e(eo);
  for (const tempo::Backend b : {tempo::Backend::cpu, tempo::Backend::cuda, tempo::Backend::auto_select}) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{40}, std::size_t{5000}}) {
      INFO("backend " << static_cast<int>(b) << ", " << n << " items");
      ChunkLog op;
      std::vector<std::uint8_t> in(n * 8), out(n * 8, 0);
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<std::uint8_t>(i * 13 + 1);
      pool.run([&](Task& t) { e.run(t, op, {Operand::fixed(in, 8)}, out, b); });
      CHECK(out == in);
      std::size_t items = 0;
      for (const auto& [count, batch] : op.chunks) {
        items += count;
        CHECK(batch == n);
      }
      CHECK(items == n);
    }
  }
}
