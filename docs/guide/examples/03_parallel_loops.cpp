// Guide, part 2: parallel_for, parallel_for_each, parallel_reduce, tempo::grain.
#include <tempo/tempo.hpp>

#include <cstdio>
#include <vector>

int main() {
  tempo::ThreadPool pool;
  std::vector<float> x(1 << 20, 1.0f), y(1 << 20, 2.0f);

  pool.run([&](tempo::Task& t) {
    // body(i) for every i in [0, n): chunks adapt to the body's cost.
    tempo::parallel_for(t, 0, x.size(), [&](std::size_t i) { y[i] = 2.5f * x[i] + y[i]; });

    // The same with a grain: at least 64 iterations between heartbeat polls and per piece.
    tempo::parallel_for(t, 0, x.size(), tempo::grain{64}, [&](std::size_t i) { x[i] *= 0.5f; });

    // Over the elements of a random-access range.
    tempo::parallel_for_each(t, y, [](float& v) { v += 1.0f; });

    // A body taking (task, i) may fork, join or nest loops inside.
    tempo::parallel_for(t, 0, 16, [&](tempo::Task& w, std::size_t row) {
      tempo::parallel_for(w, row * 1024, (row + 1) * 1024, [&](std::size_t i) { x[i] += 1.0f; });
    });
  });

  // A reduction: identity, map(i), combine. The identity's and map's common type is the
  // result type (double here); the block tree is fixed, so the result is reproducible.
  const double total = pool.run([&](tempo::Task& t) {
    return tempo::parallel_reduce(
        t, 0, y.size(), 0.0, [&](std::size_t i) { return double(y[i]); }, [](double a, double b) { return a + b; });
  });

  // The pool has shortcuts that wrap run().
  pool.parallel_for(0, x.size(), [&](std::size_t i) { x[i] = 0.0f; });
  const long squares = pool.parallel_reduce(
      0, 1000, tempo::grain{100}, 0L, [](std::size_t i) { return long(i * i); }, [](long a, long b) { return a + b; });

  // The grain from a variable: parentheses (braces refuse the narrowing from int).
  const int k = 256;
  pool.parallel_for(0, x.size(), tempo::grain(static_cast<std::size_t>(k)), [&](std::size_t i) { x[i] = 1.0f; });

  std::printf("sum %.1f, squares %ld\n", total, squares);
}
