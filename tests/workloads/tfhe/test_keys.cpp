// Keys and ciphertexts reproducible from a seed, fresh from the OS by default; serialization
// round trips and rejection; the backend contract of the batch calls.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace tempo::tfhe;
using tfhe_test::seed;

TEST_CASE("presets", "[keys]") {
  for (auto name : Params::preset_names()) {
    const Params p = Params::preset(name);
    CHECK(p.name == name);
    CHECK(p.Q % (2 * p.N) == 1);
    // The digits and the dropped bits together span Q.
    CHECK((std::uint64_t{1} << (p.log_bg * p.levels + p.dropped_bits())) > p.Q);
    CHECK((2 * p.N) % p.q() == 0);
    CHECK(p.log_bks * p.ks_levels == p.log_qks);
    const NoiseEstimate e = p.noise();
    CHECK(e.failure_per_gate < 1e-6);
  }
  CHECK(Params::preset("PN10QP27").secure);
  CHECK(Params::preset("PN11QP54").secure);
  CHECK(Params::preset("PN10QP27L3").secure);
  CHECK(Params::preset("PN10QP27").dropped_bits() == 0);
  CHECK(Params::preset("PN10QP27L3").dropped_bits() == 6);
  // Fewer digits: less key noise summed per step, the rounding error far below it.
  CHECK(Params::preset("PN10QP27L3").noise().output_var < Params::preset("PN10QP27").noise().output_var);
  CHECK_FALSE(Params::preset("TOY256").secure);
  // Multi-bit blind rotation: PN10QP27L3's instances (so its security), half the steps, 8
  // keys each; twice the blind rotation's key noise, a failure rate still far below 1e-9.
  const Params g2 = Params::preset("PN10QP27L3G2"), l3 = Params::preset("PN10QP27L3");
  CHECK(g2.secure);
  CHECK((g2.grouping == 2 && g2.steps() == 278 && g2.patterns() == 8));
  CHECK((l3.grouping == 1 && l3.steps() == 556 && l3.patterns() == 2));
  CHECK((g2.N == l3.N && g2.Q == l3.Q && g2.n == l3.n && g2.levels == l3.levels && g2.eta == l3.eta));
  CHECK(g2.noise().output_var > l3.noise().output_var);
  CHECK(g2.noise().failure_per_gate < 1e-9);
  CHECK_FALSE(Params::preset("TOY256G2").secure);
  CHECK_THROWS_AS(Params::preset("PN10QP28"), std::invalid_argument);
  CHECK_THROWS_WITH(Params::preset("nope"), Catch::Contains("nope"));
}

TEST_CASE("keys are reproducible from the seed, serial and parallel alike", "[keys]") {
  const Params p = Params::preset("TOY256");
  const auto s = seed(1234);
  const Keys a = keygen_deterministic(p, s);
  const Keys b = tfhe_test::pool().run([&](tempo::Task& t) { return keygen_deterministic(t, p, s); });
  CHECK(to_bytes(a.secret) == to_bytes(b.secret));
  CHECK(digest(a.evaluation) == digest(b.evaluation));
  CHECK(to_bytes(a.evaluation) == to_bytes(b.evaluation));
  const Keys c = keygen_deterministic(p, seed(1235));
  CHECK(to_bytes(a.secret) != to_bytes(c.secret));
  CHECK(digest(a.evaluation) != digest(c.evaluation));
  // Encryption is deterministic in its seed.
  CHECK(encrypt_bit_deterministic(a.secret, true, seed(5)) == encrypt_bit_deterministic(b.secret, true, seed(5)));
  CHECK(encrypt_bit_deterministic(a.secret, true, seed(5)) != encrypt_bit_deterministic(a.secret, true, seed(6)));
  const std::array<std::uint8_t, 31> short_seed{};
  CHECK_THROWS_WITH(keygen_deterministic(p, short_seed), Catch::Contains("32 bytes"));
  CHECK_THROWS_AS(encrypt_bit_deterministic(a.secret, true, short_seed), std::invalid_argument);
}

