// The engine's only kernel: a byte copy, for Engine::raw_round_trip (the baseline
// that the engine's own overhead is measured against).
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace tempo::gpu::detail {
namespace {
__global__ void copy_bytes(const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}
}  // namespace

int launch_copy_bytes(void* stream, const std::uint8_t* in, std::uint8_t* out, std::size_t n) {
  if (n == 0) return 0;
  copy_bytes<<<static_cast<unsigned>((n + 255) / 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(in, out, n);
  return static_cast<int>(cudaGetLastError());
}
}  // namespace tempo::gpu::detail
