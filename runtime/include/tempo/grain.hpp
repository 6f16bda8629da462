// tempo::grain: the smallest chunk of a parallel loop, as a type of its own.
#pragma once
#include <cstddef>

namespace tempo {

// Iterations run between two heartbeat polls at least, and the smallest piece
// a split creates:  tempo::parallel_for(t, 0, n, tempo::grain{64}, body).
// A distinct type so that it can never be taken for an index or a reduction's
// identity. From an int variable k write tempo::grain(k) (braces refuse the
// narrowing). Must be at least 1 (checked by the loops).
struct grain {
  std::size_t value;
  constexpr explicit grain(std::size_t v) noexcept : value(v) {}
};

}  // namespace tempo