TEST_CASE("keygen draws a fresh seed from the OS", "[keys][random]") {
  const Params p = Params::preset("TOY256");
  const Keys a = keygen(p);
  const Keys b = tfhe_test::pool().run([&](tempo::Task& t) { return keygen(t, p); });
  CHECK(to_bytes(a.secret) != to_bytes(b.secret));
  CHECK(digest(a.evaluation) != digest(b.evaluation));
  // Each key works with its own secret.
  for (const Keys* k : {&a, &b}) {
    const Ciphertext x = encrypt_bit(k->secret, true), y = encrypt_bit(k->secret, true);
    const Ciphertext r =
        tfhe_test::pool().run([&](tempo::Task& t) { return eval_gate(t, k->evaluation, Gate::and_, x, y); });
    CHECK(decrypt_bit(k->secret, r));
  }
}

TEST_CASE("ternary secrets are balanced", "[keys]") {
  const Keys& k = tfhe_test::keys("TOY256", 0);
  int counts[3] = {0, 0, 0};
  for (auto v : k.secret.ring()) counts[v + 1]++;
  for (int c : counts) CHECK(std::abs(c - 256 / 3) < 40);
}

TEST_CASE("serialization round trips", "[serialize]") {
  for (const char* name : {"TOY256", "TOY256G2"}) {
  INFO(name);
  const Keys& k = tfhe_test::keys(name, 0);
  const Params p = k.secret.params();
  const Ciphertext c = encrypt_bit_deterministic(k.secret, true, seed(3));
  CHECK(ciphertext_from_bytes(to_bytes(c), &p) == c);
  CHECK(secret_key_from_bytes(to_bytes(k.secret)) == k.secret);
  const EvaluationKey ek = evaluation_key_from_bytes(to_bytes(k.evaluation), &p);
  CHECK(digest(ek) == digest(k.evaluation));
  // The parsed key works.
  const Ciphertext r = tfhe_test::pool().run([&](tempo::Task& t) { return eval_gate(t, ek, Gate::nand, c, c); });
  CHECK(decrypt_bit(k.secret, r) == false);
  }
}

TEST_CASE("bad serialized input is rejected clearly", "[serialize]") {
  const Keys& k = tfhe_test::keys("TOY256", 0);
  const Params toy = k.secret.params();
  const Params pn10 = Params::preset("PN10QP27");
  auto bytes = to_bytes(encrypt_bit_deterministic(k.secret, false, seed(4)));
  // truncated
  auto cut = bytes;
  cut.pop_back();
  CHECK_THROWS_WITH(ciphertext_from_bytes(cut), Catch::Contains("length"));
  CHECK_THROWS_WITH(ciphertext_from_bytes(std::span(bytes).first(3)), Catch::Contains("truncated"));
  // wrong parameter set
  CHECK_THROWS_WITH(ciphertext_from_bytes(bytes, &pn10), Catch::Contains("expected PN10QP27"));
  // unknown id, wrong magic
  auto bad_id = bytes;
  bad_id[4] = std::byte{77};
  CHECK_THROWS_WITH(ciphertext_from_bytes(bad_id), Catch::Contains("unknown parameter set id 77"));
  auto bad_magic = bytes;
  bad_magic[0] = std::byte{'X'};
  CHECK_THROWS_WITH(ciphertext_from_bytes(bad_magic), Catch::Contains("magic"));
  // out-of-range coefficient (q = 512 for TOY256)
  auto big = bytes;
  big[5] = std::byte{0xff};
  big[6] = std::byte{0xff};
  CHECK_THROWS_WITH(ciphertext_from_bytes(big, &toy), Catch::Contains("a[0] = 65535 is out of range"));
  // secret key: non-ternary value
  auto sk = to_bytes(k.secret);
  sk[7] = std::byte{2};
  CHECK_THROWS_WITH(secret_key_from_bytes(sk), Catch::Contains("lwe[2] is not in {-1, 0, 1}"));
  // evaluation key: truncated, out of range
  auto ek = to_bytes(k.evaluation);
  CHECK_THROWS_WITH(evaluation_key_from_bytes(std::span(ek).first(ek.size() - 1)), Catch::Contains("length"));
  auto ek_bad = ek;
  for (int i = 0; i < 8; ++i) ek_bad[5 + static_cast<std::size_t>(i)] = std::byte{0xff};
  CHECK_THROWS_WITH(evaluation_key_from_bytes(ek_bad), Catch::Contains("bootstrapping key[0]"));
  CHECK_THROWS_WITH(evaluation_key_from_bytes(ek, &pn10), Catch::Contains("expected PN10QP27"));
  // mixing parameter sets in a gate
  const SecretKey other(pn10, std::vector<std::int8_t>(pn10.n, 0), std::vector<std::int8_t>(pn10.N, 1));
  const Ciphertext c10 = encrypt_bit_deterministic(other, true, seed(8));
  const Ciphertext ctoy = encrypt_bit_deterministic(k.secret, true, seed(8));
  CHECK_THROWS_AS(tfhe_test::pool().run([&](tempo::Task& t) { return eval_gate(t, k.evaluation, Gate::and_, ctoy, c10); }),
                  std::invalid_argument);
  CHECK_THROWS_AS(decrypt_bit(k.secret, c10), std::invalid_argument);
}

