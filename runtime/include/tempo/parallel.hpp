// Parallel loops on the heartbeat runtime.
//
// parallel_for runs the range in chunks on the calling worker and polls the
// heartbeat flag between chunks (never per iteration). The chunk size adapts so
// that a chunk takes a few microseconds: the poll is then noise and a heartbeat
// is answered quickly. When a heartbeat finds an idle worker, the remaining
// range is split in two and the upper half is forked and handed over (lazy
// binary splitting), so uneven work keeps spreading.
//
// parallel_reduce uses a fixed tree of blocks that depends only on the range
// (and grain), not on timing or thread count: every run combines the same
// partial results in the same order, so floating-point results are
// reproducible. Blocks are forks; heartbeats share the oldest.
//
// A body's exception stops the loop: chunks not yet started are abandoned, the
// other workers stop at their next chunk, and the first exception reaches the
// caller after every piece handed out has returned.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <concepts>
#include <ranges>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "tempo/concepts.hpp"
#include "tempo/detail/clock.hpp"
#include "tempo/grain.hpp"
#include "tempo/task.hpp"
#include "tempo/thread_pool.hpp"

namespace tempo {
namespace detail {

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
// a tenth of a heartbeat or more) makes a loop "heavy": see LoopMemory.
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
// call site whose chunks were that long last time is split among the idle
// workers at once; light loops never are, so a short loop still never wakes
// anybody.
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

  // The calling worker's entry: splits a known-heavy loop among the idle
  // workers before its first chunk, and records this call's first chunk.
  void start(Task& t, std::size_t i, std::size_t end) {
    // relaxed: a cost hint; a stale value only changes one split decision.
    const std::uint64_t per_iteration = LoopMemory<Body>::ticks_per_iteration.load(std::memory_order_relaxed);
    if (LoopMemory<Body>::heavy(per_iteration, grain_) && (end - i) / 2 >= grain_) {
      if (std::size_t idle = SchedulerAccess::eager_split_workers(t))
        return split<true>(t, i, end, std::min(idle + 1, (end - i) / grain_));
    }
    run<true>(t, i, end);
  }

