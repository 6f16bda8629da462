// Host-callable launcher of the PERK CUDA kernels (no CUDA types: the stream is a void*,
// the result a cudaError_t as int, 0 = success). Built only when TEMPO_HAVE_CUDA.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda/perk_device.hpp"
#include "cuda/perk_verify.hpp"

namespace tempo::perk::cuda {

// Enqueues the device stage (perk_device.hpp: for_each_stage) of `count` signatures on
// `stream`: items in/out laid out as `lay` says (device pointers). Stream-ordered scratch
// (gpu::detail::StreamScratch, from tempo::gpu's scratch pool) of at most scratch_budget
// bytes is zeroed and freed before it returns (stream order); sub-batches of signatures
// share it. profile_stages: each sub-batch's milliseconds per stage on stderr
// (gpu::detail::StageProfile; it waits for the device).
int run_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count, void* stream,
              bool profile_stages);

// The same for the verifier's stages (perk_verify.hpp): `count` prepared items to one byte each.
int run_verify_stage(const dev::VerifyLayout& v, const std::uint8_t* in, std::uint8_t* out, std::size_t count,
                     void* stream);

// (About 0.7 MB per signature at level 1, 3.5 MB at level 5: a slice of 4096 level-1
// signatures in one go, the device has 141 GB.)
inline constexpr std::uint64_t scratch_budget = std::uint64_t{6} << 30;

}  // namespace tempo::perk::cuda
