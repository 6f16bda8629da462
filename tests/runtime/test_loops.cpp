#include <atomic>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace std::chrono_literals;

TEST_CASE("parallel_for visits every index exactly once", "[loops]") {
  for (std::size_t threads = 1; threads <= 8; ++threads) {
    tempo::ThreadPool pool(test::opts(threads, 10us));
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{1} << 20}) {
      std::vector<std::uint8_t> seen(n, 0);
      pool.parallel_for(0, n, [&](std::size_t i) { seen[i] += 1; });
      REQUIRE(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(n));
      // offset ranges and the grain overload
      std::vector<std::uint8_t> seen2(n + 10, 0);
      pool.run([&](tempo::Task& t) { tempo::parallel_for(t, 10, n + 10, tempo::grain{3}, [&](std::size_t i) { seen2[i] += 1; }); });
      REQUIRE(std::count(seen2.begin(), seen2.end(), 1) == static_cast<std::ptrdiff_t>(n));
    }
  }
}

TEST_CASE("parallel_for: bad ranges and grains are rejected", "[loops]") {
  tempo::ThreadPool pool(test::opts(2));
  pool.run([](tempo::Task& t) {
    REQUIRE_THROWS_WITH(tempo::parallel_for(t, 5, 4, [](std::size_t) {}), Catch::Contains("first > last"));
    REQUIRE_THROWS_WITH(tempo::parallel_for(t, 0, 4, tempo::grain{0}, [](std::size_t) {}), Catch::Contains("grain"));
    REQUIRE_THROWS_WITH(tempo::parallel_reduce(t, 9, 1, 0, [](std::size_t) { return 1; }, std::plus<>()),
                        Catch::Contains("first > last"));
  });
}

TEST_CASE("parallel_for_each over a span, uneven bodies", "[loops]") {
  for (std::size_t threads : {1, 2, 4, 8}) {
    tempo::ThreadPool pool(test::opts(threads, 10us));
    std::vector<std::uint64_t> v(30001);
    std::iota(v.begin(), v.end(), 0);
    pool.run([&](tempo::Task& t) {
      tempo::parallel_for_each(t, std::span<std::uint64_t>(v), [](std::uint64_t& x) {
        std::uint64_t h = x;
        int rounds = (x % 97 == 0) ? 20000 : 1;  // a few very heavy elements
        for (int r = 0; r < rounds; ++r) h = h * 6364136223846793005ull + 1442695040888963407ull;
        x = x * 2 + (h & 0);  // h only burns time
      });
    });
    for (std::size_t i = 0; i < v.size(); ++i) REQUIRE(v[i] == 2 * i);
  }
}

TEST_CASE("parallel_reduce equals std::accumulate on random inputs", "[loops][property]") {
  std::mt19937_64 rng(31337);
  for (int trial = 0; trial < 40; ++trial) {
    std::size_t n = rng() % 200000;
    std::vector<std::int64_t> data(n);
    for (auto& x : data) x = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
    std::size_t threads = 1 + rng() % 8;
    tempo::ThreadPool pool(test::opts(threads, 10us));
    auto r = pool.run([&](tempo::Task& t) {
      return tempo::parallel_reduce(t, 0, n, std::int64_t{0}, [&](std::size_t i) { return data[i]; },
                                    [](std::int64_t a, std::int64_t b) { return a + b; });
    });
    REQUIRE(r == std::accumulate(data.begin(), data.end(), std::int64_t{0}));
  }
}

TEST_CASE("parallel_reduce: floating-point sums are reproducible", "[loops]") {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> data(3000017);
  for (auto& x : data) x = dist(rng) * 1e3f;
  auto sum = [&](std::size_t threads) {
    tempo::ThreadPool pool(test::opts(threads, 5us));
    return pool.run([&](tempo::Task& t) {
      return tempo::parallel_reduce(t, 0, data.size(), 0.0f, [&](std::size_t i) { return data[i]; },
                                    [](float a, float b) { return a + b; });
    });
  };
  const float reference = sum(1);
  for (std::size_t threads : {1, 2, 3, 8})
    for (int rep = 0; rep < 3; ++rep) REQUIRE(sum(threads) == reference);  // bitwise: same blocks, same tree
}

