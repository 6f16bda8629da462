// NTT kernels and their launchers; the per-thread code is in ntt_device.hpp.
#include <cuda_runtime.h>

#include <cstdint>

#include <tempo/ntt/detail/kernels.hpp>

#include "ntt_device.hpp"

namespace tempo::ntt::cuda {
namespace {

using dev::u32;
using dev::u64;

// Up to 1024 threads (a 32-bit chunk of 8192 coefficients): the bound keeps registers
// at <= 64 per thread so such a block always fits an SM.
template <typename W, bool Forward>
__global__ void __launch_bounds__(1024) chunk_kernel(const u64* in, u64* out, const void* tables, Params p, int log_c, std::size_t chunks) {
  extern __shared__ u64 smem_raw[];
  const u32 tpc = 1u << (log_c - 3);
  const u32 slot = threadIdx.x / tpc;
  const std::size_t chunk = static_cast<std::size_t>(blockIdx.x) * (blockDim.x / tpc) + slot;
  const bool active = chunk < chunks;
  W* sm = reinterpret_cast<W*>(smem_raw) + slot * dev::smem_words(log_c);
  const u32 cpp = p.n >> log_c;  // chunks per polynomial
  const dev::ChunkGeom g{in + (chunk << log_c), out + (chunk << log_c), static_cast<u32>(chunk % cpp) << log_c,
                         threadIdx.x % tpc};
  const dev::Tw<W> tw(tables, p.n);
  dev::Phase ph = dev::first_phase(Forward, log_c);
  if (!ph.in_global) {
    if (active) dev::copy_in(g, sm, log_c);
    __syncthreads();
  }
  do {
    if (active) dev::phase<W, Forward>(g, sm, tw, p, ph);
    __syncthreads();
  } while (dev::next_phase(Forward, log_c, ph));
  if (!ph.out_global && active) dev::copy_out(g, sm, log_c);
}

template <typename W, bool Forward>
__global__ void stage_kernel(const u64* in, u64* out, const void* tables, Params p, int log_len, std::size_t total) {
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid >= total) return;
  dev::stage_body<W, Forward>(tid, in, out, dev::Tw<W>(tables, p.n), p, log_len);
}

__global__ void pointwise_kernel(const u64* a, const u64* b, u64* out, Params p, std::size_t total) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < total) out[i] = dev::mul_mod(a[i], b[i], p);
}

template <typename W, bool Forward>
void launch_chunks(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count, cudaStream_t s) {
  const int log_c = dev::chunk_log(p);
  const int tpc = 1 << (log_c - 3);
  const int per_block = tpc >= 256 ? 1 : 256 / tpc;  // blocks of at least 256 threads
  const std::size_t chunks = count * (p.n >> log_c);
  const std::size_t blocks = (chunks + per_block - 1) / per_block;
  const std::size_t smem = static_cast<std::size_t>(per_block) * dev::smem_words(log_c) * sizeof(W);
  chunk_kernel<W, Forward><<<static_cast<unsigned>(blocks), per_block * tpc, smem, s>>>(in, out, tables, p, log_c, chunks);
}

template <typename W, bool Forward>
void launch_stage(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count, int log_len,
                  cudaStream_t s) {
  const std::size_t total = count * (p.n / 2);
  const unsigned threads = 256;
  stage_kernel<W, Forward><<<static_cast<unsigned>((total + threads - 1) / threads), threads, 0, s>>>(in, out, tables, p,
                                                                                                     log_len, total);
}

template <typename W>
int forward_t(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count, cudaStream_t s) {
  const int log_c = dev::chunk_log(p);
  const u64* src = in;
  for (int ll = static_cast<int>(p.log_n) - 1; ll >= log_c; --ll) {
    launch_stage<W, true>(p, tables, src, out, count, ll, s);
    src = out;
  }
  launch_chunks<W, true>(p, tables, src, out, count, s);
  return static_cast<int>(cudaGetLastError());
}

template <typename W>
int inverse_t(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count, cudaStream_t s) {
  const int log_c = dev::chunk_log(p);
  launch_chunks<W, false>(p, tables, in, out, count, s);
  for (int ll = log_c; ll < static_cast<int>(p.log_n); ++ll) launch_stage<W, false>(p, tables, out, out, count, ll, s);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int forward(const Params& p, const void* d_tables, const u64* in, u64* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  return p.word32 ? forward_t<u32>(p, d_tables, in, out, count, s) : forward_t<u64>(p, d_tables, in, out, count, s);
}

int inverse(const Params& p, const void* d_tables, const u64* in, u64* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  return p.word32 ? inverse_t<u32>(p, d_tables, in, out, count, s) : inverse_t<u64>(p, d_tables, in, out, count, s);
}

int pointwise(const Params& p, const u64* a, const u64* b, u64* out, std::size_t count, void* stream) {
  if (count == 0) return 0;
  const std::size_t total = count * p.n;
  const unsigned threads = 256;
  pointwise_kernel<<<static_cast<unsigned>((total + threads - 1) / threads), threads, 0,
                     static_cast<cudaStream_t>(stream)>>>(a, b, out, p, total);
  return static_cast<int>(cudaGetLastError());
}

int multiply(const Params& p, const void* d_tables, const u64* a, const u64* b, u64* out, std::size_t count,
             void* stream) {
  if (count == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  void* scratch = nullptr;
  const cudaError_t e = cudaMallocAsync(&scratch, count * p.n * sizeof(u64), s);
  if (e != cudaSuccess) return static_cast<int>(e);
  u64* tb = static_cast<u64*>(scratch);
  int rc = forward(p, d_tables, a, out, count, stream);
  if (rc == 0) rc = forward(p, d_tables, b, tb, count, stream);
  if (rc == 0) rc = pointwise(p, out, tb, out, count, stream);
  if (rc == 0) rc = inverse(p, d_tables, out, out, count, stream);
  const cudaError_t f = cudaFreeAsync(scratch, s);
  return rc != 0 ? rc : static_cast<int>(f);
}

}  // namespace tempo::ntt::cuda
