// What the CUDA kernels need from a Plan (tempo/ntt/detail/kernels.hpp): launch
// parameters and the twiddle tables in the kernels' layout (src/cuda/ntt_device.hpp).
#include <cstring>

#include <tempo/ntt/detail/kernels.hpp>

#include "cuda/ntt_device.hpp"
#include "tables.hpp"

namespace tempo::ntt::detail {
namespace {

// q < 2^31: the kernels compute in 32-bit words (Shoup companions with 2^32).
bool device_word32(u64 q) { return q < (u64{1} << 31); }
u64 companion(u64 w, u64 q, bool word32) { return word32 ? (w << 32) / q : shoup(w, q); }

}  // namespace

cuda::Params device_params(const Tables& t) {
  cuda::Params p;
  p.n = static_cast<std::uint32_t>(t.n);
  p.log_n = t.log_n;
  p.q = t.q;
  p.word32 = device_word32(t.q);
  p.n_inv = t.n_inv;
  p.n_inv_s = companion(t.n_inv, t.q, p.word32);
  const Barrett br(t.q);
  p.mu = br.mu;
  p.k = br.k;
  return p;
}

std::vector<std::uint8_t> device_table_bytes(const Tables& t) {
  namespace dev = cuda::dev;
  const int L = static_cast<int>(t.log_n), Lc = dev::chunk_log(L), r = dev::log_r(Lc);
  const std::size_t C = std::size_t{1} << Lc, chunks = t.n >> Lc;
  const bool w32 = device_word32(t.q);
  std::vector<u64> words(2 * dev::table_pairs(L));  // pair i: words 2i, 2i+1; pair 0s stay 0
  auto put = [&](std::size_t pair, u64 w) {
    words[2 * pair] = w;
    words[2 * pair + 1] = companion(w, t.q, w32);
  };
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::size_t fwd = dev::chunk_table(c, Lc), inv = fwd + C;
    for (int b = 0; b < Lc; ++b) {
      // Stage bit b of the chunk: natural index i < 2^(Lc-1-b) within the stage, i.e.
      // global twiddle fwd[2^(L-1-b) + c * 2^(Lc-1-b) + i], inv[2^(L-b) - 1 - that offset].
      const int a = dev::window_of_bit(Lc, b), g = a + r - 1 - b;
      const std::size_t threads = std::size_t{1} << (Lc - r - a), base = c << (Lc - 1 - b);
      for (std::size_t th = 0; th < threads; ++th)
        for (std::size_t G = 0; G < (std::size_t{1} << g); ++G) {
          const std::size_t i = base + (th << g) + G;
          const auto pos = dev::tw_pos(Lc, b, static_cast<std::uint32_t>(G), static_cast<std::uint32_t>(th));
          put(fwd + pos, t.fwd[(std::size_t{1} << (L - 1 - b)) + i]);
          put(inv + pos, t.inv[(std::size_t{1} << (L - b)) - 1 - i]);
        }
    }
  }
  if (chunks > 1) {
    const std::size_t col = dev::column_table(L), rows = chunks;
    for (std::size_t m = 1; m < rows; ++m) {
      put(col + m, t.fwd[m]);
      put(col + rows + m, t.inv[m]);
    }
  }
  if (!w32) {
    std::vector<std::uint8_t> out(words.size() * 8);
    std::memcpy(out.data(), words.data(), out.size());
    return out;
  }
  std::vector<std::uint32_t> narrow(words.begin(), words.end());
  std::vector<std::uint8_t> out(narrow.size() * 4);
  std::memcpy(out.data(), narrow.data(), out.size());
  return out;
}

}  // namespace tempo::ntt::detail
