// expect: tempo::parallel_for: pass the grain as tempo::grain{n}
#include <tempo/tempo.hpp>
void f(tempo::Task& t) { tempo::parallel_for(t, 0, 10, 4, [](std::size_t) {}); }