TEST_CASE("backend contract", "[keys][backend]") {
  const Keys& k = tfhe_test::keys("TOY256", 0);
  std::vector<Ciphertext> xs{encrypt_bit_deterministic(k.secret, true, seed(1))}, ys = xs, out(1);
  if (!tempo::gpu::available(tempo::Backend::cuda)) {
    // cuda without a device path fails fast, never silently falls back.
    CHECK_THROWS_AS(tfhe_test::pool().run([&](tempo::Task& t) {
                      eval_gates(t, k.evaluation, Gate::and_, xs, ys, out, tempo::Backend::cuda);
                    }),
                    std::runtime_error);
    const tfhe_test::EnvVar env("TEMPO_BACKEND", "CUDA");  // names are case-insensitive
    CHECK_THROWS_AS(tfhe_test::pool().run([&](tempo::Task& t) { eval_bootstraps(t, k.evaluation, xs, out); }),
                    std::runtime_error);
  }
  {
    const tfhe_test::EnvVar env("TEMPO_BACKEND", "gpux");
    CHECK_THROWS_WITH(tfhe_test::pool().run([&](tempo::Task& t) { eval_bootstraps(t, k.evaluation, xs, out); }),
                      Catch::Contains("TEMPO_BACKEND"));
  }
  const tempo::gpu::BatchReport rep = tfhe_test::pool().run([&](tempo::Task& t) {
    return eval_gates(t, k.evaluation, Gate::and_, xs, ys, out, tempo::Backend::auto_select);
  });
  CHECK(decrypt_bit(k.secret, out[0]));
  CHECK(rep.items == 1);
  // Lengths and parameter sets are checked before any work.
  std::vector<Ciphertext> two(2);
  CHECK_THROWS_AS(tfhe_test::pool().run([&](tempo::Task& t) { eval_gates(t, k.evaluation, Gate::and_, xs, ys, two); }),
                  std::invalid_argument);
  const Params pn10 = Params::preset("PN10QP27");
  const SecretKey other(pn10, std::vector<std::int8_t>(pn10.n, 0), std::vector<std::int8_t>(pn10.N, 1));
  const std::vector<Ciphertext> foreign{encrypt_bit_deterministic(other, true, seed(2))};
  CHECK_THROWS_AS(tfhe_test::pool().run([&](tempo::Task& t) { eval_bootstraps(t, k.evaluation, foreign, out); }),
                  std::invalid_argument);
}
