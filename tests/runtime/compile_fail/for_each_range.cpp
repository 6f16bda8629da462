// expect: tempo::parallel_for_each: the range must be random-access and sized
#include <tempo/tempo.hpp>
#include <list>
void f(tempo::Task& t, std::list<int>& l) { tempo::parallel_for_each(t, l, [](int&) {}); }
