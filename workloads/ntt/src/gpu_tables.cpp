// What the CUDA kernels need from a Plan (tempo/ntt/detail/kernels.hpp).
#include <cstring>

#include <tempo/ntt/detail/kernels.hpp>

#include "tables.hpp"

namespace tempo::ntt::detail {
namespace {

// q < 2^30: the kernels compute in 32-bit words (Shoup companions with 2^32).
bool device_word32(u64 q) { return q < (u64{1} << 30); }

}  // namespace

cuda::Params device_params(const Tables& t) {
  cuda::Params p;
  p.n = static_cast<std::uint32_t>(t.n);
  p.log_n = t.log_n;
  p.q = t.q;
  p.word32 = device_word32(t.q);
  p.n_inv = t.n_inv;
  p.n_inv_s = p.word32 ? (t.n_inv << 32) / t.q : t.n_inv_shoup;
  p.mu = t.barrett.mu;
  p.k = t.barrett.k;
  return p;
}

std::vector<std::uint8_t> device_table_bytes(const Tables& t) {
  const std::vector<u64>* parts[] = {&t.fwd, &t.fwd_shoup, &t.inv, &t.inv_shoup};
  if (!device_word32(t.q)) {
    std::vector<std::uint8_t> out(4 * t.n * 8);
    for (int i = 0; i < 4; ++i) std::memcpy(out.data() + i * t.n * 8, parts[i]->data(), t.n * 8);
    return out;
  }
  std::vector<std::uint32_t> words(4 * t.n);
  for (std::size_t m = 0; m < t.n; ++m) {
    words[m] = static_cast<std::uint32_t>(t.fwd[m]);
    words[t.n + m] = static_cast<std::uint32_t>((t.fwd[m] << 32) / t.q);
    words[2 * t.n + m] = static_cast<std::uint32_t>(t.inv[m]);
    words[3 * t.n + m] = static_cast<std::uint32_t>((t.inv[m] << 32) / t.q);
  }
  std::vector<std::uint8_t> out(words.size() * 4);
  std::memcpy(out.data(), words.data(), out.size());
  return out;
}

}  // namespace tempo::ntt::detail
