// The FAEST CUDA kernels: one kernel per stage of faest_device.hpp, one thread per item of
// the stage; every thread runs dev::run_thread, the code the host emulation tests run.
// The back half's per-signature stages (prove above all) keep their QuickSilver state in
// the per-signature scratch and in local memory.
#include <cuda_runtime.h>
#include <tempo/gpu/backend.hpp>
#include <tempo/gpu/detail/cuda.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

#include "cuda/faest_kernels.hpp"

namespace tempo::faest::cuda {
namespace {

constexpr unsigned kBlock = 128;

// The AES stages (two tree nodes or two leaves per thread) are throughput-bound: resident
// warps hide the bit-plane S-box's latency, registers save spills. Three blocks per SM (168
// registers) measured 1-3% faster than four (128, 224 bytes of stack in the leaves) and
// than two (H100, three rounds alternating, batches of 1,024 and 16,384).
template <dev::Stage S>
constexpr unsigned min_blocks = S == dev::Stage::leaves || S == dev::Stage::leaf_rows || S == dev::Stage::expand ? 3 : 1;

template <dev::Stage S>
__global__ void __launch_bounds__(kBlock, min_blocks<S>) stage_kernel(dev::Args a, dev::Launch l, std::uint64_t threads) {
  const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  l.stage = S;  // a constant: the switch in run_thread folds away
  dev::run_thread(a, l, t);
}

// A launch of two independent stages (dev::Launch::also): both are constants here too.
template <dev::Stage S, dev::Stage S2>
__global__ void __launch_bounds__(kBlock, std::max(min_blocks<S>, min_blocks<S2>))
    pair_kernel(dev::Args a, dev::Launch l, std::uint64_t threads) {
  const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  l.stage = S;
  l.also = S2;
  dev::run_launch_thread(a, l, t);
}

constexpr std::size_t kStages = std::size_t(dev::Stage::open) + 1;  // root .. open

using Kernel = void (*)(dev::Args, dev::Launch, std::uint64_t);

// The pairs that dev::for_each_stage launches together: one kernel per dev::kStagePairs entry.
Kernel pair_kernel_of(dev::Stage first, dev::Stage also) {
  static const auto kernels = tempo::gpu::detail::kernel_table<std::size(dev::kStagePairs)>([](auto i) -> Kernel {
    constexpr dev::StagePair p = dev::kStagePairs[decltype(i)::value];
    return &pair_kernel<p.first, p.also>;
  });
  for (std::size_t i = 0; i < kernels.size(); ++i)
    if (dev::kStagePairs[i].first == first && dev::kStagePairs[i].also == also) return kernels[i];
  return nullptr;
}

cudaError_t launch(const dev::Args& a, const dev::Launch& l, cudaStream_t s) {
  static const auto kernels = tempo::gpu::detail::kernel_table<kStages>(
      [](auto i) -> Kernel { return &stage_kernel<static_cast<dev::Stage>(decltype(i)::value)>; });
  const Kernel k = l.also_per_sig != 0 ? pair_kernel_of(l.stage, l.also) : kernels[std::size_t(l.stage)];
  if (k == nullptr) return cudaErrorInvalidValue;
  const std::uint64_t threads = a.count * l.threads_per_sig();
  const unsigned blocks = unsigned((threads + kBlock - 1) / kBlock);
  k<<<blocks, kBlock, 0, s>>>(a, l, threads);
  return cudaGetLastError();
}

// The stages' names for StageProfile (TEMPO_FAEST_GPU_PROFILE).
const char* const stage_names[] = {"root",        "scatter",    "expand",       "leaves",      "leaf_rows",   "hash_instances",
                                   "hash_final",  "reduce",     "front",        "chall1",       "col_hash",    "chall2",
                                   "rows",        "key_schedule", "prove_keys", "round_bytes", "round_columns",
                                   "round_join",  "prove_join", "grind",        "open",        "alloc",
                                   "wipe"};
static_assert(std::size(stage_names) == kStages + 2);

std::array<std::uint64_t, 6> scratch_sizes(const dev::Layout& lay) {
  return {lay.nodes_bytes(), lay.com_bytes(), lay.rows_bytes(), lay.hi_bytes(), lay.vole_bytes(), lay.back_bytes()};
}

// The stages' arguments for n items at in / out, on a sub-batch's scratch arrays (in the
// order of scratch_sizes).
dev::Args stage_args(const dev::Layout& lay, std::uint64_t n, const std::uint8_t* in, std::uint8_t* out,
                     const std::array<std::uint8_t*, 6>& arrays) {
  dev::Args a{};
  a.lay = lay;
  a.count = n;
  a.in = in;
  a.out = out;
  a.nodes = arrays[0];
  a.com = arrays[1];
  a.rows = arrays[2];
  a.hi = arrays[3];
  a.vole = arrays[4];
  a.back = arrays[5];
  return a;
}

}  // namespace

int run_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count, void* stream,
              bool profile_stages) {
  const auto s = static_cast<cudaStream_t>(stream);
  // The profile's extra rows: the scratch's allocation (before the first stage) and its
  // wipe and free (after the last).
  constexpr unsigned kAlloc = kStages, kWipe = kStages + 1;
  tempo::gpu::detail::StageProfile profile(profile_stages, s);
  const int rc = tempo::gpu::detail::for_each_sub_batch(
      count, scratch_sizes(lay), scratch_budget, s, !lay.verifier,  // a verifier's scratch is public
      [&](std::uint64_t first, std::uint64_t n, const std::array<std::uint8_t*, 6>& arrays, cudaError_t& err) {
        const dev::Args a = stage_args(lay, n, in + first * lay.in_stride(), out + first * lay.out_stride(), arrays);
        if (first == 0) profile.mark(kAlloc);
        dev::for_each_stage(lay, [&](const dev::Launch& l) {
          if (err == cudaSuccess) err = launch(a, l, s);
          profile.mark(unsigned(l.stage));
        });
      });
  profile.mark(kWipe);
  profile.report(lay.verifier ? "faest-verify" : "faest-sign", count, stage_names, unsigned(std::size(stage_names)));
  return rc;
}

