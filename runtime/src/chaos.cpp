// The random delays of a TEMPO_CHAOS build (see tempo/detail/chaos.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

#include "tempo/detail/chaos.hpp"

namespace tempo::detail {
#if defined(TEMPO_CHAOS)
void chaos_step() noexcept {
  // xorshift64 per thread, seeded from the thread id: no shared state, so the
  // chaos itself adds no synchronisation that could hide a race.
  thread_local std::uint64_t state =
      std::hash<std::thread::id>{}(std::this_thread::get_id()) * 0x9E3779B97F4A7C15ull | 1;
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  const std::uint64_t r = state % 1024;
  if (r < 64) {
    std::this_thread::yield();  // 1 in 16
  } else if (r < 68) {          // 1 in 256: a short sleep, long enough for a heartbeat to pass
    std::this_thread::sleep_for(std::chrono::microseconds(1 + (state >> 10) % 50));
  }
}
#endif
}  // namespace tempo::detail
