// Batches of polynomials on the tempo pool and/or CUDA devices, through tempo's offload
// engine (tempo::gpu::Engine::shared()).
//
// A batch is `count` polynomials of plan.n() coefficients laid end to end: count * n
// uint64 values, or (Layout::u32, plans with q < 2^31) count * n uint32 values. The
// results are the same bytes whichever side computes a polynomial (the CUDA kernels
// compute exactly what Plan::forward/inverse compute).
//
// Layout::u32 halves the bytes a transform moves (n * 4 read and written instead of
// n * 8): on a GPU the NTT of a q < 2^31 plan is bound by memory bandwidth, so resident
// batches run about 1.5x as fast; the CPU computes the same values either way.
//
//   tempo::ThreadPool pool;
//   pool.run([&](tempo::Task& t) {
//     tempo::ntt::forward_batch(t, plan, polys);               // TEMPO_BACKEND decides
//     tempo::ntt::multiply_batch(t, plan, a, b, out, tempo::Backend::cuda);
//   });
//
// Backend contract (tempo::Backend, TEMPO_BACKEND): cpu forces the pool; cuda
// requires a device (std::runtime_error otherwise, never a silent fallback); auto lets the
// engine's cost model place the batch (CPU, GPU, or both ends at once).
//
// Checked: every entry point here checks lengths (a multiple of n; a, b and out of equal
// size) and values (< q) before any work, naming the polynomial, index and value; the
// *_unchecked forms check lengths only. Twiddle tables go to each device once per Plan
// (copies of a Plan share them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <tempo/gpu/gpu.hpp>
#include <tempo/ntt/plan.hpp>

namespace tempo {
class Task;
}

namespace tempo::ntt {

// In place: every polynomial of polys goes to the transform domain (Plan::forward's order).
gpu::BatchReport forward_batch(Task& t, const Plan& plan, std::span<std::uint64_t> polys,
                               gpu::RunOptions opt = {});
gpu::BatchReport inverse_batch(Task& t, const Plan& plan, std::span<std::uint64_t> polys,
                               gpu::RunOptions opt = {});
// out[i] = a[i] * b[i] mod (X^n + 1, q) for each polynomial i (out may alias a or b).
gpu::BatchReport multiply_batch(Task& t, const Plan& plan, std::span<const std::uint64_t> a,
                                std::span<const std::uint64_t> b, std::span<std::uint64_t> out,
                                gpu::RunOptions opt = {});

gpu::BatchReport forward_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint64_t> polys,
                                         gpu::RunOptions opt = {});
gpu::BatchReport inverse_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint64_t> polys,
                                         gpu::RunOptions opt = {});
gpu::BatchReport multiply_batch_unchecked(Task& t, const Plan& plan, std::span<const std::uint64_t> a,
                                          std::span<const std::uint64_t> b, std::span<std::uint64_t> out,
                                          gpu::RunOptions opt = {});

// The same over 32-bit coefficients (Layout::u32): plans with q < 2^31 only, else
// std::invalid_argument before anything is read or written.
gpu::BatchReport forward_batch(Task& t, const Plan& plan, std::span<std::uint32_t> polys,
                               gpu::RunOptions opt = {});
gpu::BatchReport inverse_batch(Task& t, const Plan& plan, std::span<std::uint32_t> polys,
                               gpu::RunOptions opt = {});
gpu::BatchReport multiply_batch(Task& t, const Plan& plan, std::span<const std::uint32_t> a,
                                std::span<const std::uint32_t> b, std::span<std::uint32_t> out,
                                gpu::RunOptions opt = {});
gpu::BatchReport forward_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint32_t> polys,
                                         gpu::RunOptions opt = {});
gpu::BatchReport inverse_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint32_t> polys,
                                         gpu::RunOptions opt = {});
gpu::BatchReport multiply_batch_unchecked(Task& t, const Plan& plan, std::span<const std::uint32_t> a,
                                          std::span<const std::uint32_t> b, std::span<std::uint32_t> out,
                                          gpu::RunOptions opt = {});

// The batch operations themselves, for users who drive the engine directly: resident
// batches (gpu::DeviceBatch, Engine::run_resident: data stays on the device across
// forward -> pointwise -> inverse), pipelines, other engines. Items are n * 8 bytes
// (Layout::u64) or n * 4 bytes (Layout::u32).
//   forward, inverse: one input, in place allowed.
//   pointwise:        two inputs (transform domain), out = a .* b mod q.
//   multiply:         two inputs (coefficients), out = a * b mod (X^n + 1, q).
enum class OpKind { forward, inverse, pointwise, multiply };

// The coefficients' word in memory. u32: plans with q < 2^31 (std::invalid_argument
// otherwise), half the bytes of u64.
enum class Layout { u64, u32 };

class NttOp final : public gpu::BatchOp {
 public:
  // On Engine::shared(), sharing the device tables of every op made from this Plan (or
  // its copies). The tables reach a device with its first chunk, once.
  NttOp(const Plan& plan, OpKind kind, Layout layout = Layout::u64);
  // On another engine: this op's own device tables.
  NttOp(const Plan& plan, OpKind kind, gpu::Engine& engine, Layout layout = Layout::u64);
  std::string key() const override { return key_; }
  std::size_t inputs() const override { return kind_ == OpKind::forward || kind_ == OpKind::inverse ? 1 : 2; }
  std::size_t out_stride() const override {
    return plan_.n() * (layout_ == Layout::u32 ? sizeof(std::uint32_t) : sizeof(std::uint64_t));
  }
  bool in_place_ok() const override { return true; }
  double work(double in_bytes) const override;  // butterflies (plus coefficients for products)
  gpu::CostPrior prior() const override;
  void cpu(const gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const override;
  const Plan& plan() const noexcept { return plan_; }
  OpKind kind() const noexcept { return kind_; }
  Layout layout() const noexcept { return layout_; }

 private:
  Plan plan_;
  OpKind kind_;
  Layout layout_;
  std::string key_;
  gpu::DeviceConstants tables_;  // device twiddle tables (detail::device_table_bytes)
};

}  // namespace tempo::ntt
