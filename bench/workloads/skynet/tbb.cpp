// oneTBB: one task_group per node running its ten children (the reference
// skynet formulation).
#include <tbb/task_group.h>

#include <array>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "skynet.hpp"

namespace {
std::uint64_t skynet(std::uint64_t num, std::uint64_t size) {
  if (size == 1) return num;
  std::array<std::uint64_t, tb::skynet::kDiv> part{};
  const std::uint64_t sub = size / tb::skynet::kDiv;
  tbb::task_group g;
  for (int i = 0; i < tb::skynet::kDiv; ++i) g.run([&part, i, num, sub] { part[i] = skynet(num + i * sub, sub); });
  g.wait();
  std::uint64_t sum = 0;
  for (auto x : part) sum += x;
  return sum;
}

void reg(const tb::Config&) {
  tb::add("skynet/tbb_task_group", [](benchmark::State& s) {
    const int k = tb::config().skynet_leaves_log10;
    const std::uint64_t size = tb::skynet::leaves(k);
    tb::TbbEnv env(tb::threads_of(s));
    for (auto _ : s) {
      auto r = env.run([size] { return skynet(0, size); });
      if (!tb::check(s, r == tb::skynet::expected(k), "skynet sum")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::skynet::tasks(k));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
