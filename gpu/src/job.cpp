// Claiming work from either end of a batch, and the algorithms' sponge parameters.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "job.hpp"

namespace tempo::gpu::detail {

Range Job::claim_back_locked(std::size_t max_bytes, std::size_t max_items) {
  if (front >= back) return {};
  const std::size_t b = back;
  std::size_t lo = b - std::min(max_items == 0 ? 1 : max_items, b - front);  // most messages allowed
  // bytes(s, b) shrinks as s grows: find the smallest s in [lo, b-1] within max_bytes.
  std::size_t hi = b - 1;
  if (in.bytes(lo, b) > max_bytes) {
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (in.bytes(mid, b) <= max_bytes)
        hi = mid;
      else
        lo = mid + 1;
    }
  }
  back = lo;
  return {lo, b};
}

Range Job::claim_front(std::size_t max_bytes, std::size_t max_items) {
  std::lock_guard lock(m);
  if (front >= back) return {};
  const std::size_t f = front;
  std::size_t hi = f + std::min(max_items == 0 ? 1 : max_items, back - f);
  std::size_t lo = f + 1;
  if (in.bytes(f, hi) > max_bytes) {
    // Largest e in [f+1, hi] with bytes(f, e) <= max_bytes (at least one message).
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo + 1) / 2;
      if (in.bytes(f, mid) <= max_bytes)
        lo = mid;
      else
        hi = mid - 1;
    }
    hi = lo;
  }
  front = hi;
  return {f, hi};
}

SpongeSpec spec_for(crypto::Algorithm a, std::size_t out_bytes) {
  SpongeSpec s;
  s.rate = static_cast<std::uint32_t>(crypto::rate_bytes(a));
  s.rounds = static_cast<std::uint32_t>(crypto::permutation_rounds(a));
  switch (a) {
    case crypto::Algorithm::sha3_224:
    case crypto::Algorithm::sha3_256:
    case crypto::Algorithm::sha3_384:
    case crypto::Algorithm::sha3_512:
      s.domain = 0x06;
      break;
    case crypto::Algorithm::shake128:
    case crypto::Algorithm::shake256:
    case crypto::Algorithm::turboshake128:
    case crypto::Algorithm::turboshake256:
      s.domain = 0x1F;
      break;
    default:
      throw std::invalid_argument("tempo::gpu: no GPU kernel for " + std::string(crypto::algorithm_name(a)));
  }
  s.out_bytes = static_cast<std::uint32_t>(out_bytes);
  return s;
}

}  // namespace tempo::gpu::detail
