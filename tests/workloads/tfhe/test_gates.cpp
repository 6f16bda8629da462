// Truth tables of every gate over seeded keys and inputs, NOT, bootstrap and noise bounds,
// fresh randomness by default, and single gates on the pool whatever TEMPO_BACKEND says.
#include <catch2/catch.hpp>

#include <cmath>

#include "helpers.hpp"

using namespace tempo::tfhe;
using tfhe_test::seed;

namespace {

void truth_tables(const std::string& name, std::uint64_t key_seeds, int reps) {
  const Gate gates[] = {Gate::and_, Gate::or_, Gate::xor_, Gate::nand, Gate::nor, Gate::xnor};
  for (std::uint64_t k = 0; k < key_seeds; ++k) {
    const Keys& keys = tfhe_test::keys(name, k);
    std::uint64_t ctr = 0;
    for (int rep = 0; rep < reps; ++rep)
      for (Gate g : gates)
        for (int xy = 0; xy < 4; ++xy) {
          const bool x = xy & 1, y = xy >> 1;
          const Ciphertext cx = encrypt_bit_deterministic(keys.secret, x, seed(k, ++ctr));
          const Ciphertext cy = encrypt_bit_deterministic(keys.secret, y, seed(k, ++ctr));
          const Ciphertext r = tfhe_test::pool().run(
              [&](tempo::Task& t) { return eval_gate(t, keys.evaluation, g, cx, cy); });
          INFO(name << " key " << k << " gate " << gate_name(g) << " x=" << x << " y=" << y);
          REQUIRE(decrypt_bit(keys.secret, r) == gate_plain(g, x, y));
        }
  }
}

}  // namespace

TEST_CASE("encrypt/decrypt round trip and NOT", "[gates]") {
  for (const char* name : {"TOY256", "PN10QP27"}) {
    if (std::string(name) != "TOY256" && !tfhe_test::real_sets()) continue;
    const Keys& keys = tfhe_test::keys(name, 0);
    for (std::uint64_t i = 0; i < 200; ++i) {
      const bool bit = (i * 7 + 3) % 5 < 2;
      const Ciphertext c = encrypt_bit_deterministic(keys.secret, bit, seed(99, i));
      REQUIRE(decrypt_bit(keys.secret, c) == bit);
      REQUIRE(decrypt_bit(keys.secret, eval_not(c)) == !bit);
      REQUIRE(std::abs(noise_of(keys.secret, c, bit)) <= static_cast<std::int64_t>(keys.secret.params().eta));
    }
  }
}

TEST_CASE("every gate's truth table, TOY256 and TOY256G2, several keys", "[gates]") {
  truth_tables("TOY256", tfhe_test::full() ? 8 : 2, tfhe_test::full() ? 4 : 1);
  truth_tables("TOY256G2", tfhe_test::full() ? 8 : 2, tfhe_test::full() ? 4 : 1);
}

TEST_CASE("every gate's truth table, PN10QP27, PN10QP27L3 and PN10QP27L3G2", "[gates][slow]") {
  if (!tfhe_test::real_sets()) {
    WARN("skipped under sanitizers (TEMPO_TFHE_FULL=1 runs it)");
    return;
  }
  truth_tables("PN10QP27", tfhe_test::full() ? 3 : 1, 1);
  truth_tables("PN10QP27L3", tfhe_test::full() ? 3 : 1, 1);
  truth_tables("PN10QP27L3G2", tfhe_test::full() ? 3 : 1, 1);
}

TEST_CASE("every gate's truth table, PN11QP54", "[gates][slow][full]") {
  if (!tfhe_test::full()) SUCCEED("TEMPO_TFHE_FULL=1 runs PN11QP54");
  else truth_tables("PN11QP54", 1, 1);
}