TEST_CASE("nested loops, loops inside joins, joins inside loop bodies", "[loops]") {
  tempo::ThreadPool pool(test::opts(4, 10us));
  constexpr std::size_t rows = 300, cols = 200;
  std::vector<std::uint32_t> grid(rows * cols, 0);
  pool.run([&](tempo::Task& t) {
    tempo::parallel_for(t, 0, rows, [&](tempo::Task& w, std::size_t r) {
      tempo::parallel_for(w, 0, cols, [&](std::size_t c) { grid[r * cols + c] += static_cast<std::uint32_t>(r + c); });
    });
  });
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) REQUIRE(grid[r * cols + c] == r + c);

  auto [fibs, total] = pool.run([&](tempo::Task& t) {
    return t.join(
        [](tempo::Task& w) {
          std::vector<std::uint64_t> f(25);
          tempo::parallel_for(w, 0, f.size(), [&](tempo::Task& x, std::size_t i) { f[i] = test::fib(x, static_cast<unsigned>(i)); });
          return f;
        },
        [](tempo::Task& w) {
          return tempo::parallel_reduce(w, 0, 1000, std::uint64_t{0}, [](std::size_t i) { return std::uint64_t{i}; },
                                        std::plus<>());
        });
  });
  for (unsigned i = 0; i < fibs.size(); ++i) REQUIRE(fibs[i] == test::fib_serial(i));
  REQUIRE(total == 999u * 1000u / 2u);
}

TEST_CASE("a body's exception stops the loop and reaches the caller", "[loops][exceptions]") {
  for (std::size_t threads : {1, 2, 4, 8}) {
    tempo::ThreadPool pool(test::opts(threads, 5us));
    for (int rep = 0; rep < 10; ++rep) {
      std::atomic<std::size_t> done{0};
      const std::size_t bad = 1000 + static_cast<std::size_t>(rep) * 7919 % 100000;
      REQUIRE_THROWS_WITH(pool.parallel_for(0, 200000, [&](std::size_t i) {
        if (i == bad) throw std::runtime_error("index " + std::to_string(i));
        done.fetch_add(1, std::memory_order_relaxed);
      }), "index " + std::to_string(bad));
      REQUIRE(done.load() < 200000);  // the rest was abandoned, not half-run
      REQUIRE_THROWS_WITH(pool.run([&](tempo::Task& t) {
        return tempo::parallel_reduce(t, 0, 100000, 0, [&](std::size_t i) -> int {
          if (i == bad) throw std::runtime_error("map failed");
          return 1;
        }, std::plus<>());
      }), "map failed");
    }
    REQUIRE(pool.run([](tempo::Task& t) { return test::fib(t, 15); }) == 610);
  }
}

TEST_CASE("block arithmetic at the extremes: grain 1 and SIZE_MAX, ranges ending at SIZE_MAX", "[loops]") {
  constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
  REQUIRE(tempo::detail::ceil_div(max, 1) == max);
  REQUIRE(tempo::detail::ceil_div(max, max) == 1);
  REQUIRE(tempo::detail::ceil_div(max, 2) == max / 2 + 1);
  REQUIRE(tempo::detail::ceil_div(max - 1, max) == 1);
  REQUIRE(tempo::detail::reduce_block(max, 1) == max / 4096 + 1);
  REQUIRE(tempo::detail::reduce_block(max, max) == max);
  REQUIRE(tempo::detail::reduce_block(10, 1) == 1);

  tempo::ThreadPool pool(test::opts(3, 10us));
  const std::size_t n = 5000;
  for (std::size_t first : {std::size_t{0}, max - n}) {
    for (std::size_t g : {std::size_t{1}, std::size_t{7}, std::size_t{4096}, max / 2, max / 2 + 1, max - 1, max}) {
      CAPTURE(first, g);
      const std::size_t sum = pool.parallel_reduce(first, first + n, tempo::grain(g), std::size_t{0},
                                                   [first](std::size_t i) { return i - first; }, std::plus<>());
      REQUIRE(sum == n * (n - 1) / 2);
      std::vector<std::uint8_t> seen(n, 0);
      pool.parallel_for(first, first + n, tempo::grain(g), [&](std::size_t i) { seen[i - first] += 1; });
      REQUIRE(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(n));
    }
  }
  // The very last indices, and empty ranges at the top.
  REQUIRE(pool.parallel_reduce(max - 1, max, tempo::grain(max), std::size_t{0}, [](std::size_t i) { return i; },
                               std::plus<>()) == max - 1);
  REQUIRE(pool.parallel_reduce(max, max, 5, [](std::size_t) { return 1; }, std::plus<>()) == 5);
  std::atomic<bool> ran{false};
  pool.parallel_for(max, max, [&](std::size_t) { ran = true; });
  REQUIRE_FALSE(ran.load());
}

