// The API around the known answers: names, sizes, length errors, rejection of modified
// signatures and keys, OS-random signing, and the PKP relation v2.1.0's signing leaves out.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include <tempo/perk.hpp>

#include "core.hpp"
#include "field.hpp"
#include "kat.hpp"

using tempo::perk::Params;

namespace {

struct Signed {
  Params p;
  perk_test::RspEntry e;
  std::vector<std::uint8_t> sig;
};
Signed kat_signature(Params p, std::size_t index = 0) {
  Signed s{p, perk_test::read_rsp(std::string("PQCsignKAT_") + tempo::perk::name(p) + ".rsp").at(index), {}};
  s.sig.assign(s.e.sm.begin(), s.e.sm.end() - std::ptrdiff_t(s.e.msg.size()));
  return s;
}

}  // namespace

TEST_CASE("Names, parsing and sizes", "[scheme]") {
  REQUIRE(tempo::perk::all_params().size() == 18);
  for (Params p : tempo::perk::all_params()) {
    const std::string n = tempo::perk::name(p);
    REQUIRE(tempo::perk::parse_params(n) == p);
    std::string up;
    for (char c : n) up += (c == '-') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    REQUIRE(tempo::perk::parse_params(up) == p);
    REQUIRE(tempo::perk::parse_params(n.substr(5)) == p);  // without "perk-"
    REQUIRE(tempo::perk::secret_key_size(p) == tempo::perk::public_key_size(p) + tempo::perk::keygen_seed_size(p) / 3);
  }
  REQUIRE(tempo::perk::parse_params("perk_1_fast_aes_aes") == Params::perk_1_fast_aes_aes);
  REQUIRE(tempo::perk::parse_params("PERK-5-short-keccak-keccak") == Params::perk_5_short_keccak_keccak);
  REQUIRE_THROWS_WITH(tempo::perk::parse_params("perk-2-fast-aes_aes"),
                      Catch::Contains("perk-2-fast-aes_aes") && Catch::Contains("perk-1-fast-aes_aes") &&
                          Catch::Contains("perk-5-short-keccak_keccak"));
  REQUIRE(tempo::perk::signature_size(Params::perk_1_fast_aes_aes) == 4312);
  REQUIRE(tempo::perk::signature_size(Params::perk_1_short_keccak_keccak) == 3473);
  REQUIRE(tempo::perk::signature_size(Params::perk_3_fast_aes_keccak) == 10423);
  REQUIRE(tempo::perk::signature_size(Params::perk_3_short_aes_aes) == 8311);
  REQUIRE(tempo::perk::signature_size(Params::perk_5_fast_aes_aes) == 18216);
  REQUIRE(tempo::perk::signature_size(Params::perk_5_short_aes_aes) == 14830);
  REQUIRE(tempo::perk::public_key_size(Params::perk_3_fast_aes_aes) == 151);
  REQUIRE(tempo::perk::secret_key_size(Params::perk_5_fast_aes_aes) == 227);
  REQUIRE(tempo::perk::sign_randomness_size(Params::perk_3_fast_aes_aes) == 48);
}

