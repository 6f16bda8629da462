// Forks inside one signature: the tree levels, the tau instances' leaves and VOLEs are
// independent. With a tempo::Task they run as tempo forks, without one (null) serially; the
// results are the same bytes either way.
#pragma once

#include <cstddef>

#include <tempo/tempo.hpp>

namespace tempo::voleith {

template <class F>
void par_for(tempo::Task* t, std::size_t n, F&& f) {
  if (t != nullptr && n > 1) {
    tempo::parallel_for(*t, 0, n, [&](std::size_t i) { f(i); });
  } else {
    for (std::size_t i = 0; i < n; ++i) f(i);
  }
}

}  // namespace tempo::voleith
