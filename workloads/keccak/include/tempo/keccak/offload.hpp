// Keccak batches on the offload engine: hash_batch and submit run the "keccak/<algo>"
// BatchOp (HashOp) on the pool's workers and/or every CUDA device (tempo::gpu::Engine).
//
//   pool.run([&](tempo::Task& t) {
//     auto report = tempo::keccak::hash_batch(t, Algorithm::shake256, batch, 32, out);
//     // report.ran_on: Placement::cpu | gpu | split; report.copy_in_ms, ...
//   });
//
// Results are byte-identical whichever side runs: the CPU path is hash_batch_cpu's
// code; the GPU kernels are checked against it. The backend contract is
// tempo::Backend's (TEMPO_BACKEND). KT128/KT256 have no GPU kernel: they run on
// the CPU, also under Backend::cuda once the device check passed (the report says so).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <tempo/keccak/batch.hpp>
#include <tempo/keccak/keccak.hpp>
#include <tempo/gpu/gpu.hpp>

namespace tempo::keccak {

// A batch of equal-length messages laid end to end: message i is
// data[i*msg_len, (i+1)*msg_len). Needs no offsets array (8 bytes/message saved).
struct FixedBatch {
  std::span<const std::uint8_t> data;
  std::size_t msg_len = 0;
  std::size_t count = 0;
  void validate() const;  // std::invalid_argument when data.size() != msg_len * count
};

// Whether the algorithm has GPU kernels (all but KT128/KT256).
bool gpu_supports(Algorithm a) noexcept;

// The batch operation itself, for users who drive the engine directly (resident
// batches, pipelines, their own engine). Items: input 0 = the message, output =
// out_bytes of digest.
class HashOp final : public gpu::BatchOp {
 public:
  HashOp(Algorithm a, std::size_t out_bytes);  // std::invalid_argument for a bad out_bytes
  std::string key() const override;
  std::size_t out_stride() const override { return out_bytes_; }
  double work(double in_bytes) const override;  // Keccak-f calls per message
  gpu::CostPrior prior() const override;
  void cpu(const gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const override;
  std::uint64_t max_device_item() const override;
  Algorithm algorithm() const noexcept { return a_; }

 private:
  Algorithm a_;
  std::size_t out_bytes_;
};

// Hashes every message into out[i*out_bytes, (i+1)*out_bytes). out_bytes: any value
// >= 1 for XOFs; the digest size for SHA3-*. Bad arguments: std::invalid_argument.
// CUDA failures: gpu::CudaError (never a wrong answer).
gpu::BatchReport hash_batch(Task& t, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                            std::span<std::uint8_t> out, gpu::RunOptions opt = {});
gpu::BatchReport hash_batch(Task& t, Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                            std::span<std::uint8_t> out, gpu::RunOptions opt = {});

// The async form (Engine::submit): join() waits like a fork join. The caller keeps the
// batch and `out` alive and untouched until join() returns.
gpu::Offload submit(Task& t, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                    std::span<std::uint8_t> out, gpu::RunOptions opt = {});
gpu::Offload submit(Task& t, Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                    std::span<std::uint8_t> out, gpu::RunOptions opt = {});

}  // namespace tempo::keccak