int run_stage_snapshots(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out,
                        std::vector<std::vector<std::uint8_t>>& snapshots) {
  namespace g = tempo::gpu::detail;
  snapshots.clear();
  const auto sizes = scratch_sizes(lay);
  try {
    g::DeviceBuf d_in(lay.in_stride()), d_out(lay.out_stride());
    g::Stream stream;  // non-blocking: every copy below goes on it, not the legacy stream
    TEMPO_CUDA(cudaMemcpyAsync(d_in.get(), in, lay.in_stride(), cudaMemcpyHostToDevice, stream.get()));
    int rc = g::for_each_sub_batch(
        1, sizes, g::scratch_per_item(sizes), stream.get(), true,
        [&](std::uint64_t, std::uint64_t, const std::array<std::uint8_t*, 6>& arrays, cudaError_t& err) {
          // One item: the arrays lie back to back from arrays[0]; poisoned like the emulation's.
          err = cudaMemsetAsync(arrays[0], 0xA5, g::scratch_per_item(sizes), stream.get());
          const dev::Args a = stage_args(lay, 1, static_cast<const std::uint8_t*>(d_in.get()),
                                         static_cast<std::uint8_t*>(d_out.get()), arrays);
          dev::for_each_stage(lay, [&](const dev::Launch& l) {
            if (err == cudaSuccess) err = launch(a, l, stream.get());
            if (err == cudaSuccess) err = cudaStreamSynchronize(stream.get());
            if (err != cudaSuccess) return;
            std::vector<std::uint8_t> snap;
            for (std::size_t k = 0; k < 6 && err == cudaSuccess; ++k) {
              const std::size_t n = snap.size();
              snap.resize(n + sizes[k]);
              err = cudaMemcpyAsync(snap.data() + n, arrays[k], sizes[k], cudaMemcpyDeviceToHost, stream.get());
              if (err == cudaSuccess) err = cudaStreamSynchronize(stream.get());
            }
            snapshots.push_back(std::move(snap));
          });
        });
    if (rc == 0)
      rc = int(cudaMemcpyAsync(out, d_out.get(), lay.out_stride(), cudaMemcpyDeviceToHost, stream.get()));
    if (rc == 0) rc = int(cudaStreamSynchronize(stream.get()));
    return rc;
  } catch (const tempo::gpu::CudaError& e) {
    return e.code();
  }
}

}  // namespace tempo::faest::cuda
