// Forks inside one signature and batches on the pool: byte-identical to single serial calls.
#include <catch2/catch.hpp>

#include <array>
#include <chrono>

#include <tempo/faest.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/tempo.hpp>

using tempo::faest::Params;

TEST_CASE("One signature with forks inside equals the serial one", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 4});
  const std::array<std::uint8_t, 16> rho{1, 2, 3};
  for (Params ps : {Params::faest_128f, Params::faest_128s}) {
    INFO(tempo::faest::name(ps));
    const auto kp = tempo::faest::keygen(ps);
    const std::vector<std::uint8_t> msg(77, 0x5a);
    const auto serial = tempo::faest::sign_deterministic(ps, kp.secret_key, msg, rho);
    const auto forked =
        pool.run([&](tempo::Task& t) { return tempo::faest::sign_deterministic(t, ps, kp.secret_key, msg, rho); });
    CHECK(forked == serial);
    CHECK(pool.run([&](tempo::Task& t) { return tempo::faest::verify(t, ps, kp.public_key, msg, serial); }));
    auto bad = serial;
    bad[10] ^= 1;
    CHECK_FALSE(pool.run([&](tempo::Task& t) { return tempo::faest::verify(t, ps, kp.public_key, msg, bad); }));
    // Fresh rho: a different signature each time, both valid.
    const auto fresh = pool.run([&](tempo::Task& t) { return tempo::faest::sign(t, ps, kp.secret_key, msg); });
    CHECK(fresh != tempo::faest::sign(ps, kp.secret_key, msg));
    CHECK(tempo::faest::verify(ps, kp.public_key, msg, fresh));
  }
}

TEST_CASE("sign_into and sign_into_deterministic write the signature in place", "[parallel]") {
  const Params ps = Params::faest_128f;
  const auto kp = tempo::faest::keygen(ps);
  const std::vector<std::uint8_t> msg(5, 1), rho(16, 2);
  std::vector<std::uint8_t> sig(tempo::faest::signature_size(ps));
  tempo::faest::sign_into_deterministic(ps, kp.secret_key, msg, rho, sig);
  CHECK(sig == tempo::faest::sign_deterministic(ps, kp.secret_key, msg, rho));
  tempo::faest::sign_into(ps, kp.secret_key, msg, sig);
  CHECK(tempo::faest::verify(ps, kp.public_key, msg, sig));
  std::vector<std::uint8_t> short_sig(sig.size() - 1);
  CHECK_THROWS_AS(tempo::faest::sign_into(ps, kp.secret_key, msg, short_sig), std::invalid_argument);
}

namespace {
struct Inputs {
  std::vector<tempo::faest::KeyPair> kps;
  std::vector<std::vector<std::uint8_t>> sks, pks, msgs, rhos;
};
Inputs make_inputs(Params ps, std::size_t n) {
  Inputs in;
  for (std::size_t i = 0; i < n; ++i) {
    in.kps.push_back(tempo::faest::keygen(ps));
    in.sks.push_back(in.kps.back().secret_key);
    in.pks.push_back(in.kps.back().public_key);
    in.msgs.emplace_back(i * 10, std::uint8_t(i));
    in.rhos.emplace_back(16, std::uint8_t(100 + i));
  }
  return in;
}
}  // namespace

TEST_CASE("Batch sign and verify on the pool equal single calls", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 3});
  const Params ps = Params::faest_128f;
  const std::size_t n = 6;
  const Inputs in = make_inputs(ps, n);
  // Explicit rho: byte-identical to sign_deterministic(), into vectors and into spans.
  std::vector<std::vector<std::uint8_t>> sigs;
  const auto rep = pool.run([&](tempo::Task& t) {
    return tempo::faest::sign_batch_deterministic(t, ps, in.sks, in.msgs, in.rhos, sigs, tempo::Backend::cpu);
  });
  CHECK(rep.ran_on == tempo::gpu::Placement::cpu);
  CHECK(rep.items == n);
  CHECK(rep.cpu_items == n);
  REQUIRE(sigs.size() == n);
  for (std::size_t i = 0; i < n; ++i)
    CHECK(sigs[i] == tempo::faest::sign_deterministic(ps, in.sks[i], in.msgs[i], in.rhos[i]));
  std::vector<std::uint8_t> flat(n * tempo::faest::signature_size(ps));
  std::vector<std::span<std::uint8_t>> rows;
  for (std::size_t i = 0; i < n; ++i) rows.emplace_back(flat.data() + i * tempo::faest::signature_size(ps), tempo::faest::signature_size(ps));
  std::vector<std::span<const std::uint8_t>> key_spans(in.sks.begin(), in.sks.end());
  pool.run([&](tempo::Task& t) {
    tempo::faest::sign_batch_deterministic(t, ps, key_spans, in.msgs, in.rhos, rows, tempo::Backend::cpu);
  });
  for (std::size_t i = 0; i < n; ++i) CHECK(std::vector<std::uint8_t>(rows[i].begin(), rows[i].end()) == sigs[i]);

  // The default: fresh rho per signature; then verification of all with one forged.
  std::vector<std::vector<std::uint8_t>> sigs2;
  pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, ps, in.sks, in.msgs, sigs2, tempo::Backend::cpu); });
  REQUIRE(sigs2.size() == n);
  CHECK(sigs2[0] != sigs[0]);
  sigs2[3][100] ^= 1;
  std::vector<bool> ok;
  const auto vrep = pool.run(
      [&](tempo::Task& t) { return tempo::faest::verify_batch(t, ps, in.pks, in.msgs, sigs2, ok, tempo::Backend::cpu); });
  CHECK(vrep.items == n);
  REQUIRE(ok.size() == n);
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(ok[i] == (i != 3));
    CHECK(ok[i] == tempo::faest::verify(ps, in.pks[i], in.msgs[i], sigs2[i]));
  }
  // An empty batch is fine.
  std::vector<std::vector<std::uint8_t>> none;
  std::vector<std::vector<std::uint8_t>> none_sigs;
  CHECK(pool.run([&](tempo::Task& t) { return tempo::faest::sign_batch(t, ps, none, none, none_sigs); }).items == 0);
}

