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

// Two shapes of the same block code (the bytes do not depend on the thread count): the
// throughput kernel with DeviceParams::threads (32-bit words: 128 threads, 4 blocks per SM at
// 128 registers, 16 coefficients per thread in the radix passes; 64-bit words: up to 512)
// and, for batches that leave SMs idle, the latency kernel with p.latency_threads (512: one
// block per SM, four times the threads on one bootstrap's passes).
// W: the shared-memory word (uint32 when p.word32).
template <typename W, unsigned MaxThreads, unsigned MinBlocks>
__global__ void __launch_bounds__(MaxThreads, MinBlocks)
    bootstrap_kernel(DeviceParams p, const std::uint64_t* tables, const void* bk, const std::uint16_t* ks,
                     const std::uint32_t* in, std::uint32_t* out) {
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

template <typename W, class Kernel>
int launch(Kernel kernel, const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks,
           const std::uint32_t* in, std::uint32_t* out, std::size_t count, cudaStream_t stream) {
  const std::size_t smem = block_smem_bytes(p);
  // Above 48 KiB a kernel must opt in (per function; idempotent and cheap).
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (e != cudaSuccess) return static_cast<int>(e);
  constexpr std::size_t kMaxGrid = 0x7fffffff;
  const std::size_t stride = p.n + 1;
  for (std::size_t first = 0; first < count; first += kMaxGrid) {
    const std::size_t n = count - first < kMaxGrid ? count - first : kMaxGrid;
    kernel<<<static_cast<unsigned>(n), p.threads, smem, stream>>>(p, static_cast<const std::uint64_t*>(tables), bk, ks,
                                                                  in + first * stride, out + first * stride);
    e = cudaGetLastError();
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return 0;
}

// Throughput shape unless the batch has at most one item per SM (then every block has an SM
// of its own either way, and the latency shape's extra threads shorten each bootstrap).
template <typename W>
int launch_shape(const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks,
                 const std::uint32_t* in, std::uint32_t* out, std::size_t count, cudaStream_t stream) {
  constexpr bool kWord32 = sizeof(W) == 4;
  int device = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) return static_cast<int>(e);
  if (p.latency_threads > p.threads && count <= static_cast<std::size_t>(sms)) {
    DeviceParams wide = p;
    wide.threads = p.latency_threads;
    return launch<W>(bootstrap_kernel<W, 512, 1>, wide, tables, bk, ks, in, out, count, stream);
  }
  return launch<W>(bootstrap_kernel<W, kWord32 ? 128 : 512, kWord32 ? 4 : 1>, p, tables, bk, ks, in, out, count,
                   stream);
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
  return p.word32 ? launch_shape<std::uint32_t>(p, tables, bk, ks, in, out, count, s)
                  : launch_shape<std::uint64_t>(p, tables, bk, ks, in, out, count, s);
}

}  // namespace tempo::tfhe::cuda
