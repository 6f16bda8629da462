// The GPU Keccak kernels: one message per thread, its state in registers.
#include <cuda_runtime.h>

#include <tempo/keccak/detail/kernels.hpp>

namespace tempo::keccak::cuda {
namespace {

constexpr int kFixed32Block = 256;
constexpr int kGenericBlock = 128;

__device__ __forceinline__ std::uint64_t lanes_of(unsigned lo, unsigned hi) {
  return static_cast<std::uint64_t>(lo) | (static_cast<std::uint64_t>(hi) << 32);
}

// 32-byte messages to 32-byte digests. Each thread loads its message as two 16-byte
// vectors and stores its digest the same way: a warp touches 1 KiB of contiguous
// memory per direction, in full 32-byte sectors.
template <int RATE_LANES, int ROUNDS, bool UNROLLED>
__global__ void __launch_bounds__(kFixed32Block) fixed32_kernel(const uint4* __restrict__ in, uint4* __restrict__ out,
                                                               std::uint64_t n, std::uint64_t domain) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kFixed32Block + threadIdx.x;
  if (i >= n) return;
  const uint4 v0 = __ldg(in + 2 * i);
  const uint4 v1 = __ldg(in + 2 * i + 1);
  std::uint64_t a[25];
#pragma unroll
  for (int k = 0; k < 25; ++k) a[k] = 0;
  a[0] = lanes_of(v0.x, v0.y);
  a[1] = lanes_of(v0.z, v0.w);
  a[2] = lanes_of(v1.x, v1.y);
  a[3] = lanes_of(v1.z, v1.w);
  a[4] = domain;
  a[RATE_LANES - 1] ^= 0x8000000000000000ULL;
  if constexpr (UNROLLED)
    keccak_p_unrolled<ROUNDS>(a);
  else
    keccak_p_loop(a, ROUNDS);
  out[2 * i] = make_uint4(static_cast<unsigned>(a[0]), static_cast<unsigned>(a[0] >> 32),
                          static_cast<unsigned>(a[1]), static_cast<unsigned>(a[1] >> 32));
  out[2 * i + 1] = make_uint4(static_cast<unsigned>(a[2]), static_cast<unsigned>(a[2] >> 32),
                              static_cast<unsigned>(a[3]), static_cast<unsigned>(a[3] >> 32));
}

__global__ void __launch_bounds__(kGenericBlock) fixed_kernel(const std::uint8_t* __restrict__ in,
                                                              std::uint64_t msg_len, std::uint8_t* __restrict__ out,
                                                              std::uint64_t n, SpongeSpec s) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kGenericBlock + threadIdx.x;
  if (i >= n) return;
  hash_message(in + i * msg_len, msg_len, out + i * s.out_bytes, s);
}

__global__ void __launch_bounds__(kGenericBlock) var_kernel(const std::uint8_t* __restrict__ in,
                                                            const std::uint64_t* __restrict__ offsets,
                                                            std::uint8_t* __restrict__ out, std::uint64_t n,
                                                            std::uint64_t max_len, SpongeSpec s) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kGenericBlock + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t b = offsets[i], e = offsets[i + 1];
  if (e - b > max_len) return;  // left for the CPU
  hash_message(in + b, e - b, out + i * s.out_bytes, s);
}

unsigned blocks_for(std::uint64_t n, int block) { return static_cast<unsigned>((n + block - 1) / block); }

template <bool UNROLLED>
int launch_fixed32(cudaStream_t st, const std::uint8_t* d_in, std::uint8_t* d_out, std::uint64_t n,
                   const SpongeSpec& s) {
  const auto* in = reinterpret_cast<const uint4*>(d_in);
  auto* out = reinterpret_cast<uint4*>(d_out);
  const unsigned grid = blocks_for(n, kFixed32Block);
  const std::uint64_t domain = s.domain;
  if (s.rate == 136 && s.rounds == 24)
    fixed32_kernel<17, 24, UNROLLED><<<grid, kFixed32Block, 0, st>>>(in, out, n, domain);
  else if (s.rate == 168 && s.rounds == 24)
    fixed32_kernel<21, 24, UNROLLED><<<grid, kFixed32Block, 0, st>>>(in, out, n, domain);
  else if (s.rate == 136 && s.rounds == 12)
    fixed32_kernel<17, 12, UNROLLED><<<grid, kFixed32Block, 0, st>>>(in, out, n, domain);
  else
    fixed32_kernel<21, 12, UNROLLED><<<grid, kFixed32Block, 0, st>>>(in, out, n, domain);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

bool fixed32_applies(std::uint64_t msg_len, const SpongeSpec& s) noexcept {
  return msg_len == 32 && s.out_bytes == 32 && (s.rate == 136 || s.rate == 168) && (s.rounds == 24 || s.rounds == 12);
}

int launch_fixed_variant(int variant, void* stream, const std::uint8_t* d_in, std::uint64_t msg_len,
                         std::uint8_t* d_out, std::uint64_t n, const SpongeSpec& s) {
  if (n == 0) return 0;
  auto st = static_cast<cudaStream_t>(stream);
  const bool special = fixed32_applies(msg_len, s);
  if (special && variant == 0) return launch_fixed32<true>(st, d_in, d_out, n, s);
  if (special && variant == 2) return launch_fixed32<false>(st, d_in, d_out, n, s);
  fixed_kernel<<<blocks_for(n, kGenericBlock), kGenericBlock, 0, st>>>(d_in, msg_len, d_out, n, s);
  return static_cast<int>(cudaGetLastError());
}

int launch_fixed(void* stream, const std::uint8_t* d_in, std::uint64_t msg_len, std::uint8_t* d_out,
                 std::uint64_t n, const SpongeSpec& s) {
  return launch_fixed_variant(0, stream, d_in, msg_len, d_out, n, s);
}

int launch_var(void* stream, const std::uint8_t* d_in, const std::uint64_t* d_offsets, std::uint8_t* d_out,
               std::uint64_t n, std::uint64_t max_len, const SpongeSpec& s) {
  if (n == 0) return 0;
  var_kernel<<<blocks_for(n, kGenericBlock), kGenericBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      d_in, d_offsets, d_out, n, max_len, s);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace tempo::keccak::cuda
