// Kernel-only timings for bench_ntt (see time_kernels in ntt_kernels.hpp).
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>

#include "ntt_kernels.hpp"

namespace tempo::ntt::cuda {
namespace {
__global__ void empty_kernel() {}

struct Buffers {
  void* p[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
  ~Buffers() {
    for (void* x : p)
      if (x) cudaFree(x);
  }
};
}  // namespace

#define TEMPO_NTT_TRY(call)                         \
  do {                                              \
    const cudaError_t e_ = (call);                  \
    if (e_ != cudaSuccess) return static_cast<int>(e_); \
  } while (0)

int time_kernels(const Params& p, const void* table_bytes, std::size_t table_len, int kind,
                 const std::uint64_t* host_in, std::size_t count, int warmup, int reps, double* event_us,
                 double* host_us, std::uint64_t* first_out) {
  TEMPO_NTT_TRY(cudaSetDevice(0));
  const std::size_t bytes = count * p.n * sizeof(std::uint64_t);
  Buffers b;
  TEMPO_NTT_TRY(cudaMalloc(&b.p[0], table_len));
  TEMPO_NTT_TRY(cudaMalloc(&b.p[1], bytes));
  TEMPO_NTT_TRY(cudaMalloc(&b.p[2], bytes));
  TEMPO_NTT_TRY(cudaMalloc(&b.p[3], bytes));
  TEMPO_NTT_TRY(cudaMalloc(&b.p[4], bytes));
  TEMPO_NTT_TRY(cudaMemcpy(b.p[0], table_bytes, table_len, cudaMemcpyHostToDevice));
  TEMPO_NTT_TRY(cudaMemcpy(b.p[1], host_in, bytes, cudaMemcpyHostToDevice));
  TEMPO_NTT_TRY(cudaMemcpy(b.p[2], host_in, bytes, cudaMemcpyHostToDevice));
  const auto* in = static_cast<const std::uint64_t*>(b.p[1]);
  const auto* in2 = static_cast<const std::uint64_t*>(b.p[2]);
  auto* out = static_cast<std::uint64_t*>(b.p[3]);
  cudaStream_t s;
  TEMPO_NTT_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  TEMPO_NTT_TRY(cudaEventCreate(&e0));
  TEMPO_NTT_TRY(cudaEventCreate(&e1));
  auto launch = [&]() -> int {
    switch (kind) {
      case -1:
        empty_kernel<<<1, 1, 0, s>>>();
        return static_cast<int>(cudaGetLastError());
      case 0: return forward(p, b.p[0], in, out, count, s);
      case 1: return inverse(p, b.p[0], in, out, count, s);
      default: {
        // The product chain on resident data (in * in2), in2's transform in its own buffer.
        auto* tb = static_cast<std::uint64_t*>(b.p[4]);
        int rc = forward(p, b.p[0], in, out, count, s);
        if (rc == 0) rc = forward(p, b.p[0], in2, tb, count, s);
        if (rc == 0) rc = pointwise(p, out, tb, out, count, s);
        if (rc == 0) rc = inverse(p, b.p[0], out, out, count, s);
        return rc;
      }
    }
  };
  int rc = 0;
  for (int r = 0; r < warmup + reps && rc == 0; ++r) {
    const auto h0 = std::chrono::steady_clock::now();
    cudaEventRecord(e0, s);
    rc = launch();
    cudaEventRecord(e1, s);
    if (rc == 0) rc = static_cast<int>(cudaStreamSynchronize(s));
    const auto h1 = std::chrono::steady_clock::now();
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    if (r >= warmup) {
      event_us[r - warmup] = static_cast<double>(ms) * 1000.0;
      host_us[r - warmup] = std::chrono::duration<double, std::micro>(h1 - h0).count();
    }
  }
  if (rc == 0 && first_out && kind >= 0)
    rc = static_cast<int>(cudaMemcpy(first_out, out, p.n * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(s);
  return rc;
}

}  // namespace tempo::ntt::cuda
