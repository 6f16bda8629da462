#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gtest {
namespace {
__global__ void xor_key(const std::uint8_t* in, std::uint8_t* out, std::size_t bytes, const std::uint8_t* key) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < bytes) out[i] = static_cast<std::uint8_t>(in[i] ^ key[i % 64]);
}
__global__ void add_pairs(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* out, std::size_t words) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < words) out[i] = a[i] + b[i];
}
unsigned grid(std::size_t n) { return static_cast<unsigned>((n + 255) / 256); }
}  // namespace

int launch_xor_key(void* stream, const std::uint8_t* in, std::uint8_t* out, std::size_t n, const std::uint8_t* key) {
  if (n == 0) return 0;
  xor_key<<<grid(n * 64), 256, 0, static_cast<cudaStream_t>(stream)>>>(in, out, n * 64, key);
  return static_cast<int>(cudaGetLastError());
}
int launch_add_pairs(void* stream, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t words) {
  if (words == 0) return 0;
  add_pairs<<<grid(words), 256, 0, static_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<const std::uint64_t*>(a), reinterpret_cast<const std::uint64_t*>(b),
      reinterpret_cast<std::uint64_t*>(out), words);
  return static_cast<int>(cudaGetLastError());
}
}  // namespace gtest