  template <bool Record = false>
  void run(Task& t, std::size_t i, std::size_t end) {
    std::size_t chunk = grain_;
    bool record = Record;
    while (i < end) {
      const std::size_t stop = end - i > chunk ? i + chunk : end;
      const std::uint64_t start = cycle_clock();
      run_chunk(t, i, stop);
      const std::uint64_t took = cycle_clock() - start;
      if (record) {
        record = false;
        LoopMemory<Body>::record(took / (stop - i), grain_);
      }
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
  // Record: this worker's own piece measures its first chunk (start()).
  template <bool Record = false>
  [[gnu::noinline]] void split(Task& t, std::size_t i, std::size_t end, std::size_t pieces) {
    const std::size_t mid = end - (end - i) / pieces;
    auto upper = [this, mid, end](Task& w) { run(w, mid, end); };
    Fork<decltype(upper)> fork(t, upper);
    if (pieces > 2 && (mid - i) / 2 >= grain_) {
      split<Record>(t, i, mid, pieces - 1);
    } else {
      SchedulerAccess::share_now(t);
      run<Record>(t, i, mid);
    }
    if (fork.join(t) == nullptr) upper(t);
  }

  Body& body_;
  const std::size_t grain_;
  std::atomic<bool> cancelled_{false};
};

template <class R, class Map, class Combine>
class Reduction {
 public:
  Reduction(const R& identity, Map& map, Combine& combine, std::size_t first, std::size_t last, std::size_t block)
      : identity_(identity), map_(map), combine_(combine), first_(first), last_(last), block_(block) {}

  std::size_t blocks() const noexcept { return ceil_div(last_ - first_, block_); }

  R run(Task& t, std::size_t lo, std::size_t hi) {
    if (hi - lo == 1) return leaf(t, lo);
    const std::size_t mid = lo + (hi - lo) / 2;
    auto [a, b] = t.join([&](Task& w) { return run(w, lo, mid); }, [&](Task& w) { return run(w, mid, hi); });
    return combine_(std::move(a), std::move(b));
  }

 private:
  // Out of line for the same reason as ForLoop::run_chunk: inlined into run(),
  // GCC moved the accumulator between register classes every iteration.
  [[gnu::noinline]] R leaf(Task& t, std::size_t block) {
    R acc = identity_;
    // relaxed: a hint to skip work after an exception elsewhere.
    if (cancelled_.load(std::memory_order_relaxed)) return acc;
    // block < blocks(), so block * block_ < last_ - first_: no overflow; and
    // end is computed from the room left, not as begin + block_.
    const std::size_t begin = first_ + block * block_;
    const std::size_t end = begin + std::min(block_, last_ - begin);
    try {
      for (std::size_t i = begin; i < end; ++i) acc = combine_(std::move(acc), call_body(map_, t, i));
    } catch (...) {
      cancelled_.store(true, std::memory_order_relaxed);
      throw;
    }
    // Not `return acc`: that lets acc become the caller's return slot, which
    // lives in memory and turns the loop's accumulator into a store and reload.
    R result(std::move(acc));
    return result;
  }

  const R& identity_;
  Map& map_;
  Combine& combine_;
  const std::size_t first_, last_, block_;
  std::atomic<bool> cancelled_{false};
};

// Block size of parallel_reduce: at least `grain`, at most 4096 blocks.
inline std::size_t reduce_block(std::size_t n, std::size_t grain) {
  constexpr std::size_t max_blocks = 4096;
  return std::max({grain, std::size_t{1}, ceil_div(n, max_blocks)});
}
template <class>
inline constexpr bool always_false = false;
}  // namespace detail

// body(i) (or body(task, i)) for every i in [first, last). The grain (default
// 1): the smallest chunk run between heartbeat polls and the smallest piece a
// split creates; chunks grow on their own, so a grain is rarely needed.
template <class Body>
void parallel_for(Task& t, std::size_t first, std::size_t last, grain g, Body&& body) {
  static_assert(index_body<Body>,
                "tempo::parallel_for: the body must be callable as body(i) or body(task, i) with a std::size_t i");
  if constexpr (index_body<Body>) {
    detail::check_range("tempo::parallel_for", first, last);
    detail::check_grain("tempo::parallel_for", g.value);
    if (first == last) return;
    detail::ForLoop<std::remove_reference_t<Body>> loop(body, g.value);
    loop.start(t, first, last);
  }
}

template <class Body>
void parallel_for(Task& t, std::size_t first, std::size_t last, Body&& body) {
  parallel_for(t, first, last, grain{1}, std::forward<Body>(body));
}

// The grain as a plain number (the first API's form) is refused: next to
// indices and identities it was too easy to pass in the wrong place.
template <std::integral G, class Body>
void parallel_for(Task&, std::size_t, std::size_t, G, Body&&) {
  static_assert(detail::always_false<G>, "tempo::parallel_for: pass the grain as tempo::grain{n}, not a plain number");
}

// body(x) or body(task, x) for every element x of a random-access range
// (vector, array, span, a view such as std::views::iota(0, n)...).
template <class Range, class Body>
void parallel_for_each(Task& t, Range&& range, grain g, Body&& body) {
  constexpr bool ok_range = std::ranges::random_access_range<Range> && std::ranges::sized_range<Range>;
  static_assert(ok_range, "tempo::parallel_for_each: the range must be random-access and sized (vector, array, span, "
                          "or such a view)");
  if constexpr (ok_range) {
    static_assert(element_body<Body, Range>,
                  "tempo::parallel_for_each: the body must be callable as body(element) or body(task, element)");
    if constexpr (element_body<Body, Range>) {
      auto first = std::ranges::begin(range);
      const auto n = static_cast<std::size_t>(std::ranges::size(range));
      parallel_for(t, 0, n, g, [&](Task& w, std::size_t i) {
        const auto d = static_cast<std::ranges::range_difference_t<Range>>(i);
        if constexpr (std::is_invocable_v<Body&, Task&, std::ranges::range_reference_t<Range>>) body(w, first[d]);
        else body(first[d]);
      });
    }
  }
}

template <class Range, class Body>
void parallel_for_each(Task& t, Range&& range, Body&& body) {
  parallel_for_each(t, std::forward<Range>(range), grain{1}, std::forward<Body>(body));
}

// combine(...combine(combine(identity, map(first)), map(first+1))...) over
// blocks, and the blocks' results combined along a fixed balanced tree.
// `combine` must be associative for the result to equal a serial fold;
// `identity` must be its neutral element. The result type is the common type
// of the identity and map's result (tempo::reduce_result_t): an int identity
// with a double map reduces in double; a combine that would narrow it (a
// lambda taking ints while the reduction is in double) does not compile.
// Grain (default 512): the smallest block; there are at most 4096 blocks.
template <class Identity, class Map, class Combine>
auto parallel_reduce(Task& t, std::size_t first, std::size_t last, grain g, Identity&& identity, Map&& map,
                     Combine&& combine) {
  static_assert(reduce_map<Map>, "tempo::parallel_reduce: map must be callable as map(i) or map(task, i) with a "
                                 "std::size_t i, and return a value");
  if constexpr (reduce_map<Map>) {
    static_assert(reduce_identity<Identity, Map>,
                  "tempo::parallel_reduce: the identity and map(i) have no common type to reduce in");
    if constexpr (reduce_identity<Identity, Map>) {
      using R = reduce_result_t<Identity, Map>;
      static_assert(reduce_combine<Combine, R, map_result_t<Map>>,
                    "tempo::parallel_reduce: combine must be callable as combine(acc, map(i)) and combine(acc, acc) "
                    "and return acc's type without narrowing (acc: the common type of the identity and map(i))");
      if constexpr (reduce_combine<Combine, R, map_result_t<Map>>) {
        detail::check_range("tempo::parallel_reduce", first, last);
        detail::check_grain("tempo::parallel_reduce", g.value);
        R init(std::forward<Identity>(identity));
        if (first == last) return init;
        detail::Reduction<R, std::remove_reference_t<Map>, std::remove_reference_t<Combine>> reduction(
            init, map, combine, first, last, detail::reduce_block(last - first, g.value));
        return reduction.run(t, 0, reduction.blocks());
      }
    }
  }
}

template <class Identity, class Map, class Combine>
auto parallel_reduce(Task& t, std::size_t first, std::size_t last, Identity&& identity, Map&& map,
                     Combine&& combine) {
  return parallel_reduce(t, first, last, grain{512}, std::forward<Identity>(identity), std::forward<Map>(map),
                         std::forward<Combine>(combine));
}

template <std::integral G, class Identity, class Map, class Combine>
void parallel_reduce(Task&, std::size_t, std::size_t, G, Identity&&, Map&&, Combine&&) {
  static_assert(detail::always_false<G>,
                "tempo::parallel_reduce: pass the grain as tempo::grain{n}, not a plain number");
}

template <class Body>
void ThreadPool::parallel_for(std::size_t first, std::size_t last, Body&& body) {
  run([&](Task& t) { tempo::parallel_for(t, first, last, body); });
}

template <class Body>
void ThreadPool::parallel_for(std::size_t first, std::size_t last, grain g, Body&& body) {
  run([&](Task& t) { tempo::parallel_for(t, first, last, g, body); });
}

template <class Identity, class Map, class Combine>
auto ThreadPool::parallel_reduce(std::size_t first, std::size_t last, Identity&& identity, Map&& map,
                                 Combine&& combine) {
  return run([&](Task& t) {
    return tempo::parallel_reduce(t, first, last, std::forward<Identity>(identity), map, combine);
  });
}

template <class Identity, class Map, class Combine>
auto ThreadPool::parallel_reduce(std::size_t first, std::size_t last, grain g, Identity&& identity, Map&& map,
                                 Combine&& combine) {
  return run([&](Task& t) {
    return tempo::parallel_reduce(t, first, last, g, std::forward<Identity>(identity), map, combine);
  });
}

}  // namespace tempo
