// Randomized stress: tree shapes, concurrent callers, pool churn. Exact results.
#include <algorithm>
#include <atomic>
#include <thread>

#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace std::chrono_literals;

TEST_CASE("deep, wide and unbalanced trees give exact sums", "[stress]") {
  std::mt19937_64 rng(2024);
  for (double skew : {0.5, 0.8, 0.97, 0.03}) {
    std::vector<test::Node> nodes;
    const std::size_t n = skew == 0.5 ? 300000 : 20000;  // skewed trees are deep: keep the stack small
    nodes.reserve(n);
    test::Node* root = test::build_tree(nodes, n, skew, rng);
    const auto expected = test::serial_sum(root);
    for (std::size_t threads : {1, 3, 8}) {
      tempo::ThreadPool pool(test::opts(threads, 10us));
      for (int rep = 0; rep < 3; ++rep)
        REQUIRE(pool.run([&](tempo::Task& t) { return test::tempo_sum(t, root); }) == expected);
    }
  }
}

TEST_CASE("many OS threads call run on one pool at once", "[stress]") {
  tempo::ThreadPool pool(test::opts(4, 10us));
  constexpr int callers = 8;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < callers; ++c) {
    threads.emplace_back([&, c] {
      for (int i = 0; i < 20; ++i) {
        unsigned n = 12 + static_cast<unsigned>((c + i) % 8);
        if (pool.run([n](tempo::Task& t) { return test::fib(t, n); }) != test::fib_serial(n)) failures.fetch_add(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(failures.load() == 0);
}

TEST_CASE("pools created and destroyed in a loop", "[stress]") {
  for (int i = 0; i < 60; ++i) {
    tempo::ThreadPool pool(test::opts(1 + i % 6, std::chrono::microseconds(5 + i % 50)));
    if (i % 3 != 0) REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 16); }) == 987);
    // i % 3 == 0: destroyed without ever running
  }
}

TEST_CASE("nested joins with random fan-out and random work", "[stress]") {
  std::mt19937_64 seed_rng(5);
  tempo::ThreadPool pool(test::opts(6, 5us));
  // Each call splits into 0..3 children with random work; the result is a hash
  // of the whole computation, compared with the same recursion run serially.
  std::function<std::uint64_t(tempo::Task*, std::uint64_t, int)> walk = [&](tempo::Task* t, std::uint64_t s, int depth) {
    std::uint64_t h = s * 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < static_cast<int>(s % 64); ++i) h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
    if (depth == 0) return h;
    int kids = static_cast<int>((s >> 7) % 4);
    if (kids == 0) return h;
    if (t == nullptr) {
      std::uint64_t r = 0;
      for (int k = 0; k < kids; ++k) r += walk(nullptr, h + k, depth - 1);
      return h + r;
    }
    if (kids == 1) return h + walk(t, h, depth - 1);
    auto [a, b] = t->join([&](tempo::Task& w) { return walk(&w, h, depth - 1); },
                          [&](tempo::Task& w) {
                            std::uint64_t r = walk(&w, h + 1, depth - 1);
                            if (kids == 3) r += walk(&w, h + 2, depth - 1);
                            return r;
                          });
    return h + a + b;
  };
  for (int rep = 0; rep < 20; ++rep) {
    std::uint64_t s = seed_rng();
    REQUIRE(pool.run([&](tempo::Task& t) { return walk(&t, s, 14); }) == walk(nullptr, s, 14));
  }
}

TEST_CASE("every promotion setting (aged or not, idle requests or not): exact results, big work still shared",
          "[stress]") {
  const char* aged = GENERATE("0", "1");
  const char* idle = GENERATE("0", "1");
  INFO("TEMPO_AGED_PROMOTION=" << aged << " TEMPO_IDLE_REQUESTS=" << idle);
  ::setenv("TEMPO_AGED_PROMOTION", aged, 1);
  ::setenv("TEMPO_IDLE_REQUESTS", idle, 1);
  tempo::ThreadPool pool(test::opts(4, 10us));
  ::unsetenv("TEMPO_AGED_PROMOTION");
  ::unsetenv("TEMPO_IDLE_REQUESTS");
  std::mt19937_64 rng(77);
  for (double skew : {0.5, 0.9}) {
    std::vector<test::Node> nodes;
    nodes.reserve(100000);
    test::Node* root = test::build_tree(nodes, 100000, skew, rng);
    for (int rep = 0; rep < 5; ++rep)
      REQUIRE(pool.run([&](tempo::Task& t) { return test::tempo_sum(t, root); }) == test::serial_sum(root));
  }
  // Loops split at once (their pieces are never aged), every index runs once.
  std::vector<std::uint8_t> seen(1 << 18, 0);
  pool.parallel_for(0, seen.size(), [&](std::size_t i) { seen[i] += 1; });
  REQUIRE(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(seen.size()));
  // Work that lasts many heartbeats is shared in the end (a generous bound, not a count of tries).
  REQUIRE(test::eventually([&] {
    REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 25); }) == 75025);
    return pool.stats().stolen > 0;
  }));
}
