// Kernel-only timings for bench_ntt (ntt_kernel_time.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include <tempo/gpu/detail/cuda.hpp>

#include "ntt_kernel_time.hpp"

namespace ntt_bench {
namespace {

namespace cuda = tempo::ntt::cuda;
using tempo::gpu::detail::check;
using tempo::gpu::detail::DeviceBuf;
using tempo::gpu::detail::Event;
using tempo::gpu::detail::Stream;

__global__ void empty_kernel() {}

}  // namespace

namespace {

template <typename S>
void time_kernels_as(const cuda::Params& p, const std::vector<std::uint8_t>& tables, int kind,
                     const std::uint64_t* host_in, std::size_t count, int warmup, int reps, double* event_us,
                     double* host_us, std::uint64_t* first_out) {
  TEMPO_CUDA(cudaSetDevice(0));
  const std::vector<S> words(host_in, host_in + count * p.n);  // values < q: exact in either word
  const std::size_t bytes = count * p.n * sizeof(S);
  DeviceBuf d_tables(tables.size()), in(bytes), in2(bytes), out(bytes);
  TEMPO_CUDA(cudaMemcpy(d_tables.get(), tables.data(), tables.size(), cudaMemcpyHostToDevice));
  TEMPO_CUDA(cudaMemcpy(in.get(), words.data(), bytes, cudaMemcpyHostToDevice));
  TEMPO_CUDA(cudaMemcpy(in2.get(), words.data(), bytes, cudaMemcpyHostToDevice));
  const auto* a = static_cast<const S*>(in.get());
  const auto* b = static_cast<const S*>(in2.get());
  auto* o = static_cast<S*>(out.get());
  Stream s;
  Event e0, e1;
  auto launch = [&]() -> int {
    switch (kind) {
      case -1:
        empty_kernel<<<1, 1, 0, s.get()>>>();
        return static_cast<int>(cudaGetLastError());
      case 0: return cuda::forward(p, d_tables.get(), a, o, count, s.get());
      case 1: return cuda::inverse(p, d_tables.get(), a, o, count, s.get());
      default:  // the product a * b on resident data (one fused launch where it fits)
        return cuda::multiply(p, d_tables.get(), a, b, o, count, s.get());
    }
  };
  for (int r = 0; r < warmup + reps; ++r) {
    const auto h0 = std::chrono::steady_clock::now();
    TEMPO_CUDA(cudaEventRecord(e0.get(), s.get()));
    check(static_cast<cudaError_t>(launch()), "NTT kernel launch");
    TEMPO_CUDA(cudaEventRecord(e1.get(), s.get()));
    TEMPO_CUDA(cudaStreamSynchronize(s.get()));
    const auto h1 = std::chrono::steady_clock::now();
    float ms = 0;
    TEMPO_CUDA(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
    if (r >= warmup) {
      event_us[r - warmup] = static_cast<double>(ms) * 1000.0;
      host_us[r - warmup] = std::chrono::duration<double, std::micro>(h1 - h0).count();
    }
  }
  if (first_out && kind >= 0) {
    std::vector<S> first(p.n);
    TEMPO_CUDA(cudaMemcpy(first.data(), o, p.n * sizeof(S), cudaMemcpyDeviceToHost));
    std::copy(first.begin(), first.end(), first_out);
  }
}

}  // namespace

void time_kernels(const cuda::Params& p, const std::vector<std::uint8_t>& tables, int kind,
                  const std::uint64_t* host_in, std::size_t count, int warmup, int reps, double* event_us,
                  double* host_us, std::uint64_t* first_out, bool u32) {
  if (u32)
    time_kernels_as<std::uint32_t>(p, tables, kind, host_in, count, warmup, reps, event_us, host_us, first_out);
  else
    time_kernels_as<std::uint64_t>(p, tables, kind, host_in, count, warmup, reps, event_us, host_us, first_out);
}

}  // namespace ntt_bench
