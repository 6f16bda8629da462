#include <array>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace std::chrono_literals;

TEST_CASE("run returns the task's value and runs on the calling thread", "[api]") {
  tempo::ThreadPool pool(test::opts(4));
  auto caller = std::this_thread::get_id();
  std::thread::id ran_on;
  int r = pool.run([&](tempo::Task&) {
    ran_on = std::this_thread::get_id();
    return 42;
  });
  REQUIRE(r == 42);
  REQUIRE(ran_on == caller);
  pool.run([](tempo::Task&) {});  // void
}

TEST_CASE("call passes the task and the arguments", "[api]") {
  tempo::ThreadPool pool(test::opts(2));
  int r = pool.run([](tempo::Task& t) { return t.call([](tempo::Task&, int a, int b) { return a * b; }, 6, 7); });
  REQUIRE(r == 42);
}

TEST_CASE("join returns both results, void as unit, move-only and large values", "[api]") {
  for (std::size_t threads : {1, 2, 4}) {
    tempo::ThreadPool pool(test::opts(threads));
    pool.run([](tempo::Task& t) {
      auto [a, b] = t.join([](tempo::Task&) { return 1; }, [](tempo::Task&) { return std::string("two"); });
      REQUIRE(a == 1);
      REQUIRE(b == "two");
      auto [u, v] = t.join([](tempo::Task&) {}, [](tempo::Task&) {});
      REQUIRE(u == tempo::unit{});
      REQUIRE(v == tempo::unit{});
      auto [p, q] = t.join([](tempo::Task&) { return std::make_unique<int>(5); },
                           [](tempo::Task&) { return std::make_unique<int>(6); });
      REQUIRE(*p + *q == 11);
      auto [big, small] = t.join([](tempo::Task&) {
        std::array<std::uint64_t, 512> squares{};
        for (std::size_t i = 0; i < squares.size(); ++i) squares[i] = i * i;
        return squares;
      }, [](tempo::Task&) { return 'x'; });
      REQUIRE(big[511] == 511u * 511u);
      REQUIRE(small == 'x');
    });
  }
}

TEST_CASE("move-only and large results survive a trip through another thread", "[api]") {
  tempo::ThreadPool pool(test::opts(4));
  // Deep enough that heartbeats promote forks; every result crosses back.
  struct Big {
    std::array<std::uint64_t, 64> words;
  };
  std::function<std::unique_ptr<Big>(tempo::Task&, unsigned)> build = [&](tempo::Task& t, unsigned depth) {
    if (depth == 0) {
      auto leaf = std::make_unique<Big>();
      leaf->words.fill(1);
      return leaf;
    }
    auto [l, r] = t.join([&](tempo::Task& w) { return build(w, depth - 1); },
                         [&](tempo::Task& w) { return build(w, depth - 1); });
    for (std::size_t i = 0; i < l->words.size(); ++i) l->words[i] += r->words[i];
    return std::move(l);
  };
  // Forced across (test hook), then left to the heartbeats.
  auto result = pool.run([&](tempo::Task& t) {
    bool elsewhere = false;
    auto [l, r] = test::join_stolen(t, [&](tempo::Task& w) { return build(w, 12); },
                                    [&](tempo::Task& w) { return build(w, 12); }, elsewhere);
    REQUIRE(elsewhere);
    for (std::size_t i = 0; i < l->words.size(); ++i) l->words[i] += r->words[i];
    return std::move(l);
  });
  REQUIRE(result->words[0] == (1u << 13));
  REQUIRE(result->words[63] == (1u << 13));
  REQUIRE(pool.stats().stolen >= 1);
  auto natural = pool.run([&](tempo::Task& t) { return build(t, 16); });
  REQUIRE(natural->words[7] == (1u << 16));
}

