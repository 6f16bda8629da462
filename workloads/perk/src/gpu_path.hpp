// The GPU batch path of the aes_aes sets (SignOp::gpu_staged): the host prepares one device
// item per signature (mu, the tree's root seed and the salt), the device stage
// (cuda/perk_device.hpp: the GGM forest, leaf commitments, ConvertToVOLE, the challenges,
// VOLEHash, the PKP proof and the grinding search) runs through tempo::gpu's engine as a
// BatchOp, and the host finishes each signature (the opening from the root seed, the
// serialisation). Exposed for the tests (host emulation of the device stage).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <tempo/gpu/engine.hpp>
#include <tempo/perk.hpp>

#include "cuda/perk_device.hpp"
#include "params.hpp"

namespace tempo::perk::detail {

// The sets with a device stage: AES for the PRGs and the leaf commitments.
bool gpu_supported(Params p);
dev::Layout gpu_layout_of(Params p);  // std::invalid_argument for a set without a device stage
// SignOp's GPU cost terms for a set with a device stage (the engine refines them).
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
  const dev::Layout& layout() const { return lay_; }

 private:
  Params p_;
  dev::Layout lay_;
};

// The batch with its device stages on `engine`, `slice` signatures per device batch (the host
// prepares slice k + 1 and finishes slice k - 1 while the device runs slice k; tests pass
// small slices). rands empty: os_random.
inline constexpr std::size_t gpu_slice = 4096;
void sign_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> sks,
                    std::span<const std::span<const std::uint8_t>> msgs,
                    std::span<const std::span<const std::uint8_t>> rands, std::span<const std::span<std::uint8_t>> outs,
                    tempo::gpu::Engine& engine, std::size_t slice = gpu_slice);

}  // namespace tempo::perk::detail
