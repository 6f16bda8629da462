// expect: tempo::parallel_reduce: map must be callable as map(i) or map(task, i)
#include <tempo/tempo.hpp>
void f(tempo::Task& t) { tempo::parallel_reduce(t, 0, 10, 0, [](std::size_t) {}, std::plus<>()); }
