// The GPU batch path (SignOp / VerifyOp::gpu_staged): the host prepares one device item per
// signature (its front half: mu, the root, iv), the device stage (cuda/faest_device.hpp: the
// VOLE commitment, VOLEHash, QuickSilver, grinding and the opening) runs through tempo::gpu's
// engine as a BatchOp, and the host copies the signature out (sign) or compares chall3 (verify).
// Exposed for the tests (host emulation of the device stage).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <tempo/gpu/engine.hpp>

#include "common.hpp"
#include "cuda/faest_device.hpp"

namespace tempo::faest::detail {

dev::Layout gpu_layout_of(Params p, bool verifier);

// Host state of one verification between its halves.
struct VerifyJob {
  bool ok = false;  // false: rejected before the device stage
};

// Sign: unpacks the key (throws for a malformed one), writes iv_pre into sig and the
// device input item; then copies the rest of the signature from the device output item.
void sign_prepare(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                  std::span<const std::uint8_t> rho, std::uint8_t* sig, std::uint8_t* in_item);
void sign_complete(Params p, const std::uint8_t* out_item, std::uint8_t* sig);
// Verify: the device input item (a harmless one when the signature is rejected early);
// then the verdict from the device output item.
void verify_prepare(Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                    const std::uint8_t* sig, VerifyJob& job, std::uint8_t* in_item);
bool verify_complete(Params p, const VerifyJob& job, const std::uint8_t* sig, const std::uint8_t* out_item);

// The device stage as an offload-engine operation (one item = one signature).
class StageOp final : public tempo::gpu::BatchOp {
 public:
  StageOp(Params p, bool verifier);
  std::string key() const override;
  std::size_t out_stride() const override { return lay_.out_stride(); }
  double work(double) const override;  // AES blocks per signature
  tempo::gpu::CostPrior prior() const override;
  void cpu(const tempo::gpu::Chunk& c) const override;
  bool has_cuda() const override;
  int cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const override;
  // Signing stages carry the per-signature root seeds: the engine wipes its copies.
  bool holds_secrets() const override { return !lay_.verifier; }
  // Device chunks of at least gpu_chunk signatures (TEMPO_FAEST_GPU_CHUNK sets another
  // floor, for measuring).
  std::size_t min_device_chunk() const override { return min_chunk_; }
  const dev::Layout& layout() const { return lay_; }
  // TEMPO_FAEST_GPU_PROFILE at construction: the batch loop's and the kernels' timing lines.
  bool profile_stages() const { return profile_stages_; }

 private:
  Params p_;
  dev::Layout lay_;
  bool profile_stages_;  // TEMPO_FAEST_GPU_PROFILE, read before any chunk reaches the device
  std::size_t min_chunk_;
};

// The batches with their device stages on `engine` (forced to its devices), `slice`
// signatures per device batch (tests pass small slices). rhos empty: os_random.
inline constexpr std::size_t gpu_slice = 4096;
// The device chunks' floor (StageOp::min_device_chunk): a chunk's serial stages (the hashes,
// the QuickSilver parts, grinding, the opening) run a thread or a warp per signature, so a
// chunk of a few hundred leaves the device idle while they run; chunks of a thousand fill
// it, and a slice's chunks on separate streams overlap one's serial stages with another's
// wide ones (H100, 2026-12-07, three rounds alternating: 16,384 signatures in 153-155 ms
// against 157-160 ms with the engine's byte-sized chunks and 162-165 ms with 2,048; 1,024
// alike).
inline constexpr std::size_t gpu_chunk = 1024;
void sign_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> sks,
                    std::span<const std::span<const std::uint8_t>> msgs,
                    std::span<const std::span<const std::uint8_t>> rhos, std::span<const std::span<std::uint8_t>> outs,
                    tempo::gpu::Engine& engine, std::size_t slice = gpu_slice);
void verify_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> pks,
                      std::span<const std::span<const std::uint8_t>> msgs,
                      std::span<const std::span<const std::uint8_t>> sigs, std::span<std::uint8_t> results,
                      tempo::gpu::Engine& engine, std::size_t slice = gpu_slice);

}  // namespace tempo::faest::detail