TEST_CASE("Wrong lengths throw std::invalid_argument naming the problem", "[scheme]") {
  const Params p = Params::perk_1_fast_aes_aes;
  const Signed s = kat_signature(p);
  std::vector<std::uint8_t> sk = s.e.sk, pk = s.e.pk, sig = s.sig;
  std::vector<std::uint8_t> rand(32, 1);
  sk.pop_back();
  REQUIRE_THROWS_WITH(tempo::perk::sign_deterministic(p, sk, s.e.msg, rand),
                      "tempo::perk: secret key must be 120 bytes, got 119");
  REQUIRE_THROWS_AS(tempo::perk::sign(p, sk, s.e.msg), std::invalid_argument);
  pk.push_back(0);
  REQUIRE_THROWS_WITH(tempo::perk::verify(p, pk, s.e.msg, s.sig), "tempo::perk: public key must be 104 bytes, got 105");
  sig.pop_back();
  REQUIRE_THROWS_WITH(tempo::perk::verify(p, s.e.pk, s.e.msg, sig), "tempo::perk: signature must be 4312 bytes, got 4311");
  std::vector<std::uint8_t> out(100);
  REQUIRE_THROWS_WITH(tempo::perk::sign_into_deterministic(p, s.e.sk, s.e.msg, rand, out),
                      "tempo::perk: signature buffer must be 4312 bytes, got 100");
  REQUIRE_THROWS_WITH(tempo::perk::keygen_deterministic(p, rand), "tempo::perk: keygen seed must be 48 bytes, got 32");
  // a secret key whose public part has padding bits set (11 n = 1012 bits at level 3)
  const Signed s3 = kat_signature(Params::perk_3_fast_aes_aes);
  std::vector<std::uint8_t> bad = s3.e.sk;
  bad.back() |= 0x80;
  REQUIRE_THROWS_WITH(tempo::perk::sign_deterministic(Params::perk_3_fast_aes_aes, bad, s3.e.msg, rand),
                      "tempo::perk: malformed secret key (nonzero padding bits in its public key)");
}

