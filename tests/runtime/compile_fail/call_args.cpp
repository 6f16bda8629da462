// expect: tempo::Task::call: f must be callable as f(task, args...)
#include <tempo/tempo.hpp>
int g(int x) { return x; }
int f(tempo::Task& t) { return t.call(g, 1); }
