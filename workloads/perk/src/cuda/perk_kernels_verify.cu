// The PERK verifier's CUDA kernels: one kernel per stage of perk_verify.hpp, one thread per
// item of the stage; every thread runs dev::run_verify_thread, the code the host emulation
// tests run. (The signer's kernels: perk_kernels_sign.cu.)
#include "cuda/perk_kernels_chunks.cuh"

namespace tempo::perk::cuda {
namespace {

using detail::kBlock;

template <dev::VerifyStage S>
__global__ void __launch_bounds__(kBlock)
    verify_kernel(dev::VerifyLayout v, dev::Args a, std::uint8_t* result, dev::VerifyLaunch l, std::uint64_t threads) {
  const std::uint64_t t = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  l.stage = S;  // a constant: the switch in run_verify_thread folds away
  dev::run_verify_thread(v, a, result, l, t);
}

constexpr std::size_t kStages = std::size_t(dev::VerifyStage::final) + 1;  // place .. final

cudaError_t launch(const dev::VerifyLayout& v, const dev::Args& a, std::uint8_t* result, const dev::VerifyLaunch& l,
                   cudaStream_t s) {
  const std::uint64_t threads = a.count * l.per_sig;
  const unsigned block = detail::block_for(l.per_sig);
  const unsigned blocks = unsigned((threads + block - 1) / block);
  static const auto kernels = tempo::gpu::detail::kernel_table<kStages>(
      [](auto i) { return &verify_kernel<static_cast<dev::VerifyStage>(decltype(i)::value)>; });
  kernels[std::size_t(l.stage)]<<<blocks, block, 0, s>>>(v, a, result, l, threads);
  return cudaGetLastError();
}

}  // namespace

int run_verify_stage(const dev::VerifyLayout& v, const std::uint8_t* in, std::uint8_t* out, std::size_t count,
                     void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  // One byte out per item; the signer's stages that the verifier runs leave a.out alone. The
  // scratch holds only public data (a signature being checked): not wiped.
  return detail::run_chunks(v.lay, in, out, 1, count, s, false, [&](const dev::Args& a, cudaError_t& err) {
    dev::for_each_verify_stage(v, [&](const dev::VerifyLaunch& l) {
      if (err == cudaSuccess) err = launch(v, a, a.out, l, s);
    });
  });
}

}  // namespace tempo::perk::cuda
