// Guide, part 1: exceptions through a join, pool statistics.
#include <tempo/tempo.hpp>

#include <cstdio>
#include <stdexcept>

int main() {
  tempo::ThreadPool pool;
  try {
    pool.run([](tempo::Task& t) {
      t.join([](tempo::Task&) { return 1; },
             [](tempo::Task&) -> int { throw std::runtime_error("second branch failed"); });
    });
  } catch (const std::runtime_error& e) {
    std::printf("caught: %s\n", e.what());  // both branches have finished by now
  }
  const tempo::Stats s = pool.stats();
  std::printf("heartbeats %llu, promoted %llu, stolen %llu\n", static_cast<unsigned long long>(s.heartbeats),
              static_cast<unsigned long long>(s.promoted), static_cast<unsigned long long>(s.stolen));
}
