// Batches of TFHE gates and bootstraps on the tempo pool and/or CUDA devices, through
// tempo's offload engine (tempo::gpu::Engine::shared()).
//
//   tempo::ThreadPool pool;
//   pool.run([&](tempo::Task& t) {
//     tempo::gpu::BatchReport r = eval_gates(t, keys.evaluation, Gate::nand, xs, ys, out);
//     eval_bootstraps(t, keys.evaluation, cs, fresh, tempo::Backend::cpu);
//   });
//
// Backend contract (tempo::Backend, TEMPO_BACKEND, the last argument): cpu forces the pool;
// cuda requires a CUDA build and a device (std::runtime_error at once otherwise, never a
// silent fallback); auto lets the engine's cost model, calibrated per operation key, place
// each batch (small ones stay on the pool, large ones go to the devices or are shared).
// Every placement gives the same bytes: the kernel computes exactly what the CPU computes.
// The report says where the batch ran (ran_on, cpu_items, gpu_items) and why (reason).
//
// Single gates (eval_gate, eval_gate3, eval_bootstrap in <tempo/tfhe.hpp>) run on the calling
// task's pool whatever TEMPO_BACKEND says: a lone bootstrap is one thread block on one of a
// device's SMs (14.7 ms host to host for PN10QP27 on an H200, against ~35 ms on one core),
// not worth queueing behind the device's batches. Batch gates to use a device.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <tempo/gpu/engine.hpp>
#include <tempo/tfhe.hpp>

namespace tempo {
class Task;
}

namespace tempo::tfhe {

// out[i] = g(xs[i], ys[i]); xs, ys and out have the same length (std::invalid_argument
// otherwise, and for an input of another parameter set or dimension, before any work).
gpu::BatchReport eval_gates(Task& t, const EvaluationKey& ek, Gate g, std::span<const Ciphertext> xs,
                            std::span<const Ciphertext> ys, std::span<Ciphertext> out, gpu::RunOptions opt = {});

// out[i] = eval_bootstrap(cs[i]): a fresh-noise encryption of the same bit.
gpu::BatchReport eval_bootstraps(Task& t, const EvaluationKey& ek, std::span<const Ciphertext> cs,
                                 std::span<Ciphertext> out, gpu::RunOptions opt = {});

// Ciphertexts as the ops' items below (n + 1 uint32 each, back to back) and back, spread
// over the pool. to_items checks every ciphertext against p first (std::invalid_argument
// naming `what` and its index).
std::vector<std::uint32_t> to_items(Task& t, const Params& p, std::span<const Ciphertext> cs,
                                    const char* what = "ciphertext");
// out[i] from item i of `items` (out.size() items), tagged with p.
void from_items(Task& t, const Params& p, std::span<const std::uint32_t> items, std::span<Ciphertext> out);

// The batch operations themselves, for users who drive an engine directly (their own
// engine, pipelines, Offload). An item is a ciphertext as n + 1 little-endian uint32: the
// mask a, then b (values below q).
//   BootstrapOp: one input; out = eval_bootstrap(in); in place allowed.
//   GateOp:      two inputs x and y; out = eval_gate(g, x, y).
// Operation keys: "tfhe-bootstrap/<params name>" and "tfhe-gate/<params name>/<gate>" (the
// engine calibrates a cost model per key; tempo::mpi checks that every rank runs the same).
// The key's device copies (bootstrapping key, key-switching key, transform tables) reach a
// device with the op's first chunk there. The one-argument constructors use
// Engine::shared(), whose copies live with the EvaluationKey and serve every later op made
// from it or its copies; the forms taking an engine make copies for that op only (freed
// with its last copy). Run an op on the engine it was made for.
namespace detail {
struct OpState;
}

class BootstrapOp final : public gpu::BatchOp {
 public:
  explicit BootstrapOp(const EvaluationKey& ek);
  BootstrapOp(const EvaluationKey& ek, gpu::Engine& engine);
  std::string key() const override;
  std::size_t out_stride() const override;
  bool in_place_ok() const override { return true; }
  gpu::CostPrior prior() const override;
  void cpu(const gpu::Chunk& c) const override;
  bool forks_on_cpu() const override { return true; }
  void cpu_forked(Task& t, const gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const override;

 private:
  std::shared_ptr<const detail::OpState> s_;
};

class GateOp final : public gpu::BatchOp {
 public:
  GateOp(const EvaluationKey& ek, Gate g);
  GateOp(const EvaluationKey& ek, Gate g, gpu::Engine& engine);
  std::string key() const override;
  std::size_t inputs() const override { return 2; }
  std::size_t out_stride() const override;
  gpu::CostPrior prior() const override;
  void cpu(const gpu::Chunk& c) const override;
  bool forks_on_cpu() const override { return true; }
  void cpu_forked(Task& t, const gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const override;
  Gate gate() const noexcept { return gate_; }

 private:
  std::shared_ptr<const detail::OpState> s_;
  Gate gate_;
};

}  // namespace tempo::tfhe
