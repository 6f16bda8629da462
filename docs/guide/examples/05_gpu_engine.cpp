// Guide, part 3: your own batch operation on the offload engine (CPU path only here;
// examples/offload_op adds a CUDA kernel), run, submit, Pipeline and DeviceBatch.
#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

// out = 3 * in + 1 for every 32-bit item, mod 2^32.
class Affine final : public tempo::gpu::BatchOp {
 public:
  std::string key() const override { return "guide/affine"; }
  std::size_t out_stride() const override { return 4; }
  bool in_place_ok() const override { return true; }
  void cpu(const tempo::gpu::Chunk& c) const override {
    for (std::size_t i = 0; i < c.count; ++i) {
      std::uint32_t v;
      std::memcpy(&v, c.in[0].item(i).data(), 4);
      v = 3 * v + 1;
      std::memcpy(c.out_item(i).data(), &v, 4);
    }
  }
};

int main() {
  namespace gpu = tempo::gpu;
  tempo::ThreadPool pool;
  gpu::Engine& engine = gpu::Engine::shared();
  Affine op;

  std::vector<std::uint32_t> xs(100000, 7), ys(xs.size());
  const std::span<const std::uint8_t> in(reinterpret_cast<const std::uint8_t*>(xs.data()), xs.size() * 4);
  const std::span<std::uint8_t> out(reinterpret_cast<std::uint8_t*>(ys.data()), ys.size() * 4);

  pool.run([&](tempo::Task& t) {
    // Blocking: returns when every item is written. The report says where it ran and why.
    gpu::BatchReport r = engine.run(t, op, {gpu::Operand::fixed(in, 4)}, out);
    std::printf("ran on %s (%zu cpu items, %zu gpu items): %s\n", std::string(gpu::placement_name(r.ran_on)).c_str(),
                r.cpu_items, r.gpu_items, r.reason.c_str());

    // Forcing the CPU for this call (TEMPO_BACKEND=cpu does it for every call).
    engine.run(t, op, {gpu::Operand::fixed(in, 4)}, out, tempo::Backend::cpu);

    // Asynchronous: the device part starts now; join waits like a fork join.
    gpu::Offload o = engine.submit(t, op, {gpu::Operand::fixed(in, 4)}, out);
    // ... other tempo work here; in and out stay untouched until join returns ...
    r = o.join(t);

    // Many batches in a stream: at most two in flight.
    gpu::Pipeline p(engine, 2);
    for (std::uint64_t k = 0; k < 4; ++k) {
      // When two batches are in flight, submit first joins the oldest and returns it.
      std::optional<gpu::Pipeline::Done> done = p.submit(t, op, {gpu::Operand::fixed(in, 4)}, out, k);
      if (done) std::printf("batch %llu done\n", static_cast<unsigned long long>(done->tag));
    }
    for (const gpu::Pipeline::Done& d : p.drain(t)) std::printf("batch %llu done\n", static_cast<unsigned long long>(d.tag));

    // Data that stays on the device between operations (host memory when no device is used).
    gpu::DeviceBatch b = gpu::DeviceBatch::upload(engine, in, 4);
    engine.run_resident(t, op, {&b}, b);  // in place: the op allows it
    engine.run_resident(t, op, {&b}, b);
    b.download(out);
  });
  std::printf("%u\n", ys[0]);  // 3 * (3 * 7 + 1) + 1 = 67
}
