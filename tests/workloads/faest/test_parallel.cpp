// Forks inside one signature and batches on the pool: byte-identical to single serial calls.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>

#include <tempo/faest.hpp>
#include <tempo/gpu/backend.hpp>
#include <tempo/tempo.hpp>

using tempo::faest::Params;

TEST_CASE("One signature with forks inside equals the serial one", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 4});
  const std::array<std::uint8_t, 16> rho{1, 2, 3};
  for (Params ps : {Params::faest_128f, Params::faest_128s}) {
    INFO(tempo::faest::name(ps));
    const auto kp = tempo::faest::keygen(ps);
    const std::vector<std::uint8_t> msg(77, 0x5a);
    const auto serial = tempo::faest::sign(ps, kp.secret_key, msg, rho);
    const auto forked = pool.run([&](tempo::Task& t) { return tempo::faest::sign(t, ps, kp.secret_key, msg, rho); });
    CHECK(forked == serial);
    CHECK(pool.run([&](tempo::Task& t) { return tempo::faest::verify(t, ps, kp.public_key, msg, serial); }));
    auto bad = serial;
    bad[10] ^= 1;
    CHECK_FALSE(pool.run([&](tempo::Task& t) { return tempo::faest::verify(t, ps, kp.public_key, msg, bad); }));
  }
}

TEST_CASE("Batch sign and verify on the pool equal single calls", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 3});
  const Params ps = Params::faest_128f;
  const std::size_t n = 6;
  std::vector<tempo::faest::KeyPair> kps;
  std::vector<std::vector<std::uint8_t>> sks, pks, msgs, rhos;
  for (std::size_t i = 0; i < n; ++i) {
    kps.push_back(tempo::faest::keygen(ps));
    sks.push_back(kps.back().secret_key);
    pks.push_back(kps.back().public_key);
    msgs.emplace_back(i * 10, std::uint8_t(i));
    rhos.emplace_back(16, std::uint8_t(100 + i));
  }
  // Explicit rho: byte-identical to sign().
  std::vector<std::vector<std::uint8_t>> sigs(n, std::vector<std::uint8_t>(tempo::faest::signature_size(ps)));
  std::vector<std::span<const std::uint8_t>> sk_s, msg_s, rho_s;
  std::vector<std::span<std::uint8_t>> out_s;
  for (std::size_t i = 0; i < n; ++i) sk_s.emplace_back(sks[i]), msg_s.emplace_back(msgs[i]), rho_s.emplace_back(rhos[i]);
  for (auto& s : sigs) out_s.emplace_back(s);
  pool.run([&](tempo::Task& t) {
    tempo::faest::sign_batch_spans(t, ps, sk_s, msg_s, rho_s, out_s, tempo::faest::Backend::cpu);
  });
  for (std::size_t i = 0; i < n; ++i) CHECK(sigs[i] == tempo::faest::sign(ps, sks[i], msgs[i], rhos[i]));

  // The container API (OS randomness), then verification of all with one forged.
  std::vector<std::vector<std::uint8_t>> sigs2;
  pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, ps, sks, msgs, sigs2); });
  REQUIRE(sigs2.size() == n);
  sigs2[3][100] ^= 1;
  std::vector<bool> ok;
  pool.run([&](tempo::Task& t) { tempo::faest::verify_batch(t, ps, pks, msgs, sigs2, ok); });
  REQUIRE(ok.size() == n);
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(ok[i] == (i != 3));
    CHECK(ok[i] == tempo::faest::verify(ps, pks[i], msgs[i], sigs2[i]));
  }
  // Mismatched sizes are clear errors; so is Backend::gpu without CUDA or a device.
  std::vector<std::vector<std::uint8_t>> fewer(msgs.begin(), msgs.end() - 1);
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, ps, sks, fewer, sigs2); }),
                  std::invalid_argument);
  if (!tempo::gpu::available(tempo::Backend::cuda))
    CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                      tempo::faest::verify_batch(t, ps, pks, msgs, sigs2, ok, tempo::faest::Backend::gpu);
                    }),
                    std::runtime_error);
  // automatic on a small batch: the pool, byte-identical.
  std::vector<std::vector<std::uint8_t>> sigs3;
  pool.run([&](tempo::Task& t) {
    tempo::faest::sign_batch(t, ps, sks, msgs, sigs3, tempo::faest::Backend::automatic);
  });
  REQUIRE(sigs3.size() == n);
  for (std::size_t i = 0; i < n; ++i) CHECK(tempo::faest::verify(ps, pks[i], msgs[i], sigs3[i]));
}

TEST_CASE("Forked signatures inside a parallel loop (nested per-thread scratch) equal serial ones", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 4, .heartbeat = std::chrono::microseconds(20)});
  const Params ps = Params::faest_128f;
  const auto kp = tempo::faest::keygen(ps);
  const std::size_t n = 6;
  std::vector<std::vector<std::uint8_t>> msgs, got(n), want;
  const std::array<std::uint8_t, 16> rho{9};
  for (std::size_t i = 0; i < n; ++i) {
    msgs.emplace_back(i + 1, std::uint8_t(i));
    want.push_back(tempo::faest::sign(ps, kp.secret_key, msgs[i], rho));
  }
  std::vector<char> ok(n, 0);  // Catch2 assertions are not thread-safe: check afterwards
  pool.run([&](tempo::Task& t) {
    tempo::parallel_for(t, 0, n, [&](tempo::Task& t2, std::size_t i) {
      got[i] = tempo::faest::sign(t2, ps, kp.secret_key, msgs[i], rho);
      ok[i] = tempo::faest::verify(t2, ps, kp.public_key, msgs[i], got[i]) ? 1 : 0;
    });
  });
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(got[i] == want[i]);
    CHECK(ok[i] == 1);
  }
}
