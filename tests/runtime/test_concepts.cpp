// The API's requirements as concepts (compile-time checks here; the messages
// of the static_asserts are checked by compile_fail/, see CMakeLists.txt), the
// reduction's result type, and the grain type.
#include <array>
#include <deque>
#include <numeric>
#include <ranges>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace std::chrono_literals;

namespace {
auto task_branch = [](tempo::Task&) { return 1; };
auto no_arg = [] { return 1; };
auto index_map = [](std::size_t i) { return static_cast<double>(i) * 0.5; };
auto task_index_map = [](tempo::Task&, std::size_t i) { return static_cast<long>(i); };
auto void_map = [](std::size_t) {};
auto int_combine = [](int a, int b) { return a + b; };
auto double_combine = [](double a, double b) { return a + b; };
}  // namespace

static_assert(tempo::branch<decltype(task_branch)>);
static_assert(!tempo::branch<decltype(no_arg)>);
static_assert(tempo::index_body<decltype(index_map)>);
static_assert(tempo::index_body<decltype(task_index_map)>);
static_assert(!tempo::index_body<decltype(task_branch)>);
static_assert(tempo::element_body<decltype([](int&) {}), std::vector<int>&>);
static_assert(!tempo::element_body<decltype([](std::string&) {}), std::vector<int>&>);
static_assert(tempo::reduce_map<decltype(index_map)>);
static_assert(!tempo::reduce_map<decltype(void_map)>);

// The result type: the common type of the identity and map(i).
static_assert(std::is_same_v<tempo::reduce_result_t<int, decltype(index_map)>, double>);
static_assert(std::is_same_v<tempo::reduce_result_t<long, decltype([](std::size_t) { return 1; })>, long>);
static_assert(std::is_same_v<tempo::reduce_result_t<double, decltype([](std::size_t) { return 1; })>, double>);
static_assert(std::is_same_v<tempo::reduce_result_t<int, decltype(task_index_map)>, long>);
// A combine that would narrow the accumulator is refused.
static_assert(tempo::reduce_combine<decltype(double_combine), double, double>);
static_assert(!tempo::reduce_combine<decltype(int_combine), double, double>);
static_assert(tempo::reduce_combine<std::plus<>, double, int>);
static_assert(!tempo::reduce_combine<std::plus<>, std::int8_t, std::int8_t>);  // int8 + int8 is an int

// The grain is never an integer in disguise.
static_assert(!std::is_convertible_v<int, tempo::grain>);
static_assert(!std::is_convertible_v<std::size_t, tempo::grain>);
static_assert(tempo::grain{64}.value == 64);

TEST_CASE("parallel_reduce reduces in the common type: an int identity with a double map gives a double", "[concepts]") {
  tempo::ThreadPool pool(test::opts(2));
  auto r = pool.run([](tempo::Task& t) {
    return tempo::parallel_reduce(t, 0, 1000, 0, [](std::size_t i) { return static_cast<double>(i) * 0.5; },
                                  std::plus<>());
  });
  static_assert(std::is_same_v<decltype(r), double>);
  REQUIRE(r == 999.0 * 1000.0 / 4.0);
  // pool.parallel_reduce, with and without a grain
  auto q = pool.parallel_reduce(0, 1000, std::uint64_t{0}, [](std::size_t i) { return std::uint64_t{i}; }, std::plus<>());
  auto g = pool.parallel_reduce(0, 1000, tempo::grain{64}, 0L, [](tempo::Task&, std::size_t i) { return long(i); },
                                std::plus<>());
  REQUIRE(q == 499500u);
  REQUIRE(g == 499500L);
}

TEST_CASE("a grain of 64 is a grain, not an identity", "[concepts]") {
  tempo::ThreadPool pool(test::opts(3));
  const long s = pool.run([](tempo::Task& t) {
    return tempo::parallel_reduce(t, 0, 1000, tempo::grain{64}, 0L, [](std::size_t i) { return long(i); },
                                  std::plus<>());
  });
  REQUIRE(s == 499500L);
  std::vector<int> seen(1000, 0);
  pool.parallel_for(0, seen.size(), tempo::grain{64}, [&](std::size_t i) { seen[i] += 1; });
  REQUIRE(std::count(seen.begin(), seen.end(), 1) == 1000);
}

TEST_CASE("parallel_for_each takes any random-access range", "[concepts]") {
  for (std::size_t threads : {1, 3}) {
    tempo::ThreadPool pool(test::opts(threads, 10us));
    std::vector<int> v(5000, 1);
    std::array<int, 777> a{};
    std::deque<int> d(3000, 2);
    std::vector<std::size_t> marks(2048, 0);
    pool.run([&](tempo::Task& t) {
      tempo::parallel_for_each(t, v, [](int& x) { x += 1; });
      tempo::parallel_for_each(t, a, tempo::grain{8}, [](tempo::Task&, int& x) { x = 7; });
      tempo::parallel_for_each(t, d, [](int& x) { x *= 3; });
      tempo::parallel_for_each(t, std::views::iota(std::size_t{0}, marks.size()), [&](std::size_t i) { marks[i] = i; });
      tempo::parallel_for_each(t, std::span<int>(v).subspan(10, 20), [](int& x) { x = 0; });
    });
    REQUIRE(std::accumulate(v.begin(), v.end(), 0) == 2 * (5000 - 20));
    REQUIRE(std::accumulate(a.begin(), a.end(), 0) == 7 * 777);
    REQUIRE(std::accumulate(d.begin(), d.end(), 0) == 6 * 3000);
    for (std::size_t i = 0; i < marks.size(); ++i) REQUIRE(marks[i] == i);
  }
}

TEST_CASE("join and call accept the callables their concepts describe", "[concepts]") {
  tempo::ThreadPool pool(test::opts(1));
  pool.run([](tempo::Task& t) {
    struct Functor {
      int operator()(tempo::Task&) const { return 3; }
    };
    auto [a, b] = t.join(Functor{}, [](auto&) { return 4; });  // generic lambdas are branches too
    REQUIRE(a + b == 7);
    REQUIRE(t.call([](tempo::Task&, int x, const std::string& s) { return x + static_cast<int>(s.size()); }, 1,
                   std::string("ab")) == 3);
  });
}