TEST_CASE("the test hook hands a fork to another worker: Fork::join returns its result", "[api]") {
  tempo::ThreadPool pool(test::opts(2, 1s));  // heartbeats too rare to matter: only the hook shares
  pool.run([](tempo::Task& t) {
    std::atomic<bool> started{false};
    const auto owner = std::this_thread::get_id();
    std::thread::id ran_on;
    auto right = [&](tempo::Task& w) {
      ran_on = std::this_thread::get_id();
      started.store(true);
      return test::fib(w, 15);
    };
    tempo::Fork fork(t, right);
    tempo::detail::SchedulerAccess::promote_all(t);
    REQUIRE(test::eventually([&] { return started.load(); }));
    std::uint64_t* taken = fork.join(t);
    REQUIRE(taken != nullptr);
    REQUIRE(*taken == 610);
    REQUIRE(ran_on != owner);
  });
  REQUIRE(pool.stats().stolen >= 1);
}

TEST_CASE("the low-level Fork: join says whether another thread took it", "[api]") {
  tempo::ThreadPool pool(test::opts(1));
  pool.run([](tempo::Task& t) {
    int runs = 0;
    auto right = [&](tempo::Task&) { return ++runs; };
    tempo::Fork fork(t, right);
    int* taken = fork.join(t);
    REQUIRE(taken == nullptr);  // one thread: nobody can take it
    REQUIRE(right(t) == 1);
  });
}

TEST_CASE("exact results for fork trees on 1..8 threads", "[api]") {
  std::mt19937_64 rng(7);
  std::vector<test::Node> nodes;
  nodes.reserve(200000);
  test::Node* root = test::build_tree(nodes, 200000, 0.5, rng);
  const auto expected = test::serial_sum(root);
  for (std::size_t threads = 1; threads <= 8; ++threads) {
    tempo::ThreadPool pool(test::opts(threads, 20us));
    for (int rep = 0; rep < 3; ++rep) REQUIRE(pool.run([&](tempo::Task& t) { return test::tempo_sum(t, root); }) == expected);
    REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 22); }) == test::fib_serial(22));
  }
}

TEST_CASE("tiny work promotes nothing", "[api][stats]") {
  // Work shorter than one heartbeat never leaves the calling thread; a long
  // heartbeat keeps that true even on a loaded machine.
  tempo::ThreadPool pool(test::opts(4, 50ms));
  std::mt19937_64 rng(1);
  std::vector<test::Node> nodes;
  nodes.reserve(1000);
  test::Node* root = test::build_tree(nodes, 1000, 0.5, rng);
  for (int i = 0; i < 200; ++i) REQUIRE(pool.run([&](tempo::Task& t) { return test::tempo_sum(t, root); }) == test::serial_sum(root));
  auto s = pool.stats();
  REQUIRE(s.promoted == 0);
  REQUIRE(s.stolen == 0);
}

TEST_CASE("large work is shared and the stats show it", "[api][stats]") {
  tempo::ThreadPool pool(test::opts(4, 50us));
  // Natural heartbeats, no hook: repeat until a steal shows, against a
  // generous time bound (a loaded machine may delay the idle worker).
  bool stolen = test::eventually([&] {
    REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 27); }) == 196418);
    auto st = pool.stats();
    return st.stolen > 0 && st.wakes > 0;
  });
  REQUIRE(stolen);
  auto s = pool.stats();
  REQUIRE(s.promoted >= s.stolen);
  REQUIRE(s.heartbeats > 0);
  REQUIRE(s.wakes > 0);
}

