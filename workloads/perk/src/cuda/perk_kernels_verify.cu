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

template <dev::VerifyStage S>
void launch_verify(unsigned blocks, unsigned block, cudaStream_t s, const dev::VerifyLayout& v, const dev::Args& a,
                   std::uint8_t* result, const dev::VerifyLaunch& l, std::uint64_t threads) {
  verify_kernel<S><<<blocks, block, 0, s>>>(v, a, result, l, threads);
}

cudaError_t launch(const dev::VerifyLayout& v, const dev::Args& a, std::uint8_t* result, const dev::VerifyLaunch& l,
                   cudaStream_t s) {
  using V = dev::VerifyStage;
  const std::uint64_t threads = a.count * l.per_sig;
  const unsigned block = detail::block_for(l.per_sig);
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

}  // namespace

int run_verify_stage(const dev::VerifyLayout& v, const std::uint8_t* in, std::uint8_t* out, std::size_t count,
                     void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  // One byte out per item; the signer's stages that the verifier runs leave a.out alone.
  return detail::run_chunks(v.lay, in, out, 1, count, s, [&](const dev::Args& a, cudaError_t& err) {
    dev::for_each_verify_stage(v, [&](const dev::VerifyLaunch& l) {
      if (err == cudaSuccess) err = launch(v, a, a.out, l, s);
    });
  });
}

}  // namespace tempo::perk::cuda
