// Kernel-only timings for tempo_gpu_bench (keccak_kernel_time.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <tempo/gpu/detail/cuda.hpp>
#include <tempo/keccak/detail/kernels.hpp>

#include "keccak_kernel_time.hpp"

namespace keccak_bench {

namespace keccak = tempo::keccak;
using tempo::gpu::detail::check;
using tempo::gpu::detail::DeviceBuf;
using tempo::gpu::detail::Event;
using tempo::gpu::detail::Stream;

double kernel_only_ms(keccak::Algorithm a, std::size_t msg_len, std::size_t out_bytes, std::size_t n, int variant,
                      int reps, std::size_t sample, std::vector<std::uint8_t>* inputs,
                      std::vector<std::uint8_t>* digests) {
  if (a == keccak::Algorithm::kt128 || a == keccak::Algorithm::kt256)
    throw std::invalid_argument("keccak_bench::kernel_only_ms: KT128 and KT256 have no GPU kernel");
  const keccak::cuda::SpongeSpec spec = keccak::cuda::sponge_spec(a, out_bytes);
  TEMPO_CUDA(cudaSetDevice(0));
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
  DeviceBuf din(in_bytes + keccak::cuda::kLoadPadding), dout(std::max<std::size_t>(total_out, 16));
  Stream st;
  Event e0, e1;
  if (in_bytes) TEMPO_CUDA(cudaMemset(din.get(), 0x5A, in_bytes));
  if (!host.empty()) TEMPO_CUDA(cudaMemcpy(din.get(), host.data(), host.size(), cudaMemcpyHostToDevice));
  auto launch = [&] {
    check(static_cast<cudaError_t>(keccak::cuda::launch_fixed_variant(
              variant, st.get(), static_cast<const std::uint8_t*>(din.get()), msg_len,
              static_cast<std::uint8_t*>(dout.get()), n, spec)),
          "launch_fixed_variant");
  };
  launch();  // warm-up
  TEMPO_CUDA(cudaStreamSynchronize(st.get()));
  std::vector<float> times;
  for (int i = 0; i < reps; ++i) {
    TEMPO_CUDA(cudaEventRecord(e0.get(), st.get()));
    launch();
    TEMPO_CUDA(cudaEventRecord(e1.get(), st.get()));
    TEMPO_CUDA(cudaEventSynchronize(e1.get()));
    float ms = 0;
    TEMPO_CUDA(cudaEventElapsedTime(&ms, e0.get(), e1.get()));
    times.push_back(ms);
  }
  if (digests) {
    digests->resize(k * out_bytes);
    if (!digests->empty())
      TEMPO_CUDA(cudaMemcpy(digests->data(), dout.get(), digests->size(), cudaMemcpyDeviceToHost));
  }
  if (inputs) *inputs = host;
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  return static_cast<double>(times[times.size() / 2]);
}

}  // namespace keccak_bench
