// Batches on the pool (tempo::perk::sign_batch, sign_batch_deterministic, verify_batch, in
// their flat and range forms, and SignOp / VerifyOp on an engine): byte-equal to single
// calls on every set, with every length and count checked before any work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <tempo/gpu/engine.hpp>
#include <tempo/perk.hpp>
#include <tempo/tempo.hpp>

#include "kat.hpp"

using tempo::gpu::Operand;
using tempo::gpu::Placement;
using tempo::perk::Params;
using Bytes = std::vector<std::uint8_t>;

namespace {

// A seeded batch: keys from keygen_deterministic, messages of mixed lengths (empty ones
// included), one rand per item; the flat operands hold the same bytes end to end.
struct Batch {
  std::vector<Bytes> sks, pks, msgs, rands;
  Bytes sk_data, pk_data, msg_data, rand_data;
  std::vector<std::uint64_t> msg_offsets{0}, sk_offsets{0}, rand_offsets{0};
};

Batch make_batch(Params p, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto random = [&](std::size_t len) {
    Bytes b(len);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    return b;
  };
  static constexpr std::size_t msg_lens[] = {0, 1, 33, 200, 1000, 59};
  Batch b;
  for (std::size_t i = 0; i < n; ++i) {
    const tempo::perk::KeyPair kp = tempo::perk::keygen_deterministic(p, random(tempo::perk::keygen_seed_size(p)));
    b.sks.push_back(kp.secret_key);
    b.pks.push_back(kp.public_key);
    b.msgs.push_back(random(msg_lens[(i + seed) % std::size(msg_lens)]));
    // Mostly the package's rand length; any length is allowed.
    b.rands.push_back(random(i % 3 == 2 ? 5 : tempo::perk::sign_randomness_size(p)));
    auto append = [](Bytes& to, const Bytes& from, std::vector<std::uint64_t>* offsets) {
      to.insert(to.end(), from.begin(), from.end());
      if (offsets != nullptr) offsets->push_back(to.size());
    };
    append(b.sk_data, b.sks[i], &b.sk_offsets);
    append(b.pk_data, b.pks[i], nullptr);
    append(b.msg_data, b.msgs[i], &b.msg_offsets);
    append(b.rand_data, b.rands[i], &b.rand_offsets);
  }
  return b;
}

Bytes row(const Bytes& flat, std::size_t i, std::size_t len) {
  return Bytes(flat.begin() + static_cast<std::ptrdiff_t>(i * len),
               flat.begin() + static_cast<std::ptrdiff_t>((i + 1) * len));
}

// TEMPO_PERK_QUICK=1 (the sanitizer builds): one signature per set, 2 seeded rounds below.
std::size_t items_per_set() { return perk_test::env_flag("TEMPO_PERK_QUICK") ? 1 : 5; }

}  // namespace

TEST_CASE("sign_batch_deterministic equals sign_deterministic on every set; verify_batch accepts", "[batch]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 3});
  for (const Params p : tempo::perk::all_params()) {
    INFO(tempo::perk::name(p));
    const std::size_t n = items_per_set(), sig = tempo::perk::signature_size(p);
    const Batch b = make_batch(p, n, 17 + static_cast<std::uint64_t>(p));
    Bytes sigs(n * sig), ok(n, 7);
    tempo::gpu::BatchReport rs, rv;
    pool.run([&](tempo::Task& t) {
      // Keys by offsets, messages and rands by offsets (mixed lengths).
      rs = tempo::perk::sign_batch_deterministic(
          t, p, Operand::variable(b.sk_data, b.sk_offsets), Operand::variable(b.msg_data, b.msg_offsets),
          Operand::variable(b.rand_data, b.rand_offsets), sigs, tempo::Backend::cpu);
      rv = tempo::perk::verify_batch(t, p, Operand::fixed(b.pk_data, tempo::perk::public_key_size(p)),
                                     Operand::variable(b.msg_data, b.msg_offsets), Operand::fixed(sigs, sig), ok,
                                     tempo::Backend::cpu);
    });
    for (std::size_t i = 0; i < n; ++i) {
      INFO("item " << i);
      CHECK(row(sigs, i, sig) == tempo::perk::sign_deterministic(p, b.sks[i], b.msgs[i], b.rands[i]));
      CHECK(ok[i] == 1);
    }
    for (const auto* r : {&rs, &rv}) {
      CHECK(r->ran_on == Placement::cpu);
      CHECK(r->items == n);
      CHECK(r->cpu_items == n);
      CHECK(r->gpu_items == 0);
    }
  }
}