TEST_CASE("Options: defaults, environment overrides, bad values", "[api][options]") {
  SECTION("defaults") {
    ::unsetenv("TEMPO_THREADS");
    ::unsetenv("TEMPO_HEARTBEAT_US");
    tempo::Options o;
    REQUIRE(o.threads == 0);
    REQUIRE(o.heartbeat == 100us);
    tempo::ThreadPool pool(o);
    REQUIRE(pool.thread_count() == std::max(1u, std::thread::hardware_concurrency()));
  }
  SECTION("environment") {
    ::setenv("TEMPO_THREADS", "3", 1);
    ::setenv("TEMPO_HEARTBEAT_US", "250", 1);
    tempo::ThreadPool pool(tempo::Options{});
    REQUIRE(pool.thread_count() == 3);
    REQUIRE(pool.heartbeat() == 250us);
    tempo::ThreadPool explicit_pool(tempo::Options{.threads = 2, .heartbeat = 1ms});
    REQUIRE(explicit_pool.thread_count() == 2);
    REQUIRE(explicit_pool.heartbeat() == 1ms);
    ::unsetenv("TEMPO_THREADS");
    ::unsetenv("TEMPO_HEARTBEAT_US");
  }
  SECTION("bad values name the problem") {
    ::setenv("TEMPO_THREADS", "lots", 1);
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{}), Catch::Contains("TEMPO_THREADS"));
    ::unsetenv("TEMPO_THREADS");
    ::setenv("TEMPO_HEARTBEAT_US", "-5", 1);
    REQUIRE_THROWS_WITH(tempo::Options{}, Catch::Contains("TEMPO_HEARTBEAT_US"));
    ::unsetenv("TEMPO_HEARTBEAT_US");
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{.threads = 1, .heartbeat = 0us}), Catch::Contains("heartbeat"));
    // Out of bounds: SIZE_MAX threads would allocate until memory ran out, a
    // heartbeat near 2^63 us overflows the clock arithmetic.
    ::setenv("TEMPO_THREADS", "18446744073709551615", 1);
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{}), Catch::Contains("TEMPO_THREADS") && Catch::Contains("4096"));
    ::setenv("TEMPO_THREADS", "4097", 1);
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{}), Catch::Contains("TEMPO_THREADS"));
    ::setenv("TEMPO_THREADS", "0", 1);
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{}), Catch::Contains("TEMPO_THREADS"));
    ::unsetenv("TEMPO_THREADS");
    ::setenv("TEMPO_HEARTBEAT_US", "9223372036854775807", 1);
    REQUIRE_THROWS_WITH(tempo::Options{}, Catch::Contains("TEMPO_HEARTBEAT_US"));
    ::setenv("TEMPO_HEARTBEAT_US", "60000001", 1);
    REQUIRE_THROWS_WITH(tempo::Options{}, Catch::Contains("TEMPO_HEARTBEAT_US"));
    ::setenv("TEMPO_HEARTBEAT_US", "60000000", 1);
    REQUIRE(tempo::Options{}.heartbeat == 60s);
    ::unsetenv("TEMPO_HEARTBEAT_US");
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{.threads = std::size_t(-1)}), Catch::Contains("threads"));
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{.threads = 2, .heartbeat = std::chrono::hours(1)}),
                        Catch::Contains("heartbeat"));
    ::setenv("TEMPO_IDLE_REQUESTS", "maybe", 1);
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{.threads = 2}), Catch::Contains("TEMPO_IDLE_REQUESTS"));
    ::unsetenv("TEMPO_IDLE_REQUESTS");
    ::setenv("TEMPO_AGED_PROMOTION", "2", 1);
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{.threads = 2}), Catch::Contains("TEMPO_AGED_PROMOTION"));
    ::unsetenv("TEMPO_AGED_PROMOTION");
    ::setenv("TEMPO_EAGER_LOOPS", "yes", 1);
    REQUIRE_THROWS_WITH(tempo::ThreadPool(tempo::Options{.threads = 2}), Catch::Contains("TEMPO_EAGER_LOOPS"));
    ::unsetenv("TEMPO_EAGER_LOOPS");
  }
}

TEST_CASE("Signal: set from another thread wakes the waiting task", "[api][signal]") {
  tempo::ThreadPool pool(test::opts(2));
  for (int i = 0; i < 200; ++i) {
    tempo::Signal sig;
    std::atomic<int> payload{0};
    std::thread setter([&] {
      payload.store(i + 1, std::memory_order_relaxed);
      sig.set();
    });
    pool.run([&](tempo::Task& t) { t.wait(sig); });
    REQUIRE(sig.is_set());
    REQUIRE(payload.load(std::memory_order_relaxed) == i + 1);
    setter.join();
  }
  tempo::Signal already;
  already.set();
  pool.run([&](tempo::Task& t) { t.wait(already); });  // returns at once
}

