// kernel_only_ms: the Keccak kernels alone on device-resident data, for benchmarks.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels.hpp"

// C++17 here (nvcc): errors leave as KernelBenchError; offload.cpp turns them into
// gpu::CudaError.
namespace tempo::keccak::cuda {
namespace {
void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw KernelBenchError{static_cast<int>(e), call, cudaGetErrorString(e)};
  }
}
struct DevFree {
  void operator()(void* p) const noexcept { cudaFree(p); }
};
using DevPtr = std::unique_ptr<void, DevFree>;
DevPtr dev_alloc(std::size_t n) {
  void* p = nullptr;
  check(cudaMalloc(&p, n), "cudaMalloc");
  return DevPtr(p);
}
struct StreamBox {
  cudaStream_t s{};
  StreamBox() { check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~StreamBox() { cudaStreamDestroy(s); }
};
struct EventBox {
  cudaEvent_t e{};
  EventBox() { check(cudaEventCreate(&e), "cudaEventCreate"); }
  ~EventBox() { cudaEventDestroy(e); }
};
}  // namespace

double kernel_only_ms(const SpongeSpec& s, std::size_t msg_len, std::size_t n, int variant, int reps,
                      std::size_t sample, std::vector<std::uint8_t>* inputs, std::vector<std::uint8_t>* digests) {
  check(cudaSetDevice(0), "cudaSetDevice");
  const std::size_t out_bytes = s.out_bytes;
  const std::size_t in_bytes = msg_len * n, total_out = out_bytes * n;
  // Keccak's speed does not depend on the data: only the first `sample` messages get
  // pseudo-random contents (for checking); the rest is a memset on the device.
  const std::size_t k = std::min(n, sample);
  std::vector<std::uint8_t> host(k * msg_len);
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;  // splitmix64: deterministic contents
  for (auto& b : host) {
    x += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    b = static_cast<std::uint8_t>(z ^ (z >> 31));
  }
  DevPtr din = dev_alloc(in_bytes + kLoadPadding);
  DevPtr dout = dev_alloc(std::max<std::size_t>(total_out, 16));
  StreamBox st;
  EventBox e0, e1;
  if (in_bytes) check(cudaMemset(din.get(), 0x5A, in_bytes), "cudaMemset");
  if (!host.empty()) check(cudaMemcpy(din.get(), host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  auto launch = [&] {
    check(static_cast<cudaError_t>(launch_fixed_variant(variant, st.s, static_cast<const std::uint8_t*>(din.get()),
                                                              msg_len, static_cast<std::uint8_t*>(dout.get()), n, s)),
          "launch_fixed_variant");
  };
  launch();  // warm-up
  check(cudaStreamSynchronize(st.s), "cudaStreamSynchronize");
  std::vector<float> times;
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(e0.e, st.s), "cudaEventRecord");
    launch();
    check(cudaEventRecord(e1.e, st.s), "cudaEventRecord");
    check(cudaEventSynchronize(e1.e), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, e0.e, e1.e), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  if (digests) {
    digests->resize(k * out_bytes);
    if (!digests->empty())
      check(cudaMemcpy(digests->data(), dout.get(), digests->size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  if (inputs) *inputs = host;
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  return static_cast<double>(times[times.size() / 2]);
}

}  // namespace tempo::keccak::cuda
