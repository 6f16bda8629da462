#include <catch2/catch.hpp>

#include <cstdlib>
#include <memory>
#include <string>

#include "helpers.hpp"

namespace tfhe_test {

tempo::ThreadPool& pool() {
  // TEMPO_TFHE_TEST_THREADS (default 2; 0 = every hardware thread) for the big device sweeps.
  static tempo::ThreadPool p(tempo::Options{.threads = [] {
    const char* v = std::getenv("TEMPO_TFHE_TEST_THREADS");
    return v == nullptr || *v == '\0' ? 2u : static_cast<unsigned>(std::stoul(v));
  }()});
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
        pool().run([&](tempo::Task& t) { return tempo::tfhe::keygen_from_seed(t, p, s); }));
  }
  return *slot;
}

}  // namespace tfhe_test
