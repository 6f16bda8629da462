// Internal, no stable API: pinned buffers kept between batches. Pinning a few hundred MiB
// costs tens of milliseconds, which a batch path that stages its items in HostBuffers
// (FAEST's slices) would otherwise pay on every call. A buffer taken is the taker's until
// it is given back; the taker wipes anything secret first. Thread-safe.
#pragma once

#include <algorithm>
#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

#include <tempo/gpu/backend.hpp>

namespace tempo::gpu::detail {

class HostBufferPool {
 public:
  // At most `keep` buffers stay in the pool; the rest are freed when given back.
  explicit HostBufferPool(std::size_t keep) : keep_(keep) { free_.reserve(keep); }

  // A buffer of `bytes` (size() == bytes): the smallest kept one that fits, else the
  // largest kept one (it grows), else a new one.
  HostBuffer take(std::size_t bytes) {
    HostBuffer b;
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!free_.empty()) {
        auto fits = [&](const HostBuffer& x) { return x.capacity() >= bytes; };
        auto it = std::min_element(free_.begin(), free_.end(), [&](const HostBuffer& x, const HostBuffer& y) {
          if (fits(x) != fits(y)) return fits(x);
          return fits(x) ? x.capacity() < y.capacity() : x.capacity() > y.capacity();
        });
        b = std::move(*it);
        free_.erase(it);
      }
    }
    b.resize(bytes);
    return b;
  }

  // Keeps pinned buffers only (an unpinned one, where pinning failed, is freed). Called
  // from destructors: no allocation here (the capacity was reserved).
  void give_back(HostBuffer b) noexcept {
    if (!b.pinned()) return;
    std::lock_guard<std::mutex> lock(m_);
    if (free_.size() < keep_) free_.push_back(std::move(b));
  }

 private:
  std::mutex m_;
  std::vector<HostBuffer> free_;
  std::size_t keep_;
};

// The process-wide pool of the signature families' batch slices (FAEST, PERK: up to four
// buffers in flight per batch; pinning them anew costs more than a tenth of a batch).
inline HostBufferPool& slice_pool() {
  static HostBufferPool pool(8);
  return pool;
}

}  // namespace tempo::gpu::detail
