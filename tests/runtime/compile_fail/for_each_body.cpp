// expect: tempo::parallel_for_each: the body must be callable as body(element) or body(task, element)
#include <tempo/tempo.hpp>
#include <string>
#include <vector>
void f(tempo::Task& t, std::vector<int>& v) { tempo::parallel_for_each(t, v, [](std::string&) {}); }
