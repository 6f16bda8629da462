// The per-process GPU engine: one set of stream threads per device. Internal header;
// engine_cuda.cpp implements it with CUDA, engine_none.cpp without.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "job.hpp"

namespace tempo::gpu::detail {

int engine_device_count() noexcept;  // 0 without CUDA or devices; never throws
int engine_warm_up();                // creates the engine; returns devices
std::size_t engine_workers();        // stream threads over all devices (creates the engine)
// Hands the job to every stream thread; the last one to finish sets job->done.
void engine_post(const std::shared_ptr<Job>& job);
// Whether [p, p+n) lies in page-locked memory the copy engines can use directly.
bool engine_is_pinned(const void* p, std::size_t n) noexcept;
// Page-locked memory, or nullptr (no CUDA, no device, or the allocation failed).
void* engine_host_alloc(std::size_t n) noexcept;
void engine_host_free(void* p) noexcept;

// Benchmarks: the median time in ms of `reps` launches of the fixed-length kernel
// (variant: see launch_fixed_variant) on device 0 over n device-resident messages of
// msg_len bytes (deterministic pseudo-random contents). `digests` receives the first
// min(n, sample) digests and `inputs` the matching messages, for checking.
double engine_kernel_only_ms(const SpongeSpec& s, std::size_t msg_len, std::size_t n, int variant, int reps,
                             std::size_t sample, std::vector<std::uint8_t>* inputs,
                             std::vector<std::uint8_t>* digests);

}  // namespace tempo::gpu::detail
