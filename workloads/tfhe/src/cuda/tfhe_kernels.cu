// The TFHE bootstrap kernel and its launcher; the per-thread code is in tfhe_device.hpp.
#include <cuda_runtime.h>

#include <cstdint>

#include "tfhe_device.hpp"
#include "tfhe_kernels.hpp"

namespace tempo::tfhe::cuda {
namespace {

// All threads of the block run f on their own index, then meet at a barrier.
struct BlockExec {
  template <class F>
  __device__ __forceinline__ void operator()(F&& f) {
    f(threadIdx.x);
    __syncthreads();
  }
};

// 512 threads at most (DeviceParams::threads): the bound leaves 128 registers per thread.
// W: the shared-memory word (uint32 when p.word32).
template <typename W>
__global__ void __launch_bounds__(512) bootstrap_kernel(DeviceParams p, const std::uint64_t* tables, const void* bk,
                                                        const std::uint16_t* ks, const std::uint32_t* in,
                                                        std::uint32_t* out) {
  extern __shared__ std::uint64_t smem[];
  const std::size_t item = blockIdx.x, stride = p.n + 1;
  BlockExec ex;
  dev::bootstrap_block<W>(ex, p, tables, bk, ks, in + item * stride, out + item * stride, reinterpret_cast<W*>(smem));
}

__global__ void combine_kernel(Combination lin, DeviceParams p, const std::uint32_t* x, const std::uint32_t* y,
                               std::uint32_t* out, std::size_t words) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += step)
    out[i] = dev::combine_word(lin, p, x, y, i);
}

template <typename W>
int launch(const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks, const std::uint32_t* in,
           std::uint32_t* out, std::size_t count, cudaStream_t stream) {
  const std::size_t smem = block_smem_bytes(p);
  // Above 48 KiB a kernel must opt in (per function; idempotent and cheap).
  cudaError_t e = cudaFuncSetAttribute(bootstrap_kernel<W>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem));
  if (e != cudaSuccess) return static_cast<int>(e);
  constexpr std::size_t kMaxGrid = 0x7fffffff;
  const std::size_t stride = p.n + 1;
  for (std::size_t first = 0; first < count; first += kMaxGrid) {
    const std::size_t n = count - first < kMaxGrid ? count - first : kMaxGrid;
    bootstrap_kernel<W><<<static_cast<unsigned>(n), p.threads, smem, stream>>>(
        p, static_cast<const std::uint64_t*>(tables), bk, ks, in + first * stride, out + first * stride);
    e = cudaGetLastError();
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return 0;
}

}  // namespace

int gate(const DeviceParams& p, const Combination& lin, const void* tables, const void* bk, const std::uint16_t* ks,
         const std::uint32_t* x, const std::uint32_t* y, std::uint32_t* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  // A grid-stride loop: a few thousand blocks cover any chunk, and the work is a copy's.
  constexpr unsigned kThreads = 256, kMaxBlocks = 4096;
  const std::size_t words = count * (p.n + 1);
  const std::size_t want = (words + kThreads - 1) / kThreads;
  const unsigned blocks = want < kMaxBlocks ? static_cast<unsigned>(want) : kMaxBlocks;
  combine_kernel<<<blocks, kThreads, 0, s>>>(lin, p, x, y, out, words);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  return bootstrap(p, tables, bk, ks, out, out, count, stream);
}

int block_limits(int device, std::size_t* smem_optin) {
  int v = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return static_cast<int>(e);
  *smem_optin = static_cast<std::size_t>(v);
  return 0;
}

int bootstrap(const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks,
              const std::uint32_t* in, std::uint32_t* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  return p.word32 ? launch<std::uint32_t>(p, tables, bk, ks, in, out, count, s)
                  : launch<std::uint64_t>(p, tables, bk, ks, in, out, count, s);
}

}  // namespace tempo::tfhe::cuda
