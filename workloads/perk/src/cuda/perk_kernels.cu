// The PERK CUDA kernels: one kernel per stage of perk_device.hpp, one thread per item of
// the stage; every thread runs dev::run_thread, the code the host emulation tests run.
#include <cuda_runtime.h>
#include <tempo/gpu/detail/cuda.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/perk_kernels.hpp"

namespace tempo::perk::cuda {
namespace {

constexpr unsigned kBlock = 128;
// Stages with a thread or a few per signature run on small blocks, so that a chunk's few
// thousand threads spread over every SM.
constexpr unsigned kSmallBlock = 32;

// The AES stages (a tree node or a leaf per thread) are throughput-bound: more resident
// warps hide the bit-plane S-box's latency better than the registers nvcc would spend.
template <dev::Stage S>
constexpr unsigned min_blocks = S == dev::Stage::leaves || S == dev::Stage::expand ? 4 : 1;

template <dev::Stage S>
__global__ void __launch_bounds__(kBlock, min_blocks<S>) stage_kernel(dev::Args a, dev::Launch l, std::uint64_t threads) {
  const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  l.stage = S;  // a constant: the switch in run_thread folds away
  dev::run_thread(a, l, t);
}

cudaError_t launch(const dev::Args& a, const dev::Launch& l, cudaStream_t s) {
  const std::uint64_t threads = a.count * l.per_sig;
  const unsigned block = l.per_sig <= 4 ? kSmallBlock : kBlock;
  const unsigned blocks = unsigned((threads + block - 1) / block);
  switch (l.stage) {
    case dev::Stage::root: stage_kernel<dev::Stage::root><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::expand: stage_kernel<dev::Stage::expand><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::leaves: stage_kernel<dev::Stage::leaves><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::hash_quarters:
      stage_kernel<dev::Stage::hash_quarters><<<blocks, block, 0, s>>>(a, l, threads);
      break;
    case dev::Stage::hash_final: stage_kernel<dev::Stage::hash_final><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::reduce: stage_kernel<dev::Stage::reduce><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::challenge1: stage_kernel<dev::Stage::challenge1><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::vole_hashes:
      stage_kernel<dev::Stage::vole_hashes><<<blocks, block, 0, s>>>(a, l, threads);
      break;
    case dev::Stage::hash_rows: stage_kernel<dev::Stage::hash_rows><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::pkp_rows: stage_kernel<dev::Stage::pkp_rows><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::pkp_rowsum:
      stage_kernel<dev::Stage::pkp_rowsum><<<blocks, block, 0, s>>>(a, l, threads);
      break;
    case dev::Stage::challenge2: stage_kernel<dev::Stage::challenge2><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::pkp_mix: stage_kernel<dev::Stage::pkp_mix><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::pkp_final: stage_kernel<dev::Stage::pkp_final><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::grind: stage_kernel<dev::Stage::grind><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::open: stage_kernel<dev::Stage::open><<<blocks, block, 0, s>>>(a, l, threads); break;
  }
  return cudaGetLastError();
}

template <dev::VerifyStage S>
__global__ void __launch_bounds__(kBlock)
    verify_kernel(dev::VerifyLayout v, dev::Args a, std::uint8_t* result, dev::VerifyLaunch l, std::uint64_t threads) {
  const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  l.stage = S;  // a constant: the switch in run_verify_thread folds away
  dev::run_verify_thread(v, a, result, l, t);
}

template <dev::VerifyStage S>
void launch_verify(unsigned blocks, unsigned block, cudaStream_t s, const dev::VerifyLayout& v, const dev::Args& a,
                   std::uint8_t* result, const dev::VerifyLaunch& l, std::uint64_t threads) {
  verify_kernel<S><<<blocks, block, 0, s>>>(v, a, result, l, threads);
}

cudaError_t launch(const dev::VerifyLayout& v, const dev::Args& a, std::uint8_t* result, const dev::VerifyLaunch& l,
                   cudaStream_t s) {
  using V = dev::VerifyStage;
  const std::uint64_t threads = a.count * l.per_sig;
  const unsigned block = l.per_sig <= 4 ? kSmallBlock : kBlock;
  const unsigned blocks = unsigned((threads + block - 1) / block);
  switch (l.stage) {
    case V::place: launch_verify<V::place>(blocks, block, s, v, a, result, l, threads); break;
    case V::expand: launch_verify<V::expand>(blocks, block, s, v, a, result, l, threads); break;
    case V::leaves: launch_verify<V::leaves>(blocks, block, s, v, a, result, l, threads); break;
    case V::fix_com: launch_verify<V::fix_com>(blocks, block, s, v, a, result, l, threads); break;
    case V::hash_quarters: launch_verify<V::hash_quarters>(blocks, block, s, v, a, result, l, threads); break;
    case V::hash_final: launch_verify<V::hash_final>(blocks, block, s, v, a, result, l, threads); break;
    case V::reduce: launch_verify<V::reduce>(blocks, block, s, v, a, result, l, threads); break;
    case V::challenge1: launch_verify<V::challenge1>(blocks, block, s, v, a, result, l, threads); break;
    case V::vole_hashes: launch_verify<V::vole_hashes>(blocks, block, s, v, a, result, l, threads); break;
    case V::hash_rows: launch_verify<V::hash_rows>(blocks, block, s, v, a, result, l, threads); break;
    case V::challenge2: launch_verify<V::challenge2>(blocks, block, s, v, a, result, l, threads); break;
    case V::pkp_rows: launch_verify<V::pkp_rows>(blocks, block, s, v, a, result, l, threads); break;
    case V::final: launch_verify<V::final>(blocks, block, s, v, a, result, l, threads); break;
  }
  return cudaGetLastError();
}

std::uint64_t round256(std::uint64_t x) { return (x + 255) / 256 * 256; }

// TEMPO_PERK_GPU_PROFILE=1: each chunk's stages timed with events (the stream waits for
// them), one line per stage to stderr. For tuning only.
bool profiling() {
  static const bool on = [] {
    const char* v = std::getenv("TEMPO_PERK_GPU_PROFILE");
    return v != nullptr && v[0] == '1';
  }();
  return on;
}

const char* stage_name(dev::Stage s) {
  static const char* const names[] = {"root",       "expand",     "leaves",      "hash_quarters", "hash_final",
                                      "reduce",     "challenge1", "vole_hashes", "hash_rows",     "pkp_rows",
                                      "pkp_rowsum", "challenge2", "pkp_mix",     "pkp_final",     "grind",
                                      "open"};
  return names[unsigned(s)];
}

}  // namespace

std::uint64_t scratch_per_signature(const dev::Layout& lay) {
  return round256(lay.nodes_bytes()) + round256(lay.com_bytes()) + round256(lay.rows_bytes()) +
         round256(lay.hq_bytes()) + round256(lay.st_bytes());
}

namespace {

// Runs `stages(args, err)` over sub-batches of `count` items that share stream-ordered scratch
// of at most scratch_budget bytes; out_stride: the output bytes per item.
template <class Stages>
int run_chunks(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t out_stride,
               std::size_t count, cudaStream_t s, Stages&& stages) {
  if (count == 0) return 0;
  const std::uint64_t per = scratch_per_signature(lay);
  const std::uint64_t sub = std::max<std::uint64_t>(1, std::min<std::uint64_t>(count, scratch_budget / per));
  cudaError_t err = cudaSuccess;
  tempo::gpu::detail::StreamScratch scratch(std::size_t(sub * per), s, err);
  if (err != cudaSuccess) return int(err);
  auto* base = static_cast<std::uint8_t*>(scratch.get());
  for (std::uint64_t first = 0; first < count; first += sub) {
    dev::Args a{};
    a.lay = lay;
    a.count = std::min<std::uint64_t>(sub, count - first);
    a.in = in + first * lay.in_stride();
    a.out = out + first * out_stride;
    // Per-signature strides inside the scratch arrays are the unrounded sizes (Args);
    // each array's start is 256-aligned.
    a.nodes = base;
    a.com = a.nodes + sub * round256(lay.nodes_bytes());
    a.rows = a.com + sub * round256(lay.com_bytes());
    a.hq = a.rows + sub * round256(lay.rows_bytes());
    a.st = a.hq + sub * round256(lay.hq_bytes());
    stages(a, err);
    if (err != cudaSuccess) return int(err);
  }
  return 0;
}

}  // namespace

int run_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return run_chunks(lay, in, out, lay.out_stride(), count, s, [&](const dev::Args& a, cudaError_t& err) {
    std::vector<cudaEvent_t> marks;
    std::vector<dev::Stage> stages;
    auto mark = [&] {
      cudaEvent_t e;
      if (cudaEventCreate(&e) == cudaSuccess) {
        cudaEventRecord(e, s);
        marks.push_back(e);
      }
    };
    if (profiling()) mark();
    dev::for_each_stage(lay, [&](const dev::Launch& l) {
      if (err == cudaSuccess) err = launch(a, l, s);
      if (profiling()) {
        mark();
        stages.push_back(l.stage);
      }
    });
    if (profiling() && marks.size() == stages.size() + 1) {
      cudaEventSynchronize(marks.back());
      float total[32] = {};
      for (std::size_t i = 0; i < stages.size(); ++i) {
        float ms = 0;
        cudaEventElapsedTime(&ms, marks[i], marks[i + 1]);
        total[unsigned(stages[i])] += ms;
      }
      std::fprintf(stderr, "perk stage: %llu signatures:", static_cast<unsigned long long>(a.count));
      for (unsigned i = 0; i <= unsigned(dev::Stage::open); ++i)
        std::fprintf(stderr, " %s %.2f", stage_name(dev::Stage(i)), double(total[i]));
      std::fprintf(stderr, " ms\n");
    }
    for (cudaEvent_t e : marks) cudaEventDestroy(e);
  });
}

int run_verify_stage(const dev::VerifyLayout& v, const std::uint8_t* in, std::uint8_t* out, std::size_t count,
                     void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  // One byte out per item; the signer's stages that the verifier runs leave a.out alone.
  return run_chunks(v.lay, in, out, 1, count, s, [&](const dev::Args& a, cudaError_t& err) {
    dev::for_each_verify_stage(v, [&](const dev::VerifyLaunch& l) {
      if (err == cudaSuccess) err = launch(v, a, a.out, l, s);
    });
  });
}

}  // namespace tempo::perk::cuda
