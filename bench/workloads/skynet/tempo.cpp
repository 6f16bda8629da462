// tempo: the ten children are split in halves with join (5+5, then 2+3 ...).
#include <tempo/tempo.hpp>

#include "../../common/bench_common.hpp"
#include "skynet.hpp"

namespace {
std::uint64_t skynet(tempo::Task& t, std::uint64_t num, std::uint64_t size);

std::uint64_t range(tempo::Task& t, std::uint64_t num, std::uint64_t sub, int lo, int hi) {
  if (hi - lo == 1) return t.call(skynet, num + lo * sub, sub);
  int mid = (lo + hi) / 2;
  auto [a, b] = t.join([=](tempo::Task& t) { return range(t, num, sub, lo, mid); },
                       [=](tempo::Task& t) { return range(t, num, sub, mid, hi); });
  return a + b;
}

std::uint64_t skynet(tempo::Task& t, std::uint64_t num, std::uint64_t size) {
  if (size == 1) return num;
  return range(t, num, size / tb::skynet::kDiv, 0, tb::skynet::kDiv);
}

void reg(const tb::Config&) {
  tb::add("skynet/tempo", [](benchmark::State& s) {
    const int k = tb::config().skynet_leaves_log10;
    const std::uint64_t size = tb::skynet::leaves(k);
    tempo::ThreadPool pool(tempo::Options{.threads = static_cast<std::size_t>(tb::threads_of(s))});
    for (auto _ : s) {
      auto r = pool.run([size](tempo::Task& t) { return skynet(t, 0, size); });
      if (!tb::check(s, r == tb::skynet::expected(k), "skynet sum")) break;
    }
    tb::ns_per(s, "ns_per_task", tb::skynet::tasks(k));
  }, true);
}
TB_REGISTER(reg);
}  // namespace
