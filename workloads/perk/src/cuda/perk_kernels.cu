// The PERK CUDA kernels: one kernel per stage of perk_device.hpp, one thread per item of
// the stage; every thread runs dev::run_thread, the code the host emulation tests run.
#include <cuda_runtime.h>

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

template <dev::Stage S>
__global__ void __launch_bounds__(kBlock) stage_kernel(dev::Args a, dev::Launch l, std::uint64_t threads) {
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

// Stream-ordered scratch: zeroed (the tree and the VOLE rows are secret) and freed in
// stream order however run_stage returns.
struct StreamScratch {
  void* p = nullptr;
  std::size_t bytes = 0;
  cudaStream_t s = nullptr;
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  StreamScratch(std::size_t n, cudaStream_t st, cudaError_t& err) : bytes(n), s(st) {
    err = cudaMallocAsync(&p, n, st);
    if (err != cudaSuccess) p = nullptr;
  }
  ~StreamScratch() {
    if (p == nullptr) return;
    (void)cudaMemsetAsync(p, 0, bytes, s);
    (void)cudaFreeAsync(p, s);
  }
};

}  // namespace

std::uint64_t scratch_per_signature(const dev::Layout& lay) {
  return round256(lay.nodes_bytes()) + round256(lay.com_bytes()) + round256(lay.rows_bytes()) +
         round256(lay.hq_bytes()) + round256(lay.st_bytes());
}

int run_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  const std::uint64_t per = scratch_per_signature(lay);
  const std::uint64_t sub = std::max<std::uint64_t>(1, std::min<std::uint64_t>(count, scratch_budget / per));
  cudaError_t err = cudaSuccess;
  StreamScratch scratch(std::size_t(sub * per), s, err);
  if (err != cudaSuccess) return int(err);
  auto* base = static_cast<std::uint8_t*>(scratch.p);
  for (std::uint64_t first = 0; first < count; first += sub) {
    dev::Args a{};
    a.lay = lay;
    a.count = std::min<std::uint64_t>(sub, count - first);
    a.in = in + first * lay.in_stride();
    a.out = out + first * lay.out_stride();
    // Per-signature strides inside the scratch arrays are the unrounded sizes (Args);
    // each array's start is 256-aligned.
    a.nodes = base;
    a.com = a.nodes + sub * round256(lay.nodes_bytes());
    a.rows = a.com + sub * round256(lay.com_bytes());
    a.hq = a.rows + sub * round256(lay.rows_bytes());
    a.st = a.hq + sub * round256(lay.hq_bytes());
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
    if (err != cudaSuccess) return int(err);
  }
  return 0;
}

}  // namespace tempo::perk::cuda
