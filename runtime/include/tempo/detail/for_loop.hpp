// parallel_for's machinery (behind tempo/parallel.hpp): adaptive chunks,
// heartbeat splits, and the dynamic schedule of heavy call sites.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "tempo/detail/clock.hpp"
#include "tempo/task.hpp"

namespace tempo::detail {

// A chunk should take about this many cycle_clock ticks (a few microseconds):
// two clock reads and two flag loads per chunk are then well under 1%.
inline constexpr std::uint64_t chunk_target_ticks = std::uint64_t{1} << 14;
inline constexpr std::size_t max_chunk = std::size_t{1} << 24;

// Bodies may take (i) or (Task&, i); the latter can fork, join and nest loops.
template <class Body>
decltype(auto) call_body(Body& body, Task& t, std::size_t i) {
  if constexpr (std::is_invocable_v<Body&, Task&, std::size_t>) return body(t, i);
  else return body(i);
}

inline void check_range(const char* what, std::size_t first, std::size_t last) {
  if (first > last) throw std::invalid_argument(std::string(what) + ": first > last");
}
inline void check_grain(const char* what, std::size_t grain) {
  if (grain == 0) throw std::invalid_argument(std::string(what) + ": grain must be at least 1");
}

// ceil(n / block) without the overflow of (n + block - 1) / block.
constexpr std::size_t ceil_div(std::size_t n, std::size_t block) noexcept {
  return n / block + (n % block != 0 ? 1 : 0);
}

// A first chunk (one grain) expected to take at least this many ticks (about
// 50 us, half a heartbeat) makes a loop "heavy": see LoopMemory.
inline constexpr std::uint64_t heavy_chunk_ticks = std::uint64_t{1} << 17;

// What the last parallel_for over this Body type (for a lambda: this call
// site) measured: cycle_clock ticks per iteration of its first chunk, 0 if
// none ran yet. A hint, read and written relaxed, once per loop.
//
// Why (docs/design.md, "Heavy loops"): a loop polls the heartbeat between
// chunks, and a chunk is at least one grain. When one grain takes longer than
// a heartbeat (128 matrix blocks of 60 ms each), the first poll comes only
// after the first chunk, and everything the idle workers could have done
// meanwhile is lost for good (1/8 of the loop with 8 blocks per worker). A
// call site whose chunks were that long last time runs as a dynamic schedule
// shared with the pool's other workers at once; light loops never do, so a
// short loop still never wakes anybody.
//
// One slow first chunk (a preempted thread) does not make a light call site
// heavy: a light record turns heavy only after two heavy measurements in a row
// (the first is stored as just below the threshold).
template <class Body>
struct LoopMemory {
  inline static std::atomic<std::uint64_t> ticks_per_iteration{0};

  static bool heavy(std::uint64_t per_iteration, std::size_t grain) noexcept {
    return per_iteration != 0 && (grain >= heavy_chunk_ticks || per_iteration >= heavy_chunk_ticks / grain);
  }
  static void record(std::uint64_t per_iteration, std::size_t grain) noexcept {
    // relaxed: a hint; concurrent calls of one call site may overwrite each other.
    const std::uint64_t before = ticks_per_iteration.load(std::memory_order_relaxed);
    const std::uint64_t suspect = std::max<std::uint64_t>(heavy_chunk_ticks / grain, 2) - 1;  // light, marked
    per_iteration = std::max<std::uint64_t>(per_iteration, 1);
    if (before != 0 && before != suspect && !heavy(before, grain) && heavy(per_iteration, grain))
      per_iteration = suspect;
    ticks_per_iteration.store(per_iteration, std::memory_order_relaxed);
  }
};

template <class Body>
class ForLoop {
 public:
  ForLoop(Body& body, std::size_t grain) noexcept : body_(body), grain_(grain) {}

  // The calling worker's entry: a known-heavy loop becomes a dynamic schedule
  // with a helper for every other worker of the pool, handed out at once (a
  // worker that is busy, or still starting, takes its helper when it looks for
  // work); any other loop starts on this worker alone. Records this call's
  // first chunk either way.
  void start(Task& t, std::size_t i, std::size_t end) {
    // relaxed: a cost hint; a stale value only changes one schedule decision.
    const std::uint64_t per_iteration = LoopMemory<Body>::ticks_per_iteration.load(std::memory_order_relaxed);
    if (LoopMemory<Body>::heavy(per_iteration, grain_) && (end - i) / 2 >= grain_) {
      if (std::size_t others = SchedulerAccess::heavy_loop_helpers(t)) {
        // SAFETY: every helper that can reach `shared` is a fork that recruit()
        // joins (or, on an exception, ~Fork waits for) before this frame ends.
        Dynamic shared(i, end);
        return recruit(t, shared, std::min(others, ceil_div(end - i, grain_) - 1), true, 0);
      }
    }
    run(t, i, end, true);
  }

  // record: measure the first chunk into LoopMemory (the caller's own entry).
  void run(Task& t, std::size_t i, std::size_t end, bool record = false) {
    std::size_t chunk = grain_;
    while (i < end) {
      const std::size_t stop = end - i > chunk ? i + chunk : end;
      const std::uint64_t took = timed_chunk(t, i, stop, record);
      i = stop;
      // Grow fast while chunks are far too short (a light body reaches its
      // size in a few chunks), carefully near the target.
      if (took < chunk_target_ticks / 8 && chunk < max_chunk) chunk *= 4;
      else if (took < chunk_target_ticks / 2 && chunk < max_chunk) chunk *= 2;
      else if (took > chunk_target_ticks * 4 && chunk / 2 >= grain_) chunk /= 2;
      if (cancelled_.load(std::memory_order_relaxed)) [[unlikely]] return;
      if (SchedulerAccess::heartbeat_pending(t)) [[unlikely]] {
        if ((end - i) / 2 >= grain_) {  // not 2 * grain_: that overflows for huge grains
          if (std::size_t idle = SchedulerAccess::loop_heartbeat(t)) return split(t, i, end, idle + 1);
        }
      }
    }
  }

