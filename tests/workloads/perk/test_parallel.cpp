// Forks inside one signature: sign / sign_deterministic / verify with a tempo::Task give the
// serial calls' bytes and verdicts, on every parameter set.
#include <catch2/catch.hpp>

#include <vector>

#include <tempo/perk.hpp>
#include <tempo/tempo.hpp>

#include "kat.hpp"

using tempo::perk::Params;

TEST_CASE("One signature with forks inside equals the serial one, every set", "[parallel]") {
  // TEMPO_PERK_QUICK=1 (the sanitizer builds): one pool size.
  const std::vector<std::size_t> pools = perk_test::env_flag("TEMPO_PERK_QUICK") ? std::vector<std::size_t>{3}
                                                                                  : std::vector<std::size_t>{2, 4};
  for (std::size_t threads : pools) {
    tempo::ThreadPool pool(tempo::Options{.threads = threads});
    for (Params ps : tempo::perk::all_params()) {
      INFO(tempo::perk::name(ps) << ", " << threads << " threads");
      std::vector<std::uint8_t> seed(tempo::perk::keygen_seed_size(ps));
      for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(3 * i + threads);
      const auto kp = tempo::perk::keygen_deterministic(ps, seed);
      const std::vector<std::uint8_t> msg(33, 0xa5), rand(tempo::perk::sign_randomness_size(ps), 0x17);
      const auto serial = tempo::perk::sign_deterministic(ps, kp.secret_key, msg, rand);
      const auto forked = pool.run(
          [&](tempo::Task& t) { return tempo::perk::sign_deterministic(t, ps, kp.secret_key, msg, rand); });
      REQUIRE(forked == serial);
      CHECK(pool.run([&](tempo::Task& t) { return tempo::perk::verify(t, ps, kp.public_key, msg, serial); }));
      auto bad = serial;
      bad[bad.size() / 3] ^= 0x10;
      CHECK(pool.run([&](tempo::Task& t) { return tempo::perk::verify(t, ps, kp.public_key, msg, bad); }) ==
            tempo::perk::verify(ps, kp.public_key, msg, bad));
      CHECK_FALSE(tempo::perk::verify(ps, kp.public_key, msg, bad));
    }
  }
}

TEST_CASE("sign with a Task draws fresh randomness; the signature verifies serially", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 3});
  const Params ps = Params::perk_1_fast_aes_aes;
  const auto kp = tempo::perk::keygen(ps);
  const std::vector<std::uint8_t> msg(10, 1);
  const auto a = pool.run([&](tempo::Task& t) { return tempo::perk::sign(t, ps, kp.secret_key, msg); });
  const auto b = pool.run([&](tempo::Task& t) { return tempo::perk::sign(t, ps, kp.secret_key, msg); });
  CHECK(a != b);
  CHECK(tempo::perk::verify(ps, kp.public_key, msg, a));
  CHECK(tempo::perk::verify(ps, kp.public_key, msg, b));
  // Wrong lengths: the same one-line std::invalid_argument as the serial calls.
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                    return tempo::perk::sign(t, ps, std::vector<std::uint8_t>(3), msg);
                  }),
                  std::invalid_argument);
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                    return tempo::perk::verify(t, ps, kp.public_key, msg, std::vector<std::uint8_t>(5));
                  }),
                  std::invalid_argument);
}
