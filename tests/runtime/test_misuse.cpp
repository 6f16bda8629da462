// Misuse is caught by assertions (debug builds, or TEMPO_ASSERTIONS) with a
// message that names the mistake. The tests swap in a throwing handler.
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "helpers.hpp"

#if !defined(NDEBUG) || defined(TEMPO_ASSERTIONS)
namespace {
struct Misuse : std::logic_error {
  using std::logic_error::logic_error;
};
struct ThrowingHandler {
  tempo::AssertionHandler previous;
  ThrowingHandler()
      : previous(tempo::set_assertion_handler([](const char* message, const char*, int) { throw Misuse(message); })) {}
  ~ThrowingHandler() { tempo::set_assertion_handler(previous); }
};
}  // namespace

TEST_CASE("join without a fork (a second join) is caught", "[misuse]") {
  ThrowingHandler handler;
  tempo::ThreadPool pool(test::opts(1));
  REQUIRE_THROWS_WITH(pool.run([](tempo::Task& t) {
    auto f = [](tempo::Task&) { return 1; };
    tempo::Fork fork(t, f);
    (void)fork.join(t);
    (void)fork.join(t);
  }), Catch::Contains("join called twice"));
}

TEST_CASE("joining forks out of order is caught", "[misuse]") {
  ThrowingHandler handler;
  tempo::ThreadPool pool(test::opts(1));
  REQUIRE_THROWS_WITH(pool.run([](tempo::Task& t) {
    auto f = [](tempo::Task&) { return 1; };
    tempo::Fork first(t, f);
    tempo::Fork second(t, f);
    (void)first.join(t);
  }), Catch::Contains("out of order"));
  REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 10); }) == 55);  // still sound
}

TEST_CASE("a Task used on another thread is caught", "[misuse]") {
  ThrowingHandler handler;
  tempo::ThreadPool pool(test::opts(1));
  std::string message;
  pool.run([&](tempo::Task& t) {
    std::thread other([&] {
      try {
        auto f = [](tempo::Task&) { return 1; };
        tempo::Fork fork(t, f);  // wrong thread
      } catch (const Misuse& e) {
        message = e.what();
      }
    });
    other.join();
  });
  REQUIRE_THAT(message, Catch::Contains("another thread") || Catch::Contains("other than"));
}

TEST_CASE("run on a destroyed pool is caught", "[misuse]") {
  ThrowingHandler handler;
  alignas(tempo::ThreadPool) unsigned char storage[sizeof(tempo::ThreadPool)];
  auto* pool = new (storage) tempo::ThreadPool(test::opts(2));
  pool->~ThreadPool();
  REQUIRE_THROWS_WITH(pool->run([](tempo::Task&) { return 0; }), Catch::Contains("destroyed pool"));
}
#else
TEST_CASE("misuse assertions are compiled out in this build", "[misuse]") {
  SUCCEED("build with -DTEMPO_ASSERTIONS=ON or without NDEBUG to test misuse checks");
}
#endif
