// OpenMP: ten tasks and a taskwait per node.
#include <array>

#include "../../common/bench_common.hpp"
#include "../../common/runners.hpp"
#include "skynet.hpp"

namespace {
std::uint64_t skynet(std::uint64_t num, std::uint64_t size) {
  if (size == 1) return num;
  std::array<std::uint64_t, tb::skynet::kDiv> part{};
  const std::uint64_t sub = size / tb::skynet::kDiv;
  for (int i = 0; i < tb::skynet::kDiv; ++i) {
#pragma omp task shared(part) firstprivate(i, num, sub)
    part[i] = skynet(num + i * sub, sub);
  }
#pragma omp taskwait
  std::uint64_t sum = 0;
  for (auto x : part) sum += x;
  return sum;
}

void reg(const tb::Config&) {
  tb::add("skynet/omp_task", [](benchmark::State& s) {
    const int k = tb::config().skynet_leaves_log10;
    const std::uint64_t size = tb::skynet::leaves(k);
    const int th = tb::threads_of(s);
    tb::omp_require_threads(th);
    for (auto _ : s) {
      std::uint64_t r = 0;
      tb::omp_run(th, [&] { r = skynet(0, size); });
      if (!tb::check(s, r == tb::skynet::expected(k), "skynet sum")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::skynet::tasks(k));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
