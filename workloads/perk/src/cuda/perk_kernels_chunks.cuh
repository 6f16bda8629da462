// Host glue shared by the sign and the verify kernels' translation units
// (perk_kernels_sign.cu, perk_kernels_verify.cu; split so that nvcc compiles them in parallel):
// the launch shapes and the loop over scratch-sharing sub-batches.
#pragma once

#include <cuda_runtime.h>
#include <tempo/gpu/detail/cuda.hpp>

#include <algorithm>

#include "cuda/perk_kernels.hpp"

namespace tempo::perk::cuda::detail {

inline constexpr unsigned kBlock = 128;
// Stages with a thread or a few per signature run on small blocks, so that a chunk's few
// thousand threads spread over every SM.
inline constexpr unsigned kSmallBlock = 32;

inline unsigned block_for(std::uint64_t per_sig) { return per_sig <= 4 ? kSmallBlock : kBlock; }

inline std::uint64_t round256(std::uint64_t x) { return (x + 255) / 256 * 256; }

// Runs `stages(args, err)` over sub-batches of `count` items that share stream-ordered scratch
// of at most scratch_budget bytes; out_stride: the output bytes per item.
template <class Stages>
int run_chunks(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t out_stride,
               std::size_t count, cudaStream_t s, Stages&& stages) {
  if (count == 0) return 0;
  const std::uint64_t per = scratch_per_signature(lay);
  const std::uint64_t sub = std::max<std::uint64_t>(1, std::min<std::uint64_t>(count, scratch_budget / per));
  cudaError_t err = cudaSuccess;
  tempo::gpu::detail::StreamScratch scratch(std::size_t(sub * per), s, err);
  if (err != cudaSuccess) return int(err);
  auto* base = static_cast<std::uint8_t*>(scratch.get());
  for (std::uint64_t first = 0; first < count; first += sub) {
    dev::Args a{};
    a.lay = lay;
    a.count = std::min<std::uint64_t>(sub, count - first);
    a.in = in + first * lay.in_stride();
    a.out = out + first * out_stride;
    // Per-signature strides inside the scratch arrays are the unrounded sizes (Args);
    // each array's start is 256-aligned.
    a.nodes = base;
    a.com = a.nodes + sub * round256(lay.nodes_bytes());
    a.rows = a.com + sub * round256(lay.com_bytes());
    a.hq = a.rows + sub * round256(lay.rows_bytes());
    a.st = a.hq + sub * round256(lay.hq_bytes());
    stages(a, err);
    if (err != cudaSuccess) return int(err);
  }
  return 0;
}

}  // namespace tempo::perk::cuda::detail
