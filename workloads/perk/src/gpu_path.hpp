// The GPU batch path of every set (SignOp::gpu_staged): the host prepares one device
// item per signature (mu, the tree's root seed and the salt), the device stage
// (cuda/perk_device.hpp: the GGM forest, leaf commitments, ConvertToVOLE, the challenges,
// VOLEHash, the PKP proof and the grinding search) runs through tempo::gpu's engine as a
// BatchOp, and the host finishes each signature (the opening from the root seed, the
// serialisation). VerifyOp::gpu_staged likewise: the host parses (verify_prepare), the device
// verifies (cuda/perk_verify.hpp, VerifyStageOp). Exposed for the tests (host emulation of the
// device stages).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <tempo/gpu/engine.hpp>
#include <tempo/perk.hpp>

#include "cuda/perk_device.hpp"
#include "cuda/perk_verify.hpp"
#include "params.hpp"

namespace tempo::perk::detail {

// The device stage's shape (std::invalid_argument for an unknown set).
dev::Layout gpu_layout_of(Params p);
// SignOp's GPU cost terms (the engine refines them).
void gpu_prior(Params p, tempo::gpu::CostPrior& c);

// Checks the key (throws std::invalid_argument for a malformed one), writes the salt into
// sig and the device input item (root seed || salt || mu: secret, the caller wipes it).
void sign_prepare(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                  std::span<const std::uint8_t> rand, std::uint8_t* sig, std::uint8_t* in_item);
// From the device output item (secret until used: the caller wipes it), the rest of the signature.
void sign_complete(Params p, const std::uint8_t* out_item, std::uint8_t* sig);

// The device stage as an offload-engine operation (one item = one signature).
class StageOp final : public tempo::gpu::BatchOp {
 public:
  explicit StageOp(Params p);
  std::string key() const override;
  std::size_t out_stride() const override { return lay_.out_stride(); }
  double work(double) const override;  // AES blocks per signature
  tempo::gpu::CostPrior prior() const override;
  // The same stage with the CPU code (forest.cpp), for the engine's CPU share and the tests.
  void cpu(const tempo::gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const override;
  // Items carry the tree's root seeds: the engine wipes its copies.
  bool holds_secrets() const override { return true; }
  std::size_t min_device_chunk() const override;
  const dev::Layout& layout() const { return lay_; }

 private:
  Params p_;
  dev::Layout lay_;
  bool profile_stages_;  // TEMPO_PERK_GPU_PROFILE, read before any chunk reaches the device
};

// The batch with its device stages on `engine`, `slice` signatures per device batch (the host
// prepares slice k + 1 and finishes slice k - 1 while the device runs slice k; tests pass
// small slices). rands empty: os_random. The engine cuts a slice into chunks of at least
// gpu_chunk signatures (the ops' min_device_chunk): the serial stages of a signature (its
// hashes, the opening) run a thread per signature, so a launch needs thousands of them to
// fill the device, and a slice's chunks on separate streams overlap one chunk's serial stages
// with another's wide ones.
inline constexpr std::size_t gpu_slice = 8192;
inline constexpr std::size_t gpu_chunk = 2048;
void sign_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> sks,
                    std::span<const std::span<const std::uint8_t>> msgs,
                    std::span<const std::span<const std::uint8_t>> rands, std::span<const std::span<std::uint8_t>> outs,
                    tempo::gpu::Engine& engine, std::size_t slice = gpu_slice);

// ---- verification (VerifyOp::gpu_staged) --------------------------------------------------

dev::VerifyLayout gpu_verify_layout_of(Params p);  // std::invalid_argument for a set without a device stage

// The host's half of one verification: false when the CPU rejects it before any hashing
// (a malformed public key, nonzero padding bits, an opening over t_open seeds or with nonzero
// unused seeds, a hidden leaf in the wrong subtree); else the device input item (mu, the
// parsed signature, the opening's nodes and the hidden leaves) in `in_item`.
bool verify_prepare(Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                    std::span<const std::uint8_t> sig, std::uint8_t* in_item);
// The device verification's stages (cuda/perk_verify.hpp) run on the host, thread after thread
// in the kernels' order: `count` prepared items to one byte each.
void verify_stage_host(const dev::VerifyLayout& v, const std::uint8_t* in, std::uint8_t* out, std::size_t count);

// The device stage of verification as an engine operation: one byte per prepared item.
class VerifyStageOp final : public tempo::gpu::BatchOp {
 public:
  explicit VerifyStageOp(Params p);
  std::string key() const override;
  std::size_t out_stride() const override { return 1; }
  double work(double) const override;  // AES blocks per verification
  tempo::gpu::CostPrior prior() const override;
  // The device code on the host (verify_stage_host).
  void cpu(const tempo::gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const override;
  std::size_t min_device_chunk() const override;
  const dev::VerifyLayout& layout() const { return v_; }

 private:
  Params p_;
  dev::VerifyLayout v_;
};

// Verdicts of a batch (one byte each, 1 = valid) with the device stage on `engine`, `slice`
// verifications per device batch.
void verify_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> pks,
                      std::span<const std::span<const std::uint8_t>> msgs,
                      std::span<const std::span<const std::uint8_t>> sigs, std::span<std::uint8_t> results,
                      tempo::gpu::Engine& engine, std::size_t slice = gpu_slice);

}  // namespace tempo::perk::detail
