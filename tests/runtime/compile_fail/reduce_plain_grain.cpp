// expect: tempo::parallel_reduce: pass the grain as tempo::grain{n}
#include <tempo/tempo.hpp>
long f(tempo::Task& t) {
  return tempo::parallel_reduce(t, 0, 1000, 64, 0L, [](std::size_t i) { return long(i); }, std::plus<>());
}