TEST_CASE("three-input gates", "[gates]") {
  for (const char* name : {"TOY256", "TOY256G2"}) {
  const Keys& keys = tfhe_test::keys(name, 0);
  std::uint64_t ctr = 1000;
  for (Gate3 g : {Gate3::majority, Gate3::parity, Gate3::carry})
    for (int v = 0; v < 8; ++v) {
      const bool x = v & 1, y = (v >> 1) & 1, z = (v >> 2) & 1;
      if (g == Gate3::carry && x && y) continue;  // carry's precondition: g and p exclusive
      const auto cx = encrypt_bit_deterministic(keys.secret, x, seed(7, ++ctr));
      const auto cy = encrypt_bit_deterministic(keys.secret, y, seed(7, ++ctr));
      const auto cz = encrypt_bit_deterministic(keys.secret, z, seed(7, ++ctr));
      const auto r = tfhe_test::pool().run([&](tempo::Task& t) { return eval_gate3(t, keys.evaluation, g, cx, cy, cz); });
      INFO(name);
      REQUIRE(decrypt_bit(keys.secret, r) == gate3_plain(g, x, y, z));
    }
  }
}

TEST_CASE("bootstrap refreshes and its noise stays within the prediction", "[gates][noise]") {
  for (const char* name : {"TOY256", "TOY256G2", "PN10QP27", "PN10QP27L3", "PN10QP27L3G2"}) {
    const bool toy = std::string(name).starts_with("TOY");
    if (!toy && !tfhe_test::real_sets()) continue;
    const Keys& keys = tfhe_test::keys(name, 1);
    const Params p = keys.secret.params();
    const NoiseEstimate est = p.noise();
    const int count = toy ? 64 : (tfhe_test::full() ? 64 : 8);
    double sum2 = 0;
    std::int64_t worst = 0;
    for (int i = 0; i < count; ++i) {
      const bool bit = i & 1;
      const auto c = encrypt_bit_deterministic(keys.secret, bit, seed(11, static_cast<std::uint64_t>(i)));
      const auto r = tfhe_test::pool().run([&](tempo::Task& t) { return eval_bootstrap(t, keys.evaluation, c); });
      REQUIRE(decrypt_bit(keys.secret, r) == bit);
      const std::int64_t e = noise_of(keys.secret, r, bit);
      sum2 += static_cast<double>(e * e);
      worst = std::max(worst, std::abs(e));
    }
    const double var = sum2 / count;
    INFO(name << " measured variance " << var << " predicted " << est.output_var << " worst " << worst);
    // Each sample within 6 predicted standard deviations; the sample variance within 2x.
    REQUIRE(static_cast<double>(worst) <= 6.0 * std::sqrt(est.output_var));
    REQUIRE(var <= 2.0 * est.output_var);
    REQUIRE(est.failure_per_gate < 1e-6);
  }
}

TEST_CASE("batch of gates on the pool matches single gates", "[gates][batch]") {
  const Keys& keys = tfhe_test::keys("TOY256", 2);
  std::vector<Ciphertext> xs, ys, out(24);
  std::vector<bool> px, py;
  for (std::uint64_t i = 0; i < 24; ++i) {
    px.push_back(i & 1);
    py.push_back((i >> 1) & 1);
    xs.push_back(encrypt_bit_deterministic(keys.secret, px.back(), seed(21, i)));
    ys.push_back(encrypt_bit_deterministic(keys.secret, py.back(), seed(22, i)));
  }
  const tempo::gpu::BatchReport rep = tfhe_test::pool().run(
      [&](tempo::Task& t) { return eval_gates(t, keys.evaluation, Gate::xor_, xs, ys, out, tempo::Backend::cpu); });
  CHECK(rep.ran_on == tempo::gpu::Placement::cpu);
  CHECK(rep.cpu_items == 24);
  for (std::size_t i = 0; i < 24; ++i) {
    REQUIRE(decrypt_bit(keys.secret, out[i]) == (px[i] != py[i]));
    const auto single = tfhe_test::pool().run([&](tempo::Task& t) { return eval_gate(t, keys.evaluation, Gate::xor_, xs[i], ys[i]); });
    REQUIRE(single == out[i]);  // deterministic: the same bytes either way
  }
  // The pool's group size (TEMPO_TFHE_CPU_GROUP: one bootstrap per task, or up to 16 sharing
  // each key read) changes no byte; a value outside 1..16 is refused by name.
  for (const char* group : {"1", "16"}) {
    const tfhe_test::EnvVar env("TEMPO_TFHE_CPU_GROUP", group);
    std::vector<Ciphertext> again(24);
    tfhe_test::pool().run(
        [&](tempo::Task& t) { eval_gates(t, keys.evaluation, Gate::xor_, xs, ys, again, tempo::Backend::cpu); });
    CHECK(again == out);
  }
  for (const char* bad : {"0", "17", "four"}) {
    const tfhe_test::EnvVar env("TEMPO_TFHE_CPU_GROUP", bad);
    std::vector<Ciphertext> again(24);
    CHECK_THROWS_WITH(tfhe_test::pool().run([&](tempo::Task& t) {
      eval_gates(t, keys.evaluation, Gate::xor_, xs, ys, again, tempo::Backend::cpu);
    }),
                      Catch::Contains("TEMPO_TFHE_CPU_GROUP"));
  }
}