TEST_CASE("Flat batches (fixed strides and offsets) equal single calls", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Params ps = Params::faest_128f;
  const std::size_t n = 4, sig = tempo::faest::signature_size(ps);
  const Inputs in = make_inputs(ps, n);
  std::vector<std::uint8_t> keys, pubs, msgs, rhos;
  std::vector<std::uint64_t> offsets{0};
  for (std::size_t i = 0; i < n; ++i) {
    keys.insert(keys.end(), in.sks[i].begin(), in.sks[i].end());
    pubs.insert(pubs.end(), in.pks[i].begin(), in.pks[i].end());
    msgs.insert(msgs.end(), in.msgs[i].begin(), in.msgs[i].end());
    rhos.insert(rhos.end(), in.rhos[i].begin(), in.rhos[i].end());
    offsets.push_back(msgs.size());
  }
  using tempo::gpu::Operand;
  std::vector<std::uint8_t> out(n * sig), ok(n, 7);
  pool.run([&](tempo::Task& t) {
    tempo::faest::sign_batch_deterministic(t, ps, Operand::fixed(keys, 32), Operand::variable(msgs, offsets),
                                           Operand::fixed(rhos, 16), out, tempo::Backend::cpu);
    tempo::faest::verify_batch(t, ps, Operand::fixed(pubs, 32), Operand::variable(msgs, offsets),
                               Operand::fixed(out, sig), ok, tempo::Backend::cpu);
  });
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<std::uint8_t> got(out.begin() + std::ptrdiff_t(i * sig), out.begin() + std::ptrdiff_t((i + 1) * sig));
    CHECK(got == tempo::faest::sign_deterministic(ps, in.sks[i], in.msgs[i], in.rhos[i]));
    CHECK(ok[i] == 1);
  }
  // Lengths are checked before any work: keys at the wrong stride, a short output.
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                    tempo::faest::sign_batch(t, ps, Operand::fixed(keys, 16), Operand::variable(msgs, offsets), out,
                                             tempo::Backend::cpu);
                  }),
                  std::invalid_argument);
  std::vector<std::uint8_t> short_out(out.size() - 1);
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                    tempo::faest::sign_batch(t, ps, Operand::fixed(keys, 32), Operand::variable(msgs, offsets),
                                             short_out, tempo::Backend::cpu);
                  }),
                  std::invalid_argument);
}

TEST_CASE("Batch errors: mismatched sizes, Backend::cuda without CUDA or a device", "[parallel]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Params ps = Params::faest_128f;
  const Inputs in = make_inputs(ps, 2);
  std::vector<std::vector<std::uint8_t>> sigs;
  std::vector<std::vector<std::uint8_t>> fewer(in.msgs.begin(), in.msgs.end() - 1);
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, ps, in.sks, fewer, sigs); }),
                  std::invalid_argument);
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                    tempo::faest::sign_batch_deterministic(t, ps, in.sks, in.msgs, fewer, sigs);
                  }),
                  std::invalid_argument);
  std::vector<std::vector<std::uint8_t>> short_key{std::vector<std::uint8_t>(31), in.sks[1]};
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, ps, short_key, in.msgs, sigs); }),
                  std::invalid_argument);
  if (!tempo::gpu::available(tempo::Backend::cuda)) {
    std::vector<bool> ok;
    pool.run([&](tempo::Task& t) { tempo::faest::sign_batch(t, ps, in.sks, in.msgs, sigs, tempo::Backend::cpu); });
    CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                      tempo::faest::verify_batch(t, ps, in.pks, in.msgs, sigs, ok, tempo::Backend::cuda);
                    }),
                    std::runtime_error);
    CHECK_THROWS_AS(pool.run([&](tempo::Task& t) {
                      tempo::faest::sign_batch(t, ps, in.sks, in.msgs, sigs, tempo::Backend::cuda);
                    }),
                    std::runtime_error);
    // auto without a device: the pool.
    const auto rep = pool.run([&](tempo::Task& t) {
      return tempo::faest::sign_batch(t, ps, in.sks, in.msgs, sigs, tempo::Backend::auto_select);
    });
    CHECK(rep.ran_on == tempo::gpu::Placement::cpu);
    for (std::size_t i = 0; i < 2; ++i) CHECK(tempo::faest::verify(ps, in.pks[i], in.msgs[i], sigs[i]));
  }
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
    want.push_back(tempo::faest::sign_deterministic(ps, kp.secret_key, msgs[i], rho));
  }
  std::vector<char> ok(n, 0);  // Catch2 assertions are not thread-safe: check afterwards
  pool.run([&](tempo::Task& t) {
    tempo::parallel_for(t, 0, n, [&](tempo::Task& t2, std::size_t i) {
      got[i] = tempo::faest::sign_deterministic(t2, ps, kp.secret_key, msgs[i], rho);
      ok[i] = tempo::faest::verify(t2, ps, kp.public_key, msgs[i], got[i]) ? 1 : 0;
    });
  });
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(got[i] == want[i]);
    CHECK(ok[i] == 1);
  }
}
