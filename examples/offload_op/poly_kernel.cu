// The example op's kernel: one thread per item, Horner's rule mod 2^32.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace example {
namespace {
__global__ void poly_eval(const std::uint32_t* in, std::uint32_t* out, std::size_t n, const std::uint32_t* k,
                          std::size_t degree) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const std::uint32_t x = in[i];
  std::uint32_t y = k[degree];
  for (std::size_t d = degree; d-- > 0;) y = y * x + k[d];
  out[i] = y;
}
}  // namespace

int launch_poly_eval(void* stream, const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                     const std::uint32_t* coeffs, std::size_t degree) {
  if (n == 0) return 0;
  poly_eval<<<static_cast<unsigned>((n + 255) / 256), 256, 0, static_cast<cudaStream_t>(stream)>>>(in, out, n, coeffs,
                                                                                                   degree);
  return static_cast<int>(cudaGetLastError());
}
}  // namespace example
