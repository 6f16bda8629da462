// The incremental sponge over random absorb/squeeze splits equals the one-shot output.
#include <random>
#include <stdexcept>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/keccak/keccak.hpp>

#include "vectors.hpp"

namespace tc = tempo::keccak;

TEST_CASE("incremental absorb/squeeze over random splits equals one-shot", "[incremental]") {
  std::mt19937_64 rng(2024);
  const tc::Algorithm algs[] = {tc::Algorithm::sha3_224, tc::Algorithm::sha3_256, tc::Algorithm::sha3_384,
                                tc::Algorithm::sha3_512, tc::Algorithm::shake128, tc::Algorithm::shake256,
                                tc::Algorithm::turboshake128, tc::Algorithm::turboshake256};
  for (const tc::Algorithm a : algs) {
    const std::size_t rate = tc::rate_bytes(a);
    for (int trial = 0; trial < 40; ++trial) {
      const std::size_t len = std::uniform_int_distribution<std::size_t>(0, 5 * rate + 3)(rng);
      const std::size_t out_len = tc::is_xof(a) ? std::uniform_int_distribution<std::size_t>(0, 3 * rate + 5)(rng)
                                                : tc::fixed_digest_bytes(a);
      const auto msg = tempo_keccak_test::ptn(len);
      std::vector<std::uint8_t> want(out_len), got(out_len);
      tc::hash(a, msg, want);

      tc::Keccak k(a);
      for (int round = 0; round < 2; ++round) {  // second round checks reset()
        std::size_t at = 0;
        while (at < len) {
          const std::size_t n = std::min(len - at, std::uniform_int_distribution<std::size_t>(0, rate + 9)(rng));
          k.absorb(std::span<const std::uint8_t>(msg).subspan(at, n));
          at += n;
        }
        at = 0;
        std::fill(got.begin(), got.end(), 0);
        while (at < out_len) {
          const std::size_t n = std::min(out_len - at, std::uniform_int_distribution<std::size_t>(0, rate + 9)(rng));
          k.squeeze(std::span<std::uint8_t>(got).subspan(at, n));
          at += n;
        }
        INFO(tc::algorithm_name(a) << " len " << len << " out " << out_len);
        REQUIRE(got == want);
        k.reset();
      }
    }
  }
}

TEST_CASE("incremental TurboSHAKE honours the domain byte", "[incremental]") {
  const auto msg = tempo_keccak_test::ptn(500);
  for (std::uint8_t d : {0x01, 0x06, 0x0B, 0x1F, 0x7F}) {
    std::vector<std::uint8_t> want(100), got(100);
    tc::turboshake256(msg, d, want);
    tc::Keccak k(tc::Algorithm::turboshake256, d);
    k.absorb(msg);
    k.squeeze(got);
    CHECK(got == want);
  }
}

TEST_CASE("incremental misuse is rejected", "[incremental]") {
  tc::Keccak k(tc::Algorithm::shake128);
  std::uint8_t buf[8] = {};
  k.absorb(buf);
  k.squeeze(buf);
  CHECK_THROWS_AS(k.absorb(buf), std::logic_error);
  k.reset();
  CHECK_NOTHROW(k.absorb(buf));
  CHECK_THROWS_AS(tc::Keccak(tc::Algorithm::kt128), std::invalid_argument);
  CHECK_THROWS_AS(tc::Keccak(tc::Algorithm::turboshake128, 0x00), std::invalid_argument);
  CHECK_THROWS_AS(tc::Keccak(tc::Algorithm::turboshake128, 0x80), std::invalid_argument);
  CHECK_THROWS_AS(tc::Keccak(tc::Algorithm::sha3_256, 0x07), std::invalid_argument);
}
