// Host glue shared by the sign and the verify kernels' translation units
// (perk_kernels_sign.cu, perk_kernels_verify.cu; split so that nvcc compiles them in parallel):
// the launch shapes and the loop over scratch-sharing sub-batches.
#pragma once

#include <cuda_runtime.h>
#include <tempo/gpu/detail/cuda.hpp>

#include <array>

#include "cuda/perk_kernels.hpp"

namespace tempo::perk::cuda::detail {

inline constexpr unsigned kBlock = 128;
// Stages with a thread or a few per signature run on small blocks, so that a chunk's few
// thousand threads spread over every SM.
inline constexpr unsigned kSmallBlock = 32;

inline unsigned block_for(std::uint64_t per_sig) { return per_sig <= 4 ? kSmallBlock : kBlock; }

inline std::array<std::uint64_t, 5> scratch_sizes(const dev::Layout& lay) {
  return {lay.nodes_bytes(), lay.com_bytes(), lay.rows_bytes(), lay.hq_bytes(), lay.st_bytes()};
}

// Runs `stages(args, err)` over sub-batches of `count` items that share stream-ordered scratch
// of at most scratch_budget bytes (gpu::detail::for_each_sub_batch), zeroed after use where
// it holds secrets (signing); out_stride: the output bytes per item.
template <class Stages>
int run_chunks(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t out_stride,
               std::size_t count, cudaStream_t s, bool holds_secrets, Stages&& stages) {
  return tempo::gpu::detail::for_each_sub_batch(
      count, scratch_sizes(lay), scratch_budget, s, holds_secrets,
      [&](std::uint64_t first, std::uint64_t n, const std::array<std::uint8_t*, 5>& arrays, cudaError_t& err) {
        dev::Args a{};
        a.lay = lay;
        a.count = n;
        a.in = in + first * lay.in_stride();
        a.out = out + first * out_stride;
        a.nodes = arrays[0];
        a.com = arrays[1];
        a.rows = arrays[2];
        a.hq = arrays[3];
        a.st = arrays[4];
        stages(a, err);
      });
}

}  // namespace tempo::perk::cuda::detail