TEST_CASE("many seeded batches of one set: flat and range forms equal single calls", "[batch]") {
  const Params p = Params::perk_1_fast_aes_aes;
  const std::size_t sig = tempo::perk::signature_size(p), sk_len = tempo::perk::secret_key_size(p);
  const std::size_t rounds = perk_test::env_flag("TEMPO_PERK_QUICK") ? 2 : 6;
  // 4 workers: a 1- or 3-item batch forks inside each signature, larger ones do not.
  tempo::ThreadPool pool(tempo::Options{.threads = 4});
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::size_t n = std::array<std::size_t, 6>{1, 9, 3, 12, 5, 16}[round];
    INFO("round " << round << ", " << n << " signatures");
    const Batch b = make_batch(p, n, 1000 + round);
    Bytes flat(n * sig);
    std::vector<Bytes> ranged;                           // resized by the call
    std::vector<std::array<std::uint8_t, 4312>> fixed(n);  // exactly the sizes already
    REQUIRE(sig == 4312);
    std::vector<bool> ok;
    std::vector<std::uint8_t> ok_flat(n, 7);
    pool.run([&](tempo::Task& t) {
      tempo::perk::sign_batch_deterministic(t, p, Operand::fixed(b.sk_data, sk_len),
                                            Operand::variable(b.msg_data, b.msg_offsets),
                                            Operand::variable(b.rand_data, b.rand_offsets), flat);
      tempo::perk::sign_batch_deterministic(t, p, b.sks, b.msgs, b.rands, ranged);
      tempo::perk::sign_batch_deterministic(t, p, b.sks, b.msgs, b.rands, fixed);
      tempo::perk::verify_batch(t, p, b.pks, b.msgs, ranged, ok);
      tempo::perk::verify_batch(t, p, Operand::fixed(b.pk_data, tempo::perk::public_key_size(p)),
                                Operand::variable(b.msg_data, b.msg_offsets), Operand::fixed(flat, sig), ok_flat);
    });
    REQUIRE(ranged.size() == n);
    REQUIRE(ok.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("item " << i);
      const Bytes one = tempo::perk::sign_deterministic(p, b.sks[i], b.msgs[i], b.rands[i]);
      CHECK(row(flat, i, sig) == one);
      CHECK(ranged[i] == one);
      CHECK(Bytes(fixed[i].begin(), fixed[i].end()) == one);
      CHECK(ok[i]);
      CHECK(ok_flat[i] == 1);
    }
  }
}

TEST_CASE("sign_batch draws rand per signature: the signatures verify, a corrupted one does not", "[batch]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  for (const Params p : {Params::perk_1_fast_aes_aes, Params::perk_3_short_keccak_keccak}) {
    INFO(tempo::perk::name(p));
    const std::size_t n = 4, sig = tempo::perk::signature_size(p);
    Batch b = make_batch(p, n, 5);
    b.msgs[1] = b.msgs[0];  // the same key and message twice: fresh rand gives two signatures
    b.sks[1] = b.sks[0];
    b.pks[1] = b.pks[0];
    std::vector<Bytes> sigs;
    std::vector<bool> ok, bad;
    tempo::gpu::BatchReport rs;
    pool.run([&](tempo::Task& t) {
      rs = tempo::perk::sign_batch(t, p, b.sks, b.msgs, sigs, tempo::Backend::cpu);
      tempo::perk::verify_batch(t, p, b.pks, b.msgs, sigs, ok);
      sigs[2][sig / 2] ^= 0x10;
      tempo::perk::verify_batch(t, p, b.pks, b.msgs, sigs, bad);
    });
    CHECK(rs.ran_on == Placement::cpu);
    CHECK(rs.items == n);
    CHECK(sigs[0] != sigs[1]);
    CHECK(ok == std::vector<bool>(n, true));
    CHECK(bad == std::vector<bool>{true, true, false, true});
    for (std::size_t i = 0; i < n; ++i) CHECK(tempo::perk::verify(p, b.pks[i], b.msgs[i], sigs[i]) == (i != 2));
  }
}

