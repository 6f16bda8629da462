#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "helpers.hpp"

namespace tfhe_test {

tempo::ThreadPool& pool() {
  // TEMPO_TFHE_TEST_THREADS (default 2; 0 = every hardware thread) for the big device sweeps.
  static tempo::ThreadPool p(tempo::Options{
      .threads = static_cast<unsigned>(tempo::env_integer("TEMPO_TFHE_TEST_THREADS", 0, 4096).value_or(2))});
  return p;
}

const tempo::tfhe::Keys& keys(const std::string& params, std::uint64_t seed_no) {
  static std::mutex m;
  static std::map<std::pair<std::string, std::uint64_t>, std::unique_ptr<tempo::tfhe::Keys>> cache;
  std::lock_guard<std::mutex> lock(m);
  auto& slot = cache[{params, seed_no}];
  if (!slot) {
    const auto p = tempo::tfhe::Params::preset(params);
    const Seed s = seed(0x6b657973, seed_no);
    slot = std::make_unique<tempo::tfhe::Keys>(
        pool().run([&](tempo::Task& t) { return tempo::tfhe::keygen_deterministic(t, p, s); }));
  }
  return *slot;
}

}  // namespace tfhe_test
