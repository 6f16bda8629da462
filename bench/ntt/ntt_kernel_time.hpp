// bench_ntt's kernel-only timings (ntt_kernel_time.cu, CUDA builds): the NTT kernels on
// device-resident data, through their launchers (tempo/ntt/detail/kernels.hpp). Plain
// C++17, no CUDA types: included by bench_ntt.cpp and by the .cu file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <tempo/ntt/detail/kernels.hpp>

namespace ntt_bench {

// `count` polynomials (from host_in, count * n values < q) resident on device 0, with the
// twiddle tables `tables` (detail::device_table_bytes); `warmup` untimed then `reps` timed
// launches of `kind` (0 forward, 1 inverse, 2 the product a * b through cuda::multiply:
// both transforms, the pointwise product and the inverse; -1 an empty kernel, the launch
// floor), each timed by
// CUDA events around the launch (event_us[r]) and by the host clock around launch +
// stream synchronize (host_us[r]). Outputs go to a separate buffer (inputs stay), so
// every rep computes the same; the first polynomial's output comes back in first_out
// (n values) when non-null. u32: the data resident in the 32-bit layout (q < 2^31; the
// launchers' uint32 overloads), host_in's values narrowed on upload. Throws gpu::CudaError.
void time_kernels(const tempo::ntt::cuda::Params& p, const std::vector<std::uint8_t>& tables, int kind,
                  const std::uint64_t* host_in, std::size_t count, int warmup, int reps, double* event_us,
                  double* host_us, std::uint64_t* first_out, bool u32 = false);

}  // namespace ntt_bench