TEST_CASE("Modified signatures, messages and keys do not verify", "[scheme]") {
  for (Params p : {Params::perk_1_fast_aes_aes, Params::perk_1_short_keccak_keccak, Params::perk_3_fast_aes_keccak,
                   Params::perk_5_fast_keccak_keccak}) {
    INFO(tempo::perk::name(p));
    const tempo::perk::detail::ParamSet& ps = tempo::perk::detail::param_set(p);
    const Signed s = kat_signature(p, 1);
    REQUIRE(tempo::perk::verify(p, s.e.pk, s.e.msg, s.sig));
    // one flipped bit in each field: c, u_tilde, pdecom, com_e, ctr, salt, t, a, ch3
    const std::size_t bits = ps.off_bits() * 8;
    const std::size_t positions[] = {3,
                                     ps.off_u_tilde() * 8 + 5,
                                     ps.off_pdecom() * 8 + 9,
                                     ps.off_com() * 8 + 1,
                                     ps.off_ctr() * 8,
                                     ps.off_salt() * 8 + 7,
                                     bits + 2,
                                     bits + std::size_t{ps.n} * ps.l_row() + 4,
                                     bits + std::size_t{ps.n} * ps.l_row() + std::size_t{ps.d} * ps.ext * 11 + 3,
                                     ps.sig_bits() - 1};
    for (std::size_t bit : positions) {
      INFO("bit " << bit);
      std::vector<std::uint8_t> sig = s.sig;
      sig[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      REQUIRE_FALSE(tempo::perk::verify(p, s.e.pk, s.e.msg, sig));
    }
    // the message, the public key's H_seed and x, another vector's key
    std::vector<std::uint8_t> msg = s.e.msg;
    msg[0] ^= 1;
    REQUIRE_FALSE(tempo::perk::verify(p, s.e.pk, msg, s.sig));
    REQUIRE_FALSE(tempo::perk::verify(p, s.e.pk, {}, s.sig));
    std::vector<std::uint8_t> pk = s.e.pk;
    pk[0] ^= 1;
    REQUIRE_FALSE(tempo::perk::verify(p, pk, s.e.msg, s.sig));
    pk = s.e.pk;
    pk[ps.lambda_bytes + 3] ^= 4;
    REQUIRE_FALSE(tempo::perk::verify(p, pk, s.e.msg, s.sig));
    REQUIRE_FALSE(tempo::perk::verify(p, kat_signature(p, 2).e.pk, s.e.msg, s.sig));
    // padding bits: public key (when 11 n is not a multiple of 8) and signature
    if ((11 * ps.n) % 8 != 0) {
      pk = s.e.pk;
      pk.back() |= 0x80;
      REQUIRE_FALSE(tempo::perk::verify(p, pk, s.e.msg, s.sig));
    }
    if (ps.sig_bits() % 8 != 0) {
      std::vector<std::uint8_t> sig = s.sig;
      sig.back() |= 0x80;
      REQUIRE_FALSE(tempo::perk::verify(p, s.e.pk, s.e.msg, sig));
    }
    // a nonzero seed in the unused part of pdecom; all-zero and all-one signatures
    std::vector<std::uint8_t> sig = s.sig;
    sig[ps.off_com() - 1] ^= 1;
    REQUIRE_FALSE(tempo::perk::verify(p, s.e.pk, s.e.msg, sig));
    REQUIRE_FALSE(tempo::perk::verify(p, s.e.pk, s.e.msg, std::vector<std::uint8_t>(s.sig.size(), 0)));
    REQUIRE_FALSE(tempo::perk::verify(p, s.e.pk, s.e.msg, std::vector<std::uint8_t>(s.sig.size(), 0xFF)));
  }
}

TEST_CASE("Keys and signatures from OS randomness", "[scheme]") {
  for (Params p : {Params::perk_1_fast_keccak_keccak, Params::perk_3_fast_aes_aes}) {
    INFO(tempo::perk::name(p));
    const tempo::perk::KeyPair kp = tempo::perk::keygen(p);
    REQUIRE(kp.public_key.size() == tempo::perk::public_key_size(p));
    REQUIRE(kp.secret_key.size() == tempo::perk::secret_key_size(p));
    const std::vector<std::uint8_t> msg = {'p', 'e', 'r', 'k'};
    const auto s1 = tempo::perk::sign(p, kp.secret_key, msg);
    std::vector<std::uint8_t> s2(tempo::perk::signature_size(p));
    tempo::perk::sign_into(p, kp.secret_key, msg, s2);
    REQUIRE(s1 != s2);  // fresh rand each time
    REQUIRE(tempo::perk::verify(p, kp.public_key, msg, s1));
    REQUIRE(tempo::perk::verify(p, kp.public_key, msg, s2));
  }
}

// v2.1.0's sign proves the PKP relation with pi = 0 and H = 0 (see core.hpp): the KATs hold
// exactly that. With the key's real pi and H (override_key), the same proof machinery proves
// and checks H x' = 0 for x'[pi[j]] = x[j], which shows the algebra is complete; each kind of
// signature fails the other kind of check, and a wrong pi does not prove it.
TEST_CASE("The PKP relation with the key's real permutation and matrix", "[scheme]") {
  using namespace tempo::perk::detail;
  for (Params p : {Params::perk_1_fast_aes_aes, Params::perk_3_fast_keccak_keccak, Params::perk_5_fast_aes_keccak}) {
    INFO(tempo::perk::name(p));
    const ParamSet& ps = param_set(p);
    const Kernels& k = active_kernels();
    std::vector<std::uint8_t> seed(3 * ps.lambda_bytes);
    for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(7 * i + 1);
    ExpandedKey ek;
    expand_key(ps, seed.data(), ek);
    // H x' = 0 for x' = x o pi^-1 (x'[pi[j]] = x[j])
    std::vector<std::uint16_t> xk(ps.n);
    for (unsigned j = 0; j < ps.n; ++j) xk[ek.perm[j]] = ek.x[j];
    for (unsigned r = 0; r < ps.m; ++r) {
      std::uint16_t acc = 0;
      for (unsigned j = 0; j < ps.n; ++j) acc ^= gf11_mul(ek.h[std::size_t{r} * ps.n + j], xk[j]);
      REQUIRE(acc == 0);
    }
    const std::vector<std::uint8_t> msg = {1, 2, 3}, rand(2 * ps.lambda_bytes, 9);
    std::vector<std::uint8_t> real(ps.sig_bytes()), v210(ps.sig_bytes());
    const PkpKey key{ek.perm.data(), ek.h.data(), ek.x.data()};
    sign_core(ps, k, ek.sk.data(), msg.data(), msg.size(), rand.data(), rand.size(), real.data(), SignOptions{&key});
    sign_core(ps, k, ek.sk.data(), msg.data(), msg.size(), rand.data(), rand.size(), v210.data());
    REQUIRE(verify_core(ps, k, ek.pk.data(), msg.data(), msg.size(), real.data(), ek.h.data()));
    REQUIRE(verify_core(ps, k, ek.pk.data(), msg.data(), msg.size(), v210.data()));
    REQUIRE_FALSE(verify_core(ps, k, ek.pk.data(), msg.data(), msg.size(), real.data()));
    REQUIRE_FALSE(verify_core(ps, k, ek.pk.data(), msg.data(), msg.size(), v210.data(), ek.h.data()));
    // a wrong permutation does not prove the real relation
    std::vector<std::uint8_t> wrong = ek.perm;
    std::swap(wrong[0], wrong[1]);
    const PkpKey bad{wrong.data(), ek.h.data(), ek.x.data()};
    sign_core(ps, k, ek.sk.data(), msg.data(), msg.size(), rand.data(), rand.size(), real.data(), SignOptions{&bad});
    REQUIRE_FALSE(verify_core(ps, k, ek.pk.data(), msg.data(), msg.size(), real.data(), ek.h.data()));
  }
}

// What the previous test case shows, from the outside: v2.1.0's verify never looks at x or H
// (it checks the relation with H = 0), so a "secret key" made of any perm_seed and someone
// else's public key signs for that public key. The known answers depend on this; see
// workloads/perk/README.md ("Security").
TEST_CASE("v2.1.0 as shipped: a signature made without the secret key verifies", "[scheme]") {
  for (Params p : {Params::perk_1_fast_aes_aes, Params::perk_5_short_keccak_keccak}) {
    INFO(tempo::perk::name(p));
    const Signed s = kat_signature(p, 4);
    std::vector<std::uint8_t> forged_sk(tempo::perk::secret_key_size(p), 0x5A);  // not the key's perm_seed
    std::copy(s.e.pk.begin(), s.e.pk.end(), forged_sk.end() - std::ptrdiff_t(s.e.pk.size()));
    const std::vector<std::uint8_t> msg = {'n', 'o', ' ', 'k', 'e', 'y'};
    const auto sig = tempo::perk::sign(p, forged_sk, msg);
    REQUIRE(tempo::perk::verify(p, s.e.pk, msg, sig));
  }
}

TEST_CASE("TEMPO_PERK_ISA: accepted values and errors", "[scheme]") {
  const char* old = std::getenv("TEMPO_PERK_ISA");
  const std::string saved = old ? old : "";
  const Signed s = kat_signature(Params::perk_1_fast_aes_aes);
  ::setenv("TEMPO_PERK_ISA", "Portable", 1);
  REQUIRE(std::string(tempo::perk::cpu_isa_name()) == "portable");
  REQUIRE(tempo::perk::verify(s.p, s.e.pk, s.e.msg, s.sig));
  ::setenv("TEMPO_PERK_ISA", "avx9", 1);
  REQUIRE_THROWS_WITH(tempo::perk::cpu_isa_name(), Catch::Contains("TEMPO_PERK_ISA") && Catch::Contains("avx9"));
  REQUIRE_THROWS_AS(tempo::perk::verify(s.p, s.e.pk, s.e.msg, s.sig), std::invalid_argument);
  REQUIRE_THROWS_AS(tempo::perk::keygen(s.p), std::invalid_argument);
  if (old)
    ::setenv("TEMPO_PERK_ISA", saved.c_str(), 1);
  else
    ::unsetenv("TEMPO_PERK_ISA");
  REQUIRE(tempo::perk::verify(s.p, s.e.pk, s.e.msg, s.sig));
}
