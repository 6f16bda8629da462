// The PERK signer's CUDA kernels: one kernel per stage of perk_device.hpp, one thread per
// item of the stage; every thread runs dev::run_thread, the code the host emulation tests run.
// (The verifier's kernels: perk_kernels_verify.cu.)
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/perk_kernels_chunks.cuh"

namespace tempo::perk::cuda {
namespace {

using detail::kBlock;

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
  const unsigned block = detail::block_for(l.per_sig);
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
    case dev::Stage::challenge2: stage_kernel<dev::Stage::challenge2><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::pkp_mix: stage_kernel<dev::Stage::pkp_mix><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::pkp_final: stage_kernel<dev::Stage::pkp_final><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::grind: stage_kernel<dev::Stage::grind><<<blocks, block, 0, s>>>(a, l, threads); break;
    case dev::Stage::open: stage_kernel<dev::Stage::open><<<blocks, block, 0, s>>>(a, l, threads); break;
  }
  return cudaGetLastError();
}

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
                                      "challenge2", "pkp_mix",    "pkp_final",   "grind",         "open"};
  return names[unsigned(s)];
}

}  // namespace

std::uint64_t scratch_per_signature(const dev::Layout& lay) {
  using detail::round256;
  return round256(lay.nodes_bytes()) + round256(lay.com_bytes()) + round256(lay.rows_bytes()) +
         round256(lay.hq_bytes()) + round256(lay.st_bytes());
}

int run_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return detail::run_chunks(lay, in, out, lay.out_stride(), count, s, [&](const dev::Args& a, cudaError_t& err) {
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

}  // namespace tempo::perk::cuda
