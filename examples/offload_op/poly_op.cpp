#include "poly_op.hpp"

#include <cstring>
#include <stdexcept>

namespace example {

#if defined(EXAMPLE_HAVE_CUDA)
// poly_kernel.cu: a plain launcher, so this file needs no CUDA headers.
int launch_poly_eval(void* stream, const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                     const std::uint32_t* coeffs, std::size_t degree);
#endif

namespace {
std::span<const std::uint8_t> bytes_of(const std::vector<std::uint32_t>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(std::uint32_t)};
}
}  // namespace

PolyEval::PolyEval(tempo::gpu::Engine& engine, std::vector<std::uint32_t> coeffs)
    : coeffs_(engine, bytes_of(coeffs)), degree_(coeffs.empty() ? 0 : coeffs.size() - 1) {
  if (coeffs.empty()) throw std::invalid_argument("PolyEval: no coefficients");
}

void PolyEval::cpu(const tempo::gpu::Chunk& c) const {
  const auto host = coeffs_.host();  // throws after release()
  const auto* k = reinterpret_cast<const std::uint32_t*>(host.data());
  for (std::size_t i = 0; i < c.count; ++i) {
    std::uint32_t x;
    std::memcpy(&x, c.in[0].data + 4 * i, 4);  // input and output may be the same bytes
    std::uint32_t y = k[degree_];
    for (std::size_t d = degree_; d-- > 0;) y = y * x + k[d];  // Horner, mod 2^32
    std::memcpy(c.out + 4 * i, &y, 4);
  }
}

bool PolyEval::has_cuda() const {
#if defined(EXAMPLE_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

int PolyEval::cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const {
#if defined(EXAMPLE_HAVE_CUDA)
  const auto* k = static_cast<const std::uint32_t*>(coeffs_.on(ctx));  // uploaded once per device
  return launch_poly_eval(ctx.stream, reinterpret_cast<const std::uint32_t*>(c.in[0].data),
                          reinterpret_cast<std::uint32_t*>(c.out), c.count, k, degree_);
#else
  (void)c;
  (void)ctx;
  return 0;
#endif
}

}  // namespace example
