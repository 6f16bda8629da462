// expect: tempo::Task::join: the first branch must be callable as f(task) with a tempo::Task&
#include <tempo/tempo.hpp>
int f(tempo::Task& t) {
  auto [a, b] = t.join([] { return 1; }, [](tempo::Task&) { return 2; });
  return a + b;
}