TEST_CASE("a call site known to be heavy is split among idle workers at once", "[loops]") {
  // A 50 ms heartbeat: in these short loops only the entry split can share.
  ::unsetenv("TEMPO_EAGER_LOOPS");
  for (std::size_t threads : {1, 2, 4, 8}) {
    tempo::ThreadPool pool(test::opts(threads, 50ms));
    std::vector<std::uint8_t> seen;
    std::size_t bad = std::numeric_limits<std::size_t>::max();
    auto body = [&](std::size_t i) {
      if (i == bad) throw std::runtime_error("index " + std::to_string(i));
      seen[i] += 1;
    };
    using Memory = tempo::detail::LoopMemory<decltype(body)>;
    auto force_heavy = [] { Memory::ticks_per_iteration.store(std::uint64_t{1} << 40); };
    for (std::size_t n : {2, 3, 17, 1000})
      for (std::size_t g : {1, 3, 1000}) {
        seen.assign(n, 0);
        force_heavy();
        pool.run([&](tempo::Task& t) { tempo::parallel_for(t, 0, n, tempo::grain{g}, body); });
        REQUIRE(std::count(seen.begin(), seen.end(), 1) == static_cast<std::ptrdiff_t>(n));
        // (The call's own measurement replaced the forced record; what it says
        // depends on timing, so it is not asserted.)
      }
    // A range ending at SIZE_MAX, huge grains, and bodies that fork, all on the shared counter.
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    std::atomic<std::size_t> count{0}, sum{0};
    auto edge = [&](tempo::Task& w, std::size_t i) {
      auto [a, b] = w.join([&](tempo::Task& w2) { return test::fib(w2, 12); }, [i](tempo::Task&) { return max - i; });
      count.fetch_add(1);
      sum.fetch_add(b + static_cast<std::size_t>(a) - 144);
    };
    using EdgeMemory = tempo::detail::LoopMemory<decltype(edge)>;
    for (std::size_t g : {std::size_t{1}, std::size_t{7}, max / 2, max}) {
      count = 0;
      sum = 0;
      EdgeMemory::ticks_per_iteration.store(std::uint64_t{1} << 40);
      pool.run([&](tempo::Task& t) { tempo::parallel_for(t, max - 100, max, tempo::grain{g}, edge); });
      REQUIRE(count.load() == 100);
      REQUIRE(sum.load() == 100 * 101 / 2);  // max - i for i in [max-100, max): 100 + 99 + ... + 1
    }
    seen.assign(1000, 0);
    bad = 777;
    force_heavy();
    REQUIRE_THROWS_WITH(pool.parallel_for(0, 1000, body), "index 777");
    bad = std::numeric_limits<std::size_t>::max();
    if (threads > 1) {
      // The heavy start hands its helpers to the shared queue (promotions),
      // which the 50 ms heartbeat could not have done in so short a loop.
      REQUIRE(test::eventually([&] {
        seen.assign(64, 0);
        force_heavy();
        pool.parallel_for(0, 64, body);
        return pool.stats().promoted > 0;
      }));
      REQUIRE(std::count(seen.begin(), seen.end(), 1) == 64);
    }
  }
}

TEST_CASE("TEMPO_EAGER_LOOPS=0: a heavy call site runs like any other loop", "[loops]") {
  ::setenv("TEMPO_EAGER_LOOPS", "0", 1);
  tempo::ThreadPool pool(test::opts(4, 20us));
  ::unsetenv("TEMPO_EAGER_LOOPS");
  std::vector<std::uint8_t> seen(5000, 0);
  auto body = [&](std::size_t i) { seen[i] += 1; };
  for (int rep = 0; rep < 20; ++rep) {
    std::fill(seen.begin(), seen.end(), 0);
    tempo::detail::LoopMemory<decltype(body)>::ticks_per_iteration.store(std::uint64_t{1} << 40);
    pool.parallel_for(0, seen.size(), body);
    REQUIRE(std::count(seen.begin(), seen.end(), 1) == 5000);
  }
}

TEST_CASE("a light call site turns heavy only after two heavy measurements", "[loops]") {
  struct Site {};
  using Memory = tempo::detail::LoopMemory<Site>;
  const std::uint64_t heavy = tempo::detail::heavy_chunk_ticks;
  Memory::record(10, 1);
  REQUIRE(!Memory::heavy(Memory::ticks_per_iteration.load(), 1));
  Memory::record(heavy * 3, 1);  // one preempted chunk
  REQUIRE(!Memory::heavy(Memory::ticks_per_iteration.load(), 1));
  Memory::record(heavy * 3, 1);
  REQUIRE(Memory::heavy(Memory::ticks_per_iteration.load(), 1));
  Memory::record(5, 1);
  REQUIRE(!Memory::heavy(Memory::ticks_per_iteration.load(), 1));
  // Grains: the threshold is per chunk (grain iterations), never overflowing.
  REQUIRE(Memory::heavy(heavy / 4, 4));
  REQUIRE(!Memory::heavy(heavy / 8, 4));
  REQUIRE(Memory::heavy(1, std::numeric_limits<std::size_t>::max()));
  REQUIRE(!Memory::heavy(0, std::numeric_limits<std::size_t>::max()));
}
