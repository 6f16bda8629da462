// expect: combine must be callable as combine(acc, map(i)) and combine(acc, acc)
#include <tempo/tempo.hpp>
double f(tempo::Task& t) {
  return tempo::parallel_reduce(t, 0, 1000, 0, [](std::size_t i) { return 0.5 * double(i); },
                                [](int a, int b) { return a + b; });
}