TEST_CASE("encrypt_bit draws fresh randomness: the same bit twice gives two ciphertexts", "[gates][random]") {
  const Keys& keys = tfhe_test::keys("TOY256", 0);
  for (const bool bit : {false, true}) {
    const Ciphertext a = encrypt_bit(keys.secret, bit), b = encrypt_bit(keys.secret, bit);
    CHECK(a != b);
    CHECK(a.a != b.a);  // a shared mask would leak b's bit from a's
    CHECK(decrypt_bit(keys.secret, a) == bit);
    CHECK(decrypt_bit(keys.secret, b) == bit);
  }
  // encrypt_uint likewise; the deterministic forms repeat themselves.
  const std::uint64_t v[1] = {0xa5};
  const EncryptedUint x = encrypt_uint(keys.secret, v, 8), y = encrypt_uint(keys.secret, v, 8);
  CHECK(x.bits != y.bits);
  CHECK(decrypt_uint(keys.secret, x).at(0) == 0xa5);
  CHECK(decrypt_uint(keys.secret, y).at(0) == 0xa5);
  CHECK(encrypt_uint_deterministic(keys.secret, v, 8, seed(3)).bits ==
        encrypt_uint_deterministic(keys.secret, v, 8, seed(3)).bits);
}

TEST_CASE("single gates run on the pool whatever TEMPO_BACKEND says", "[gates][backend]") {
  const Keys& keys = tfhe_test::keys("TOY256", 0);
  const Ciphertext x = encrypt_bit_deterministic(keys.secret, true, seed(31)),
                   y = encrypt_bit_deterministic(keys.secret, false, seed(32));
  std::vector<Ciphertext> xs{x}, ys{y}, want(1), fresh(1);
  tfhe_test::pool().run([&](tempo::Task& t) {
    eval_gates(t, keys.evaluation, Gate::or_, xs, ys, want, tempo::Backend::cpu);
    eval_bootstraps(t, keys.evaluation, xs, fresh, tempo::Backend::cpu);
  });
  const tfhe_test::EnvVar env("TEMPO_BACKEND", "cuda");
  tfhe_test::pool().run([&](tempo::Task& t) {
    CHECK(eval_gate(t, keys.evaluation, Gate::or_, x, y) == want[0]);
    CHECK(eval_bootstrap(t, keys.evaluation, x) == fresh[0]);
    CHECK(decrypt_bit(keys.secret, eval_gate3(t, keys.evaluation, Gate3::majority, x, y, x)));
  });
  // Batches honour it: where CUDA cannot run they fail at once.
  if (!tempo::gpu::available(tempo::Backend::cuda)) {
    std::vector<Ciphertext> out(1);
    CHECK_THROWS_AS(
        tfhe_test::pool().run([&](tempo::Task& t) { eval_gates(t, keys.evaluation, Gate::or_, xs, ys, out); }),
        std::runtime_error);
  }
}

TEST_CASE("gate names: gate_name's spelling, any case, a trailing underscore", "[gates]") {
  for (Gate g : {Gate::and_, Gate::or_, Gate::xor_, Gate::nand, Gate::nor, Gate::xnor}) {
    CHECK(parse_gate(gate_name(g)) == g);
    std::string upper(gate_name(g));
    for (char& c : upper) c = static_cast<char>(c - 'a' + 'A');
    CHECK(parse_gate(upper) == g);
    CHECK(parse_gate(std::string(gate_name(g)) + "_") == g);
  }
  CHECK_THROWS_WITH(parse_gate("nandd"), Catch::Contains("'nandd'") && Catch::Contains("and, or, xor, nand, nor, xnor"));
}
