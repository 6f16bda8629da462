// One batch's shared state between the dispatching task and the engine threads.
// Internal header.
//
// Work division: the unclaimed messages are [front, back). The CPU workers claim
// blocks from the front, the engine threads (all streams of all devices) claim chunks
// from the back, under one mutex (claims are coarse: tens of microseconds of work or
// more). When the two meet, both sides are done at about the same time, whatever the
// cost model's estimate was: the estimate only decides who takes part.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <string>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

#include <tempo/crypto/keccak.hpp>
#include <tempo/tempo.hpp>

#include "keccak_device.hpp"

namespace tempo::gpu::detail {

using Clock = std::chrono::steady_clock;

inline double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Messages either at fixed stride (offsets == nullptr) or by offsets (n+1 entries, [0] == 0).
struct View {
  const std::uint8_t* data = nullptr;
  const std::uint64_t* offsets = nullptr;
  std::size_t msg_len = 0;
  std::size_t n = 0;
  std::uint64_t begin(std::size_t i) const { return offsets ? offsets[i] : static_cast<std::uint64_t>(i) * msg_len; }
  std::uint64_t bytes(std::size_t s, std::size_t e) const { return begin(e) - begin(s); }
  bool fixed() const { return offsets == nullptr; }
};

struct Range {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
  bool empty() const { return begin >= end; }
};

struct Job {
  crypto::Algorithm algo{};
  SpongeSpec spec;
  View in;
  std::uint8_t* out = nullptr;
  std::size_t out_bytes = 0;
  bool in_pinned = false;   // the copy engines may read `in` directly
  bool out_pinned = false;  // ... and write `out` directly
  std::uint64_t max_gpu_len = 0;  // longer messages are left to the CPU

  // Chunk caps for the engine threads (bytes of input, bytes of output, messages).
  std::size_t chunk_in = 0, chunk_out = 0, chunk_items = 0;

  std::mutex m;  // guards everything below it
  std::size_t front = 0, back = 0;
  std::vector<Range> leftovers;          // ranges the GPU gave back (memory ran out)
  std::vector<std::size_t> skipped;      // messages over max_gpu_len inside GPU chunks
  std::exception_ptr error;              // first non-recoverable failure
  bool fell_back = false;
  double copy_in_ms = 0, kernel_ms = 0, copy_out_ms = 0;
  std::size_t gpu_items = 0, gpu_chunks = 0;
  double gpu_perms = 0, gpu_bytes = 0;
  unsigned devices_mask = 0;
  Clock::time_point gpu_first{}, gpu_last{};
  bool gpu_started = false;

  std::atomic<int> pending{0};  // engine threads still on this job
  Signal done;                  // set by the last engine thread
  bool finished = false;        // (under m) the same, for waiting outside tempo
  std::condition_variable finished_cv;

  // The async form's deferred CPU placement: join() does the hashing.
  bool deferred_cpu = false;
  bool joined = false;
  std::string reason;
  Clock::time_point submitted{};

  // Called by the last engine thread. The engine thread keeps its own reference,
  // so the Job outlives this call even if the waiter drops its reference at once.
  void mark_finished() {
    {
      std::lock_guard lock(m);
      finished = true;
    }
    finished_cv.notify_all();
    done.set();
  }
  void wait_finished_blocking() {
    std::unique_lock lock(m);
    finished_cv.wait(lock, [&] { return finished; });
  }

  // Claims up to `max_items` messages / `max_bytes` input bytes from the back.
  // A single message over max_bytes is still claimed alone (callers check). Empty: none left.
  Range claim_back(std::size_t max_bytes, std::size_t max_items) {
    std::lock_guard lock(m);
    return claim_back_locked(max_bytes, max_items);
  }
  Range claim_back_locked(std::size_t max_bytes, std::size_t max_items);
  Range claim_front(std::size_t max_bytes, std::size_t max_items);
  void fail(std::exception_ptr e) {
    std::lock_guard lock(m);
    if (!error) error = e;
  }
  bool failed() {
    std::lock_guard lock(m);
    return error != nullptr;
  }
};

// Keccak-f calls needed to hash `bytes` of input spread over `items` messages, each
// squeezing out_bytes (an estimate within `items` of the exact count, in O(1)).
inline double estimate_perms(double items, double bytes, std::size_t rate, std::size_t out_bytes) {
  const double squeeze_extra = out_bytes > rate ? static_cast<double>((out_bytes - 1) / rate) : 0.0;
  return items * (1.0 + squeeze_extra) + bytes / static_cast<double>(rate);
}

SpongeSpec spec_for(crypto::Algorithm a, std::size_t out_bytes);

}  // namespace tempo::gpu::detail
