// Test-only batch operations for the engine (beside the documented example op):
//   XorKey:   in place over 64-byte items, item ^= key (device constants, 64 bytes)
//   AddPairs: two inputs of 8-byte words, out = a + b (mod 2^64), per word
//   Noop:     no work per item (engine overhead), 8-byte items
//   Failing:  a kernel launch that returns a CUDA error (error propagation, out-of-memory fallback)
#pragma once

#include <cstdint>
#include <string>

#include <tempo/gpu/gpu.hpp>

namespace gtest {

class XorKey final : public tempo::gpu::BatchOp {
 public:
  XorKey(tempo::gpu::Engine& e, std::span<const std::uint8_t> key) : key_(e, key) {}
  std::string key() const override { return "test/xor-key"; }
  std::size_t out_stride() const override { return 64; }
  bool in_place_ok() const override { return true; }
  void cpu(const tempo::gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const override;
  tempo::gpu::DeviceConstants& constants() { return key_; }

 private:
  tempo::gpu::DeviceConstants key_;
};

class AddPairs final : public tempo::gpu::BatchOp {
 public:
  explicit AddPairs(std::size_t stride) : stride_(stride) {}
  std::string key() const override { return "test/add-pairs/" + std::to_string(stride_); }
  std::size_t inputs() const override { return 2; }
  std::size_t out_stride() const override { return stride_; }
  bool in_place_ok() const override { return true; }
  void cpu(const tempo::gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const override;

 private:
  std::size_t stride_;
};

class Noop final : public tempo::gpu::BatchOp {
 public:
  std::string key() const override { return "test/noop"; }
  std::size_t out_stride() const override { return 8; }
  double work(double) const override { return 0.0; }
  void cpu(const tempo::gpu::Chunk&) const override {}
};

class Failing final : public tempo::gpu::BatchOp {
 public:
  std::string key() const override { return "test/failing"; }
  std::size_t out_stride() const override { return 8; }
  void cpu(const tempo::gpu::Chunk& c) const override;
  bool has_cuda() const override { return true; }
  // 98 = cudaErrorInvalidDeviceFunction (not out-of-memory, which the engine recovers from).
  explicit Failing(int code = 98) : code_(code) {}
  int cuda(const tempo::gpu::Chunk&, const tempo::gpu::DeviceContext&) const override { return code_; }

 private:
  int code_;
};

}  // namespace gtest
