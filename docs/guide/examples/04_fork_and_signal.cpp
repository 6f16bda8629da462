// Guide, part 1 (advanced): the low-level Fork, and waiting for another thread with a Signal.
#include <tempo/tempo.hpp>

#include <cstdio>
#include <thread>

long work(tempo::Task&, long n) { return n * n; }

int main() {
  tempo::ThreadPool pool;
  const long r = pool.run([](tempo::Task& t) {
    auto right = [](tempo::Task& w) { return work(w, 3); };
    tempo::Fork fork(t, right);       // queued in this frame; an idle worker may take it
    const long a = work(t, 2);
    if (auto* b = fork.join(t)) return a + *b;  // another thread ran it
    return a + right(t);                         // nobody took it: run it here
  });

  tempo::Signal done;
  std::thread io([&] { done.set(); });  // e.g. an I/O thread or a CUDA callback
  pool.run([&](tempo::Task& t) { t.wait(done); });  // runs other tempo work meanwhile
  io.join();
  std::printf("%ld\n", r);
}