TEST_CASE("bad lengths and counts are rejected before any work; the outputs stay untouched", "[batch]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Params p = Params::perk_1_short_aes_keccak;
  const std::size_t n = 3, sig = tempo::perk::signature_size(p), sk_len = tempo::perk::secret_key_size(p),
                    pk_len = tempo::perk::public_key_size(p);
  Batch b = make_batch(p, n, 9);
  const Operand msgs = Operand::variable(b.msg_data, b.msg_offsets);
  Bytes sigs(n * sig, 0xAA), ok(n, 0xAA);
  const Bytes untouched_sigs = sigs, untouched_ok = ok;
  pool.run([&](tempo::Task& t) {
    // A secret key one byte short (by offsets: item 1), a wrong fixed stride.
    std::vector<std::uint64_t> offs = b.sk_offsets;
    offs[1] -= 1;
    CHECK_THROWS_WITH(tempo::perk::sign_batch(t, p, Operand::variable(b.sk_data, offs), msgs, sigs),
                      "tempo::perk::sign_batch: secret key 0 is " + std::to_string(sk_len - 1) + " bytes, expected " +
                          std::to_string(sk_len));
    CHECK_THROWS_WITH(tempo::perk::sign_batch_deterministic(t, p, Operand::fixed(b.sk_data, sk_len + 1), msgs,
                                                            Operand::variable(b.rand_data, b.rand_offsets), sigs),
                      Catch::Contains("secret key 0 is " + std::to_string(sk_len + 1) + " bytes"));
    // Counts that disagree, an output of the wrong size (the engine's checks, before any work).
    CHECK_THROWS_AS(tempo::perk::sign_batch(t, p, Operand::fixed(b.sk_data, sk_len),
                                            Operand::variable(b.msg_data, std::span(b.msg_offsets).first(n)), sigs),
                    std::invalid_argument);
    CHECK_THROWS_AS(tempo::perk::sign_batch(t, p, Operand::fixed(b.sk_data, sk_len), msgs,
                                            std::span(sigs).first((n - 1) * sig)),
                    std::invalid_argument);
    // Verification: a short public key, a long signature.
    CHECK_THROWS_WITH(tempo::perk::verify_batch(t, p, Operand::fixed(b.pk_data, pk_len - 1), msgs,
                                                Operand::fixed(sigs, sig), ok),
                      Catch::Contains("public key 0 is " + std::to_string(pk_len - 1) + " bytes"));
    Bytes long_sigs(n * (sig + 1));
    CHECK_THROWS_WITH(tempo::perk::verify_batch(t, p, Operand::fixed(b.pk_data, pk_len), msgs,
                                                Operand::fixed(long_sigs, sig + 1), ok),
                      Catch::Contains("signature 0 is " + std::to_string(sig + 1) + " bytes"));
  });
  CHECK(sigs == untouched_sigs);
  CHECK(ok == untouched_ok);

  // The range forms: the last key short, a rand missing, a buffer of the wrong size.
  std::vector<std::vector<std::uint8_t>> out(n, Bytes(sig, 0xAA));
  const auto out_before = out;
  std::vector<std::span<std::uint8_t>> out_views;
  for (auto& o : out) out_views.emplace_back(o);
  std::vector<Bytes> short_key = b.sks;
  short_key[2].pop_back();
  pool.run([&](tempo::Task& t) {
    CHECK_THROWS_WITH(tempo::perk::sign_batch(t, p, short_key, b.msgs, out_views),
                      Catch::Contains("tempo::perk::sign_batch: secret key 2 is"));
    std::vector<Bytes> fewer_rands(b.rands.begin(), b.rands.end() - 1);
    CHECK_THROWS_WITH(tempo::perk::sign_batch_deterministic(t, p, b.sks, b.msgs, fewer_rands, out_views),
                      "tempo::perk::sign_batch_deterministic: rands has 2 entries, expected 3");
    std::vector<Bytes> fewer_msgs(b.msgs.begin(), b.msgs.end() - 1);
    CHECK_THROWS_WITH(tempo::perk::sign_batch(t, p, b.sks, fewer_msgs, out_views),
                      "tempo::perk::sign_batch: messages has 2 entries, expected 3");
    std::vector<std::span<std::uint8_t>> short_out = out_views;
    short_out[1] = short_out[1].first(sig - 1);
    CHECK_THROWS_WITH(tempo::perk::sign_batch(t, p, b.sks, b.msgs, short_out),
                      Catch::Contains("signature buffer 1 is " + std::to_string(sig - 1) + " bytes"));
    std::array<bool, 2> two_flags{};
    CHECK_THROWS_WITH(tempo::perk::verify_batch(t, p, b.pks, b.msgs, out, two_flags),
                      "tempo::perk::verify_batch: results_out has 2 entries, expected 3");
  });
  CHECK(out == out_before);
  // An unknown parameter set.
  CHECK_THROWS_AS(tempo::perk::SignOp(static_cast<Params>(18)), std::invalid_argument);
  CHECK_THROWS_AS(tempo::perk::VerifyOp(static_cast<Params>(18)), std::invalid_argument);
}

