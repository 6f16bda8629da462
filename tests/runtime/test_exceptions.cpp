#include <atomic>
#include <stdexcept>
#include <string>

#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace std::chrono_literals;

namespace {
struct Boom : std::runtime_error {
  using std::runtime_error::runtime_error;
};
}  // namespace

TEST_CASE("fa throws: fb still runs, fa's exception reaches run's caller", "[exceptions]") {
  tempo::ThreadPool pool(test::opts(2));
  std::atomic<int> b_ran{0};
  REQUIRE_THROWS_AS(pool.run([&](tempo::Task& t) {
    t.join([](tempo::Task&) -> int { throw Boom("a"); }, [&](tempo::Task&) { return ++b_ran; });
  }), Boom);
  REQUIRE(b_ran == 1);
  REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 15); }) == 610);  // still usable
}

TEST_CASE("fb throws: its exception propagates after fa completed", "[exceptions]") {
  tempo::ThreadPool pool(test::opts(2));
  int a_done = 0;
  REQUIRE_THROWS_WITH(pool.run([&](tempo::Task& t) {
    t.join([&](tempo::Task&) { a_done = 1; }, [](tempo::Task&) { throw Boom("from b"); });
  }), "from b");
  REQUIRE(a_done == 1);
}

TEST_CASE("both throw: fa's exception wins, fb's is discarded", "[exceptions]") {
  tempo::ThreadPool pool(test::opts(2));
  REQUIRE_THROWS_WITH(pool.run([&](tempo::Task& t) {
    t.join([](tempo::Task&) { throw Boom("first"); }, [](tempo::Task&) { throw Boom("second"); });
  }), "first");
}

// Every leaf may throw; a thrown exception must surface exactly once per run,
// only after every branch that started has finished (counted by `live`).
static std::int64_t throwing_sum(tempo::Task& t, const test::Node* n, std::int64_t bad, std::atomic<int>& live) {
  if (n == nullptr) return 0;
  live.fetch_add(1);
  struct Leave {
    std::atomic<int>& live;
    ~Leave() { live.fetch_sub(1); }
  } leave{live};
  if (n->value == bad) throw Boom("bad node " + std::to_string(bad));
  auto [a, b] = t.join([&](tempo::Task& w) { return throwing_sum(w, n->left, bad, live); },
                       [&](tempo::Task& w) { return throwing_sum(w, n->right, bad, live); });
  return n->value + a + b;
}

TEST_CASE("random exceptions on any thread: caught once, nothing left running, pool reusable", "[exceptions][stress]") {
  std::mt19937_64 rng(99);
  std::vector<test::Node> nodes;
  nodes.reserve(50000);
  test::Node* root = test::build_tree(nodes, 50000, 0.5, rng);
  for (std::size_t threads : {2, 4, 8}) {
    tempo::ThreadPool pool(test::opts(threads, 10us));
    for (int rep = 0; rep < 30; ++rep) {
      std::int64_t bad = static_cast<std::int64_t>(rng() % 2000);  // values are < 1000: about half the runs succeed
      std::atomic<int> live{0};
      try {
        auto s = pool.run([&](tempo::Task& t) { return throwing_sum(t, root, bad, live); });
        REQUIRE(bad >= 1000);
        REQUIRE(s == test::serial_sum(root));
      } catch (const Boom& e) {
        REQUIRE(std::string(e.what()) == "bad node " + std::to_string(bad));
      }
      REQUIRE(live.load() == 0);
    }
    REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 20); }) == 6765);
  }
}

TEST_CASE("an exception thrown on a thief reaches the owner's join", "[exceptions]") {
  tempo::ThreadPool pool(test::opts(2, 1s));  // only the test hook shares
  for (int rep = 0; rep < 20; ++rep) {
    std::thread::id thrown_on;
    bool elsewhere = false;
    REQUIRE_THROWS_WITH(pool.run([&](tempo::Task& t) {
      test::join_stolen(t, [](tempo::Task& w) { return test::fib(w, 12); },
                        [&](tempo::Task& w) -> std::uint64_t {
                          test::fib(w, 12);
                          thrown_on = std::this_thread::get_id();
                          throw Boom("remote");
                        }, elsewhere);
    }), "remote");
    REQUIRE(thrown_on != std::this_thread::get_id());
  }
  REQUIRE(pool.stats().stolen >= 20);
  REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 15); }) == 610);
}

TEST_CASE("the low-level Fork cleans up when an exception passes it", "[exceptions]") {
  tempo::ThreadPool pool(test::opts(2, 20us));
  for (int i = 0; i < 50; ++i) {
    std::atomic<int> right_runs{0};
    REQUIRE_THROWS_AS(pool.run([&](tempo::Task& t) {
      auto right = [&](tempo::Task& w) {
        right_runs.fetch_add(1);
        return test::fib(w, 18);
      };
      tempo::Fork fork(t, right);
      test::fib(t, 20);  // gives a heartbeat the chance to hand `right` away
      throw Boom("escape");
    }), Boom);
    REQUIRE(right_runs.load() <= 1);  // dropped if still queued, finished if taken
  }
}
