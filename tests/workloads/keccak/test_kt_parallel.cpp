// Parallel KangarooTwelve (fork/join leaves) == serial KT, for pools of 1..8 threads and
// lengths around the 8 KiB chunk boundaries.
#include <chrono>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/keccak/keccak.hpp>
#include <tempo/tempo.hpp>

#include "vectors.hpp"

namespace tc = tempo::keccak;

TEST_CASE("parallel KT equals serial KT", "[kt-parallel]") {
  const std::size_t C = 8192;
  const std::size_t lengths[] = {0, 1, C - 3, C - 1, C, C + 1, 2 * C - 1, 2 * C, 2 * C + 1, 4 * C, 5 * C + 7,
                                 9 * C, 9 * C + 1, 17 * C + 100, 40 * C + 3};
  const auto big = tempo_keccak_test::ptn(40 * C + 3);
  const auto custom = tempo_keccak_test::ptn(C + 5);  // straddles a chunk boundary on its own
  for (std::size_t threads : {1, 2, 3, 4, 8}) {
    tempo::ThreadPool pool(tempo::Options{.threads = threads, .heartbeat = std::chrono::microseconds{20}});
    for (const std::size_t len : lengths) {
      for (const std::size_t clen : {std::size_t{0}, std::size_t{4}, custom.size()}) {
        const std::span<const std::uint8_t> msg(big.data(), len), cus(custom.data(), clen);
        std::vector<std::uint8_t> s128(48), p128(48), s256(80), p256(80);
        tc::kt128(msg, cus, s128);
        tc::kt256(msg, cus, s256);
        pool.run([&](tempo::Task& t) {
          tc::kt128(t, msg, cus, p128);
          tc::kt256(t, msg, cus, p256);
        });
        INFO("threads " << threads << " len " << len << " custom " << clen);
        REQUIRE(p128 == s128);
        REQUIRE(p256 == s256);
      }
    }
  }
}

TEST_CASE("parallel KT matches an RFC 9861 vector", "[kt-parallel]") {
  // KT128(M=ptn(17^4 bytes), C=empty, 32)
  const auto msg = tempo_keccak_test::ptn(83521);
  std::vector<std::uint8_t> out(32);
  tempo::ThreadPool pool(tempo::Options{.threads = 4});
  pool.run([&](tempo::Task& t) { tc::kt128(t, msg, {}, out); });
  CHECK(tempo_keccak_test::to_hex(out) == "8701045e22205345ff4dda05555cbb5c3af1a771c2b89baef37db43d9998b9fe");
}
