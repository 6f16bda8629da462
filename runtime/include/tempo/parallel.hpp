// Parallel loops on the heartbeat runtime.
//
// parallel_for runs the range in chunks on the calling worker and polls the
// heartbeat flag between chunks (never per iteration). The chunk size adapts so
// that a chunk takes a few microseconds: the poll is then noise and a heartbeat
// is answered quickly. When a heartbeat finds an idle worker, the remaining
// range is split in two and the upper half is forked and handed over (lazy
// binary splitting), so uneven work keeps spreading. A call site whose chunks
// took over ~50 us last time instead runs as a dynamic schedule shared with
// the pool's other workers from the start (detail/for_loop.hpp, LoopMemory).
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
#include "tempo/detail/for_loop.hpp"
#include "tempo/detail/reduction.hpp"
#include "tempo/grain.hpp"
#include "tempo/task.hpp"
#include "tempo/thread_pool.hpp"

namespace tempo {
namespace detail {
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
