// Host-callable launcher of the FAEST CUDA kernels (no CUDA types: the stream is a void*,
// the result a cudaError_t as int, 0 = success). Built only when TEMPO_HAVE_CUDA.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/faest_device.hpp"

namespace tempo::faest::cuda {

// Enqueues the device stage (faest_device.hpp: for_each_stage) of `count` signatures on
// `stream`: items in/out laid out as `lay` says (device pointers). Stream-ordered scratch
// (gpu::detail::StreamScratch, from tempo::gpu's scratch pool) of at most scratch_budget
// bytes is zeroed and freed before it returns (stream order); sub-batches of signatures
// share it. profile_stages: the call's milliseconds per stage on stderr, the scratch's
// allocation and wipe included (gpu::detail::StageProfile; it waits for the device).
int run_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count, void* stream,
              bool profile_stages);

// Test hook: the device stage of one item (host in/out), launch by launch, with a copy of the
// item's scratch (the six arrays back to back, each its layout size) after every launch, to
// compare with the host emulation's (tests/workloads/faest/emulate.hpp). Synchronous.
int run_stage_snapshots(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out,
                        std::vector<std::vector<std::uint8_t>>& snapshots);

inline constexpr std::uint64_t scratch_budget = std::uint64_t{6} << 30;

}  // namespace tempo::faest::cuda