TEST_CASE("a task waiting on a Signal keeps running other work", "[api][signal]") {
  tempo::ThreadPool pool(test::opts(2, 20us));
  // The waiting branch blocks until the other branch (which needs a second
  // worker or the waiter's help) sets the signal: proves no worker is lost.
  for (int i = 0; i < 20; ++i) {
    tempo::Signal sig;
    auto r = pool.run([&](tempo::Task& t) {
      auto [a, b] = t.join(
          [&](tempo::Task& w) {
            auto v = test::fib(w, 20);
            sig.set();
            return v;
          },
          [&](tempo::Task& w) {
            w.wait(sig);
            return 1;
          });
      return a + b;
    });
    REQUIRE(r == 6765 + 1);
  }
}

TEST_CASE("nested run: same pool inline, another pool from inside a task", "[api][nested]") {
  tempo::ThreadPool a(test::opts(3, 20us));
  tempo::ThreadPool b(test::opts(2, 20us));
  auto r = a.run([&](tempo::Task& t) {
    auto [x, y] = t.join([&](tempo::Task&) { return a.run([](tempo::Task& w) { return test::fib(w, 18); }); },
                         [&](tempo::Task&) { return b.run([](tempo::Task& w) { return test::fib(w, 19); }); });
    return x + y;
  });
  REQUIRE(r == 2584 + 4181);
  // b's tasks calling back into a, from b's worker threads.
  auto r2 = b.run([&](tempo::Task& t) {
    return tempo::parallel_reduce(t, 0, 64, std::uint64_t{0}, [&](std::size_t) { return a.run([](tempo::Task& w) { return test::fib(w, 15); }); },
                                  [](std::uint64_t x, std::uint64_t y) { return x + y; });
  });
  REQUIRE(r2 == 64u * 610u);
}

TEST_CASE("join runs a mutable branch on the caller's object", "[api]") {
  tempo::ThreadPool pool(test::opts(1));
  pool.run([](tempo::Task& t) {
    struct Counter {
      int calls = 0;
      int operator()(tempo::Task&) { return ++calls; }
    } counter;
    auto noop = [](tempo::Task&) { return 0; };
    auto [a, b] = t.join(noop, counter);
    REQUIRE(b == 1);
    REQUIRE(counter.calls == 1);
  });
}

TEST_CASE("worker_index and thread_count: the documented ranges", "[api]") {
  tempo::ThreadPool pool(test::opts(3, 10us));
  // Catch's assertions are not thread-safe: workers record, the test thread checks.
  std::atomic<std::size_t> max_index{0};
  std::size_t caller_index = 99, caller_threads = 0;
  pool.run([&](tempo::Task& t) {
    caller_index = t.worker_index();
    caller_threads = t.thread_count();
    tempo::parallel_for(t, 0, 1 << 16, [&](tempo::Task& w, std::size_t) {
      std::size_t seen = max_index.load(std::memory_order_relaxed);
      while (w.worker_index() > seen && !max_index.compare_exchange_weak(seen, w.worker_index())) {
      }
    });
  });
  REQUIRE(max_index.load() < 3);  // one outside caller: every index below thread_count()
  REQUIRE(caller_index == 2);     // an outside caller: thread_count()-1 or above
  REQUIRE(caller_threads == 3);
  // Two outside callers at once get distinct numbers below thread_count() - 1 + 2.
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped[2] = {false, false};
  std::size_t idx[2] = {99, 99};
  std::vector<std::thread> callers;
  for (int c = 0; c < 2; ++c)
    callers.emplace_back([&, c] {
      pool.run([&](tempo::Task& t) {
        idx[c] = t.worker_index();
        inside.fetch_add(1);
        overlapped[c] = test::eventually([&] { return inside.load() == 2; });  // both inside at once
      });
    });
  for (auto& th : callers) th.join();
  REQUIRE(overlapped[0]);
  REQUIRE(overlapped[1]);
  REQUIRE(idx[0] != idx[1]);
  REQUIRE(std::min(idx[0], idx[1]) >= 2);
  REQUIRE(std::max(idx[0], idx[1]) < 4);
}