TEST_CASE("SignOp and VerifyOp on an engine: keys, inputs, secrets, placement", "[batch]") {
  const Params p = Params::perk_3_fast_aes_aes;
  const tempo::perk::SignOp fresh(p), det(p, tempo::perk::RandSource::input);
  const tempo::perk::VerifyOp ver(p);
  CHECK(fresh.key() == "perk-sign/perk-3-fast-aes_aes");
  CHECK(ver.key() == "perk-verify/perk-3-fast-aes_aes");
  CHECK(fresh.inputs() == 2);
  CHECK(det.inputs() == 3);
  CHECK(ver.inputs() == 3);
  CHECK(fresh.out_stride() == tempo::perk::signature_size(p));
  CHECK(ver.out_stride() == 1);
  CHECK(fresh.holds_secrets());
  CHECK_FALSE(ver.holds_secrets());
  CHECK(fresh.forks_on_cpu());
  CHECK(fresh.prior().cpu_per_work > ver.prior().cpu_per_work * 0.5);
  CHECK(det.rand_source() == tempo::perk::RandSource::input);

  // A private engine, driven directly: the same bytes as single calls.
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  tempo::gpu::Engine engine;
  const std::size_t n = 3, sig = tempo::perk::signature_size(p);
  const Batch b = make_batch(p, n, 31);
  Bytes sigs(n * sig), ok(n);
  tempo::gpu::BatchReport rs;
  pool.run([&](tempo::Task& t) {
    rs = engine.run(t, det,
                    {Operand::fixed(b.sk_data, tempo::perk::secret_key_size(p)),
                     Operand::variable(b.msg_data, b.msg_offsets), Operand::variable(b.rand_data, b.rand_offsets)},
                    sigs, tempo::Backend::cpu);
    engine.run(t, ver,
               {Operand::fixed(b.pk_data, tempo::perk::public_key_size(p)), Operand::variable(b.msg_data, b.msg_offsets),
                Operand::fixed(sigs, sig)},
               ok, tempo::Backend::cpu);
  });
  CHECK(rs.ran_on == Placement::cpu);
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(row(sigs, i, sig) == tempo::perk::sign_deterministic(p, b.sks[i], b.msgs[i], b.rands[i]));
    CHECK(ok[i] == 1);
  }
}
