#include <tempo/tempo.hpp>
#include <cstdio>

static long fib(tempo::Task& t, int n) {
  if (n < 2) return n;
  auto [a, b] = t.join([n](tempo::Task& u) { return fib(u, n - 1); }, [n](tempo::Task& u) { return fib(u, n - 2); });
  return a + b;
}

int main() {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  long r = pool.run([](tempo::Task& t) { return fib(t, 20); });
  std::printf("fib(20) = %ld\n", r);
  return r == 6765 ? 0 : 1;
}
