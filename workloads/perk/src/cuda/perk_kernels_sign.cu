// The PERK signer's CUDA kernels: one kernel per stage of perk_device.hpp, one thread per
// item of the stage; every thread runs dev::run_thread, the code the host emulation tests run.
// (The verifier's kernels: perk_kernels_verify.cu.)
#include <iterator>

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

constexpr std::size_t kStages = std::size_t(dev::Stage::open) + 1;  // root .. open

cudaError_t launch(const dev::Args& a, const dev::Launch& l, cudaStream_t s) {
  const std::uint64_t threads = a.count * l.per_sig;
  const unsigned block = detail::block_for(l.per_sig);
  const unsigned blocks = unsigned((threads + block - 1) / block);
  static const auto kernels = tempo::gpu::detail::kernel_table<kStages>(
      [](auto i) { return &stage_kernel<static_cast<dev::Stage>(decltype(i)::value)>; });
  kernels[std::size_t(l.stage)]<<<blocks, block, 0, s>>>(a, l, threads);
  return cudaGetLastError();
}

// The stages' names for StageProfile (TEMPO_PERK_GPU_PROFILE).
const char* const stage_names[] = {"root",       "expand",    "leaves",   "hash_quarters", "hash_final",
                                   "reduce",     "challenge1", "vole_hashes", "hash_rows", "pkp_rows",
                                   "challenge2", "pkp_mix",   "pkp_final", "grind",         "open"};
static_assert(std::size(stage_names) == kStages);

}  // namespace

int run_stage(const dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out, std::size_t count, void* stream,
              bool profile_stages) {
  const auto s = static_cast<cudaStream_t>(stream);
  return detail::run_chunks(lay, in, out, lay.out_stride(), count, s, true, [&](const dev::Args& a, cudaError_t& err) {
    tempo::gpu::detail::StageProfile profile(profile_stages, s);
    dev::for_each_stage(lay, [&](const dev::Launch& l) {
      if (err == cudaSuccess) err = launch(a, l, s);
      profile.mark(unsigned(l.stage));
    });
    profile.report("perk", a.count, stage_names, unsigned(std::size(stage_names)));
  });
}

}  // namespace tempo::perk::cuda