 private:
  // run_chunk, timed; the first call with `record` set stores its cost per
  // iteration in LoopMemory and clears `record`.
  std::uint64_t timed_chunk(Task& t, std::size_t i, std::size_t stop, bool& record) {
    const std::uint64_t start = cycle_clock();
    run_chunk(t, i, stop);
    const std::uint64_t took = cycle_clock() - start;
    if (record) {
      record = false;
      LoopMemory<Body>::record(took / (stop - i), grain_);
    }
    return took;
  }

  // Out of line so that the body's loop gets the registers to itself (inlined
  // into run(), GCC kept accumulators in the wrong register class).
  [[gnu::noinline]] void run_chunk(Task& t, std::size_t i, std::size_t stop) {
    try {
      for (; i < stop; ++i) call_body(body_, t, i);
    } catch (...) {
      // relaxed: a hint to stop early; the exception itself travels by join.
      cancelled_.store(true, std::memory_order_relaxed);
      throw;
    }
  }

  // Cuts [i, end) into `pieces` equal parts (one per idle worker plus this
  // one): forks the last part and splits the rest again, so that one
  // heartbeat feeds every idle worker an equal share; share_now then hands
  // the forks out.
  [[gnu::noinline]] void split(Task& t, std::size_t i, std::size_t end, std::size_t pieces) {
    const std::size_t mid = end - (end - i) / pieces;
    auto upper = [this, mid, end](Task& w) { run(w, mid, end); };
    Fork<decltype(upper)> fork(t, upper);
    if (pieces > 2 && (mid - i) / 2 >= grain_) {
      split(t, i, mid, pieces - 1);
    } else {
      SchedulerAccess::share_now(t);
      run(t, i, mid);
    }
    if (fork.join(t) == nullptr) upper(t);
  }

  // Heavy loops (design.md, "Heavy loops"): every participant claims its
  // next chunk from one counter, as OpenMP's dynamic schedule does, so that a
  // few long iterations end within one chunk of each other. A claim is one
  // compare-exchange per chunk of 50 us or more.
  struct Dynamic {
    Dynamic(std::size_t first, std::size_t last) noexcept : next(first), end(last) {}
    std::atomic<std::size_t> next;
    const std::size_t end;
  };

  // Forks `helpers` participants, each handed to the shared queue at once,
  // then takes part itself. A helper nobody took is run at its join (by this
  // worker, which finds the counter spent). `rounds`: recruitments already
  // nested on this stack.
  [[gnu::noinline]] void recruit(Task& t, Dynamic& shared, std::size_t helpers, bool record, unsigned rounds) {
    if (helpers == 0) return take_part(t, shared, record, rounds + 1);
    auto helper = [this, &shared](Task& w) { take_part(w, shared, false, 0); };
    Fork<decltype(helper)> fork(t, helper);
    SchedulerAccess::share_newest(t);  // the fork just made is t's newest
    recruit(t, shared, helpers - 1, record, rounds);
    if (fork.join(t) == nullptr) helper(t);
  }

  // Each recruitment from inside take_part nests one more recruit frame on
  // this stack; past this many the participant just works on (stack bound).
  static constexpr unsigned max_recruit_rounds = 32;

  void take_part(Task& t, Dynamic& shared, bool record, unsigned rounds) {
    std::size_t chunk = grain_;
    for (;;) {
      // relaxed: the counter only hands out disjoint ranges; the body's
      // effects reach the caller through the joins that end the loop.
      std::size_t i = shared.next.load(std::memory_order_relaxed);
      std::size_t stop;
      do {
        if (i >= shared.end) return;
        stop = shared.end - i > chunk ? i + chunk : shared.end;  // no i + chunk overflow
      } while (!shared.next.compare_exchange_weak(i, stop, std::memory_order_relaxed));
      const std::uint64_t took = timed_chunk(t, i, stop, record);
      // Chunks shorter than the target grow (the first iterations were the
      // heavy ones); never shrink below the grain.
      if (took < chunk_target_ticks / 2 && chunk < max_chunk) chunk *= 2;
      else if (took > chunk_target_ticks * 4 && chunk / 2 >= grain_) chunk /= 2;
      if (cancelled_.load(std::memory_order_relaxed)) [[unlikely]] return;
      if (rounds < max_recruit_rounds && SchedulerAccess::heartbeat_pending(t)) [[unlikely]] {
        // Workers that fell idle since the start join in too.
        const std::size_t left = shared.end - std::min(shared.end, shared.next.load(std::memory_order_relaxed));
        if (left / 2 >= chunk) {
          if (std::size_t idle = SchedulerAccess::loop_heartbeat(t))
            return recruit(t, shared, std::min(idle, left / chunk - 1), false, rounds);
        }
      }
    }
  }

  Body& body_;
  const std::size_t grain_;
  std::atomic<bool> cancelled_{false};
};
}  // namespace tempo::detail
