// Pool configuration.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace tempo {
namespace detail {
// TEMPO_HEARTBEAT_US when set (a positive integer), else 100 us. Throws
// std::invalid_argument naming the variable when its value is not a number.
std::chrono::nanoseconds default_heartbeat();
}  // namespace detail

struct Options {
  // Worker threads, counting the thread that calls run(). 0 = TEMPO_THREADS when
  // set, else all hardware threads.
  std::size_t threads = 0;
  // How often a busy worker is asked to hand its oldest fork to an idle thread.
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
