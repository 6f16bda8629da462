#include "test_ops.hpp"

#include <cstring>

namespace gtest {

#if defined(TEST_OPS_HAVE_CUDA)
int launch_xor_key(void* stream, const std::uint8_t* in, std::uint8_t* out, std::size_t n, const std::uint8_t* key);
int launch_add_pairs(void* stream, const std::uint8_t* a, const std::uint8_t* b, std::uint8_t* out, std::size_t words);
constexpr bool kCuda = true;
#else
constexpr bool kCuda = false;
#endif

void XorKey::cpu(const tempo::gpu::Chunk& c) const {
  const auto k = key_.host();
  for (std::size_t i = 0; i < c.count * 64; ++i) c.out[i] = static_cast<std::uint8_t>(c.in[0].data[i] ^ k[i % 64]);
}
bool XorKey::has_cuda() const { return kCuda; }
int XorKey::cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const {
#if defined(TEST_OPS_HAVE_CUDA)
  return launch_xor_key(ctx.stream, c.in[0].data, c.out, c.count, static_cast<const std::uint8_t*>(key_.on(ctx)));
#else
  (void)c, (void)ctx;
  return 0;
#endif
}

void AddPairs::cpu(const tempo::gpu::Chunk& c) const {
  for (std::size_t i = 0; i < c.count * stride_ / 8; ++i) {
    std::uint64_t a, b;
    std::memcpy(&a, c.in[0].data + 8 * i, 8);
    std::memcpy(&b, c.in[1].data + 8 * i, 8);
    a += b;
    std::memcpy(c.out + 8 * i, &a, 8);
  }
}
bool AddPairs::has_cuda() const { return kCuda; }
int AddPairs::cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const {
#if defined(TEST_OPS_HAVE_CUDA)
  return launch_add_pairs(ctx.stream, c.in[0].data, c.in[1].data, c.out, c.count * stride_ / 8);
#else
  (void)c, (void)ctx;
  return 0;
#endif
}

void Failing::cpu(const tempo::gpu::Chunk& c) const { std::memset(c.out, 0x11, c.count * 8); }

}  // namespace gtest
