// The TFHE bootstrap kernel and its launcher; the per-thread code is in tfhe_device.hpp.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
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

// Two register bounds for the same block code. Narrow: at most 512 threads (kNarrowGroup
// bootstraps of 128, or one on latency_threads), the registers the code wants (about 100
// for 32-bit words), the multiply reading each key word once for the whole group. Wide (32-bit
// words, groups of more than kNarrowGroup, or blocks of more than kNarrowThreads, which only
// TEMPO_TFHE_GPU_DOUBLE_THREADS asks for): 768 threads held to 80 registers (no spills),
// the multiply in runs of two (a run's 64-bit sums live in registers), so that six
// bootstraps' 24 warps fit an SM. The kernel is bound by issuing instructions: with 16 warps
// an SM's schedulers found no ready warp four cycles in ten. On an H100 (PN10QP27L3, 16,384
// gates) six at 80 registers beat four at 95 by 6%, while four at 80 lost 7% and five
// (PN10QP27, L = 4) lost 13% (workloads/tfhe/README.md): the wide block pays only at six.

// One kernel per bound for every shape of the same block code (the bytes depend on neither
// the thread count nor the group): blocks of p.group bootstraps with p.threads threads. W:
// the shared-memory word (uint32 when p.word32).
template <typename W, bool Wide>
__global__ void __launch_bounds__(Wide ? kWideThreads : kNarrowThreads, 1)
    bootstrap_kernel(DeviceParams p, const std::uint64_t* tables, const void* bk, const std::uint16_t* ks,
                     const std::uint32_t* in, std::uint32_t* out, std::size_t count) {
  extern __shared__ __align__(16) std::uint64_t smem[];  // cp.async writes 16-byte chunks
  const std::size_t first = std::size_t(blockIdx.x) * p.group, stride = p.n + 1;
  const std::size_t left = count - first;
  const unsigned items = left < p.group ? unsigned(left) : p.group;
  BlockExec ex;
  dev::bootstrap_block<W, Wide ? 2u : kNarrowGroup>(ex, p, tables, bk, ks, in + first * stride, out + first * stride,
                                                     reinterpret_cast<W*>(smem), items);
}

// The cluster's phases (dev::bootstrap_cluster) on the device: this block's rank, its shared
// memory through its own address, the others' through distributed shared memory.
struct ClusterExec {
  std::uint32_t* sm;
  std::uint32_t rank;
  __device__ __forceinline__ std::uint32_t* smem(std::uint32_t r) const {
    return r == rank ? sm : cooperative_groups::this_cluster().map_shared_rank(sm, r);
  }
  template <class F>
  __device__ __forceinline__ void operator()(F&& f) {
    f(rank, threadIdx.x);
    __syncthreads();
  }
  template <class F>
  __device__ __forceinline__ void cluster(F&& f) {
    f(rank, threadIdx.x);
    cooperative_groups::this_cluster().sync();
  }
};

// One bootstrap per cluster of 2L blocks of kClusterThreads (32-bit words): the latency shape.
constexpr unsigned kClusterThreads = 256;
__global__ void __launch_bounds__(kClusterThreads, 1)
    bootstrap_cluster_kernel(DeviceParams p, const std::uint64_t* tables, const void* bk, const std::uint16_t* ks,
                             const std::uint32_t* in, std::uint32_t* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) std::uint64_t smem[];  // cp.async writes 16-byte chunks
  const auto cluster = cooperative_groups::this_cluster();
  const std::size_t item = blockIdx.x / cluster.num_blocks(), stride = p.n + 1;
  ClusterExec ex{reinterpret_cast<std::uint32_t*>(smem), cluster.block_rank()};
  dev::bootstrap_cluster(ex, p, tables, bk, ks, in + item * stride, out + item * stride);
#endif
}

__global__ void combine_kernel(Combination lin, DeviceParams p, const std::uint32_t* x, const std::uint32_t* y,
                               std::uint32_t* out, std::size_t words) {
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += step)
    out[i] = dev::combine_word(lin, p, x, y, i);
}

