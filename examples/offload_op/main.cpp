// Runs the example PolyEval op on a million items through the shared engine and
// checks a few results by hand. Prints where it ran.
#include <cstdio>
#include <cstring>
#include <vector>

#include <tempo/tempo.hpp>

#include "poly_op.hpp"

int main() {
  tempo::gpu::Engine& engine = tempo::gpu::Engine::shared();
  example::PolyEval op(engine, {7, 3, 0, 1});  // p(x) = 7 + 3x + x^3
  std::vector<std::uint32_t> xs(1 << 20), ys(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<std::uint32_t>(i * 2654435761u);
  tempo::ThreadPool pool;
  auto as_bytes = [](auto& v) { return std::span<std::uint8_t>(reinterpret_cast<std::uint8_t*>(v.data()), v.size() * 4); };
  const tempo::gpu::BatchReport r = pool.run([&](tempo::Task& t) {
    return engine.run(t, op, {tempo::gpu::Operand::fixed(as_bytes(xs), 4)}, as_bytes(ys));
  });
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, xs.size() - 1}) {
    const std::uint32_t x = xs[i], want = 7 + 3 * x + x * x * x;
    if (ys[i] != want) {
      std::printf("wrong result at %zu\n", i);
      return 1;
    }
  }
  std::printf("%zu items on %s (%zu on the CPU, %zu on the GPU) in %.3f ms: %s\n", r.items,
              std::string(tempo::gpu::placement_name(r.ran_on)).c_str(), r.cpu_items, r.gpu_items, r.total_ms,
              r.reason.c_str());
}
