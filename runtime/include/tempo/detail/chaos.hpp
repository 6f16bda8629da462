// Chaos points: in a TEMPO_CHAOS build (cmake -DTEMPO_CHAOS=ON) every step of
// the protocol (push, pop, promotion, hand-off, wake-up, sleep) may yield or
// sleep a few microseconds at random, so that the stress tests (run under
// ThreadSanitizer by scripts/ci/chaos.sh) see interleavings a quiet machine
// rarely produces. In other builds chaos() is empty and costs nothing.
#pragma once

namespace tempo::detail {
#if defined(TEMPO_CHAOS)
void chaos_step() noexcept;  // runtime/src/chaos.cpp
inline void chaos() noexcept { chaos_step(); }
#else
inline void chaos() noexcept {}
#endif
}  // namespace tempo::detail
