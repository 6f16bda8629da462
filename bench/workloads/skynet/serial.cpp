#include "../../common/bench_common.hpp"
#include "skynet.hpp"

namespace {
std::uint64_t skynet(std::uint64_t num, std::uint64_t size) {
  if (size == 1) return num;
  std::uint64_t sum = 0, sub = size / tb::skynet::kDiv;
  for (int i = 0; i < tb::skynet::kDiv; ++i) sum += skynet(num + i * sub, sub);
  return sum;
}

void reg(const tb::Config&) {
  tb::add("skynet/serial", [](benchmark::State& s) {
    const int k = tb::config().skynet_leaves_log10;
    std::uint64_t size = tb::skynet::leaves(k);
    for (auto _ : s) {
      benchmark::DoNotOptimize(size);
      if (!tb::check(s, skynet(0, size) == tb::skynet::expected(k), "skynet sum")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::skynet::tasks(k));
  }, false);
}
TB_REGISTER(reg);
}  // namespace
