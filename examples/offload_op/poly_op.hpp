// A user-defined batch operation on tempo's offload engine, with its own kernel:
// evaluates one polynomial (coefficients uploaded once per device) at every item.
//   item:   a 32-bit x (input 0, stride 4)
//   output: p(x) = c0 + c1 x + ... + cd x^d  mod 2^32 (stride 4)
// Exact integer arithmetic, so the CPU and GPU results are the same bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <tempo/gpu/gpu.hpp>

namespace example {

class PolyEval final : public tempo::gpu::BatchOp {
 public:
  PolyEval(tempo::gpu::Engine& engine, std::vector<std::uint32_t> coeffs);

  std::string key() const override { return "example/poly-eval/deg" + std::to_string(degree_); }
  std::size_t out_stride() const override { return 4; }
  bool in_place_ok() const override { return true; }
  double work(double) const override { return static_cast<double>(degree_ + 1); }  // multiply-adds
  void cpu(const tempo::gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const override;

  // Releases the device copies of the coefficients (later batches throw).
  void release() noexcept { coeffs_.release(); }

 private:
  tempo::gpu::DeviceConstants coeffs_;  // uint32 coefficients, c0 first
  std::size_t degree_;
};

}  // namespace example
