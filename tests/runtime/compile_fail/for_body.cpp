// expect: tempo::parallel_for: the body must be callable as body(i) or body(task, i)
#include <tempo/tempo.hpp>
#include <string>
void f(tempo::Task& t) { tempo::parallel_for(t, 0, 10, [](const std::string&) {}); }
