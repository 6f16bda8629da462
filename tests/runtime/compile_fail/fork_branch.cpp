// expect: tempo::Fork: the job must be callable as f(task)
#include <tempo/tempo.hpp>
void f(tempo::Task& t) {
  auto job = [](int) { return 1; };
  tempo::Fork fork(t, job);
}