template <typename W, bool Wide>
int launch(const DeviceParams& p, int optin, const void* tables, const void* bk, const std::uint16_t* ks,
           const std::uint32_t* in, std::uint32_t* out, std::size_t count, cudaStream_t stream) {
  const std::size_t smem = block_smem_bytes(p);
  // Above 48 KiB a kernel must opt in (per function). The one kernel serves every shape and
  // several streams launch it at once, so the limit is the device's, the same value from
  // every caller (a per-shape value would race with another thread's launch).
  cudaError_t e = cudaFuncSetAttribute(bootstrap_kernel<W, Wide>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
  if (e != cudaSuccess) return static_cast<int>(e);
  constexpr std::size_t kMaxGrid = 0x7fffffff;
  const std::size_t stride = p.n + 1, per_launch = kMaxGrid * p.group;
  for (std::size_t first = 0; first < count; first += per_launch) {
    const std::size_t n = count - first < per_launch ? count - first : per_launch;
    const auto blocks = static_cast<unsigned>((n + p.group - 1) / p.group);
    bootstrap_kernel<W, Wide><<<blocks, p.threads, smem, stream>>>(p, static_cast<const std::uint64_t*>(tables), bk, ks,
                                                             in + first * stride, out + first * stride, n);
    e = cudaGetLastError();
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return 0;
}

// The launch of `count` clusters of 2L blocks for shape p (cluster_shape's), attr its
// cluster dimension.
cudaLaunchConfig_t cluster_config(const DeviceParams& p, std::size_t count, cudaStream_t stream,
                                  cudaLaunchAttribute* attr) {
  const unsigned ranks = 2 * p.levels;
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(count) * ranks);
  cfg.blockDim = dim3(p.threads);
  cfg.dynamicSmemBytes = cluster_smem_bytes(p);
  cfg.stream = stream;
  attr->id = cudaLaunchAttributeClusterDimension;
  attr->val.clusterDim.x = ranks;
  attr->val.clusterDim.y = 1;
  attr->val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// Whether a batch of `batch` items runs on clusters (one bootstrap per cluster of 2L blocks,
// dev::bootstrap_cluster), with the shape in *shape: 32-bit words and keys, 2L <=
// dev::kMaxRanks, a device with cluster launch (sm_90) and room for a block's rows, key
// buffer and tables, and every item's cluster resident at once (the device places clusters
// within its GPCs, so fewer fit than SMs / 2L: 16 clusters of 8 on an H100's 132 SMs run
// in two waves, slower than one block per item). TEMPO_TFHE_GPU_CLUSTER=0 turns it off.
bool cluster_shape(const DeviceParams& p, std::size_t batch, std::size_t sm_count, int device, int optin,
                   DeviceParams* shape) {
  const std::uint32_t ranks = 2 * p.levels;
  if (!p.allow_cluster || !p.word32 || !p.key32 || ranks > dev::kMaxRanks || batch * ranks > sm_count) return false;
  // The device launches clusters, and the kernel it would run was built for sm_90 or later
  // (below that its body is empty: a build for older GPUs only, run through its PTX).
  int can = 0;
  cudaFuncAttributes built{};
  if (cudaDeviceGetAttribute(&can, cudaDevAttrClusterLaunch, device) != cudaSuccess || can == 0 ||
      cudaFuncGetAttributes(&built, bootstrap_cluster_kernel) != cudaSuccess || built.binaryVersion < 90 ||
      built.ptxVersion < 90) {
    (void)cudaGetLastError();
    return false;
  }
  *shape = p;
  shape->group = 1;
  shape->stage_key = true;
  shape->threads = kClusterThreads;
  if (cluster_smem_bytes(*shape) > static_cast<std::size_t>(optin)) return false;
  int clusters = 0;
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = cluster_config(*shape, 1, nullptr, attr);
  if (cudaFuncSetAttribute(bootstrap_cluster_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin) !=
          cudaSuccess ||
      cudaOccupancyMaxActiveClusters(&clusters, bootstrap_cluster_kernel, &cfg) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return batch <= static_cast<std::size_t>(clusters);
}

int launch_cluster(const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks,
                   const std::uint32_t* in, std::uint32_t* out, std::size_t count, cudaStream_t stream) {
  cudaLaunchAttribute attr[1];
  const cudaLaunchConfig_t cfg = cluster_config(p, count, stream, attr);
  return static_cast<int>(
      cudaLaunchKernelEx(&cfg, bootstrap_cluster_kernel, p, static_cast<const std::uint64_t*>(tables), bk, ks, in, out));
}

// The shape of a batch, chosen for the whole batch (`batch` items; its chunks share the
// device). 32-bit keys with TEMPO_TFHE_GPU_STAGE_KEY=1 (off by default: slower on an H200):
// each step's key staged in shared memory (when the device has room for it).
// At most one item per SM: one bootstrap per block on latency_threads (every block has an
// SM of its own either way; the extra threads shorten each bootstrap). Otherwise, with
// 32-bit words, groups of bootstraps per block, `item` threads each: p.threads, or
// p.double_threads for the batches doubled_shape picks (TEMPO_TFHE_GPU_DOUBLE_PER_SM caps
// them, 2 by default: see workloads/tfhe/README.md, "Shapes"); kMaxGroup in the wide block
// where that many fit the device's shared memory, else up to kNarrowGroup in at most
// kNarrowThreads threads (two items of more than half that: the wide block); as few waves
// of blocks as that allows, the groups as even as can be, then the neighbouring group that
// keeps the most bootstraps resident per SM (resident_group; TEMPO_TFHE_GPU_RESIDENT_GROUPS=0
// turns that off). The group's bootstraps share each step's key reads (the key is tens of
// megabytes, more than L2, and every block walks all of it). 64-bit words: one bootstrap
// per block.
template <typename W>
int launch_shape(const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks,
                 const std::uint32_t* in, std::uint32_t* out, std::size_t count, std::size_t batch,
                 cudaStream_t stream) {
  int device = 0, sms = 0, optin = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return static_cast<int>(e);
  const std::size_t sm_count = static_cast<std::size_t>(sms);
  batch = std::max(batch, count);
  DeviceParams shape = p;
  if (cluster_shape(p, batch, sm_count, device, optin, &shape))
    return launch_cluster(shape, tables, bk, ks, in, out, count, stream);
  shape = p;
  shape.group = 1;
  shape.stage_key = p.key32 && p.word32 && p.allow_stage_key;
  if (block_smem_bytes(shape) > static_cast<std::size_t>(optin)) shape.stage_key = false;
  if (p.latency_threads > p.threads && batch <= sm_count) {
    shape.threads = p.latency_threads;
  } else if (p.word32) {
    const bool doubled = doubled_shape(p, batch, sm_count);
    const std::uint32_t item = doubled ? p.double_threads : p.threads;
    // Items per SM: the chunk's (the chunks of a large batch fill the device in turn), or,
    // with doubled items, the whole batch's: its few chunks run side by side, and the blocks
    // of two chunks that share an SM ran at about half the speed of one block of both.
    const std::size_t per_sm = ((doubled ? batch : count) + sm_count - 1) / sm_count;
    // Per block: the key buffer and the tables' copy once, the items' words per item.
    const std::size_t fixed = (shape.stage_key ? key_buffer_words(shape) * 4 : 0) + table_smem_words(shape) * 4;
    const std::size_t fit = (static_cast<std::size_t>(optin) - fixed) / (block_smem_bytes(shape) - fixed);
    const std::size_t room = std::min(fit, std::size_t{p.max_group});
    // The fewest waves of blocks of at most `most`, their groups as even as can be (1024
    // items on 132 SMs: two waves of groups of 4, not a full wave of 6 and a third of one).
    const auto even = [per_sm](std::size_t most) {
      const std::size_t waves = (per_sm + most - 1) / most;
      return (per_sm + waves - 1) / waves;
    };
    std::size_t group = 0;
    if (room >= kMaxGroup && kMaxGroup * item <= kWideThreads && even(kMaxGroup) == kMaxGroup)
      group = kMaxGroup;  // the wide kernel pays at six only (see kWideThreads)
    else
      group = even(std::max<std::size_t>(
          1, std::min({room, std::size_t{kNarrowGroup},
                       std::size_t{(2 * item > kNarrowThreads ? kWideThreads : kNarrowThreads) / item}})));
    shape.group = static_cast<std::uint32_t>(group);
    shape.threads = item * shape.group;
    if (p.resident_groups && !doubled && shape.threads <= kNarrowThreads && shape.group <= kNarrowGroup) {
      // Resident blocks per SM of the narrow kernel at `g` bootstraps per block (0: not an
      // option: above the narrow block, or more than the batch's items or the device's room).
      const auto blocks = [&](std::uint32_t g, int* out) -> cudaError_t {
        *out = 0;
        if (g == 0 || g > kNarrowGroup || g > room || item * g > kNarrowThreads || g > count) return cudaSuccess;
        DeviceParams t = shape;
        t.group = g;
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(out, bootstrap_kernel<W, false>,
                                                             static_cast<int>(item * g), block_smem_bytes(t));
      };
      int below = 0, at = 0, above = 0;
      e = cudaFuncSetAttribute(bootstrap_kernel<W, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
      if (e == cudaSuccess) e = blocks(shape.group - 1, &below);
      if (e == cudaSuccess) e = blocks(shape.group, &at);
      if (e == cudaSuccess) e = blocks(shape.group + 1, &above);
      if (e != cudaSuccess) return static_cast<int>(e);
      shape.group = resident_group(shape.group, below, at, above);
      shape.threads = item * shape.group;
    }
  }
  if constexpr (sizeof(W) == 4)
    if (shape.group > kNarrowGroup || shape.threads > kNarrowThreads)
      return launch<W, true>(shape, optin, tables, bk, ks, in, out, count, stream);
  return launch<W, false>(shape, optin, tables, bk, ks, in, out, count, stream);
}

}  // namespace

int gate(const DeviceParams& p, const Combination& lin, const void* tables, const void* bk, const std::uint16_t* ks,
         const std::uint32_t* x, const std::uint32_t* y, std::uint32_t* out, std::size_t count, std::size_t batch,
         void* stream) {
  if (count == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  // A grid-stride loop: a few thousand blocks cover any chunk, and the work is a copy's.
  constexpr unsigned kThreads = 256, kMaxBlocks = 4096;
  const std::size_t words = count * (p.n + 1);
  const std::size_t want = (words + kThreads - 1) / kThreads;
  const unsigned blocks = want < kMaxBlocks ? static_cast<unsigned>(want) : kMaxBlocks;
  combine_kernel<<<blocks, kThreads, 0, s>>>(lin, p, x, y, out, words);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return static_cast<int>(e);
  return bootstrap(p, tables, bk, ks, out, out, count, batch, stream);
}

int block_limits(int device, std::size_t* smem_optin) {
  int v = 0;
  const cudaError_t e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e != cudaSuccess) return static_cast<int>(e);
  *smem_optin = static_cast<std::size_t>(v);
  return 0;
}

int bootstrap(const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks,
              const std::uint32_t* in, std::uint32_t* out, std::size_t count, std::size_t batch, void* stream) {
  if (count == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  return p.word32 ? launch_shape<std::uint32_t>(p, tables, bk, ks, in, out, count, batch, s)
                  : launch_shape<std::uint64_t>(p, tables, bk, ks, in, out, count, batch, s);
}

}  // namespace tempo::tfhe::cuda
