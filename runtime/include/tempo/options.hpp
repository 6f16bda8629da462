// Pool configuration.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace tempo {
// The most threads a pool may have (Options::threads, TEMPO_THREADS): far
// above any machine's core count, low enough that a typo fails at once
// instead of creating threads until memory runs out.
inline constexpr std::size_t max_threads = 4096;

namespace detail {
// TEMPO_HEARTBEAT_US when set (an integer from 1 to 60,000,000), else 100 us.
// Throws std::invalid_argument naming the variable for any other value.
std::chrono::nanoseconds default_heartbeat();
}  // namespace detail

struct Options {
  // Worker threads, counting the thread that calls run(), at most max_threads.
  // 0 = TEMPO_THREADS when set, else all hardware threads.
  std::size_t threads = 0;
  // How often a busy worker is asked to hand its oldest fork to an idle thread:
  // positive, at most 60 s.
  std::chrono::nanoseconds heartbeat = detail::default_heartbeat();
};

// Counters summed over the pool's workers since it was created.
struct Stats {
  std::uint64_t heartbeats = 0;  // heartbeats a worker noticed (the cold path ran)
  std::uint64_t promoted = 0;    // forks handed to the shared queue
  std::uint64_t stolen = 0;      // promoted jobs run by a thread other than their owner
  std::uint64_t sleeps = 0;      // times a worker blocked waiting for work or a join
  std::uint64_t wakes = 0;       // times a sleeping worker was woken
};
}  // namespace tempo
