// parallel_reduce's fixed block tree (behind tempo/parallel.hpp).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <utility>

#include "tempo/detail/for_loop.hpp"
#include "tempo/task.hpp"

namespace tempo::detail {
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
}  // namespace tempo::detail
