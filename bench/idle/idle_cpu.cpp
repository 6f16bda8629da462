// Idle-pool cost: CPU time the whole process burns while a pool of N threads
// sits idle (after some work, so every thread has started and slept).
// Prints JSON: {"threads":N,"seconds":S,"cpu_seconds":C,"percent_of_a_core":P}
#include <tempo/tempo.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

static double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

static std::uint64_t fib(tempo::Task& t, unsigned n) {
  if (n < 2) return n;
  auto [a, b] = t.join([n](tempo::Task& t) { return fib(t, n - 1); }, [n](tempo::Task& t) { return fib(t, n - 2); });
  return a + b;
}

int main(int argc, char** argv) {
  std::size_t threads = argc > 1 ? std::stoul(argv[1]) : std::thread::hardware_concurrency();
  double seconds = argc > 2 ? std::stod(argv[2]) : 5.0;
  tempo::ThreadPool pool(tempo::Options{.threads = threads});
  if (pool.run([](tempo::Task& t) { return fib(t, 30); }) != 832040) return 1;  // wakes every worker
  std::this_thread::sleep_for(std::chrono::milliseconds(50));                 // let them park
  const double c0 = cpu_seconds();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  const double used = cpu_seconds() - c0;
  std::printf("{\"threads\":%zu,\"seconds\":%.1f,\"cpu_seconds\":%.6f,\"percent_of_a_core\":%.4f}\n", threads, seconds,
              used, 100.0 * used / seconds);
  return 0;
}
