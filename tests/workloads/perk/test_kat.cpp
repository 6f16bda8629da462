// Known answers: the NIST KATs of the PERK v2.1.0 package (the first 10 vectors of each of the
// 18 sets): keygen from NIST's CTR_DRBG, then sign with the next draw, byte-exact, then verify;
// a flipped bit of each signature must not verify.
#include <catch2/catch.hpp>

#include <string>

#include <tempo/perk.hpp>

#include "kat.hpp"

using tempo::perk::Params;

namespace {

std::string rsp_name(Params p) { return std::string("PQCsignKAT_") + tempo::perk::name(p) + ".rsp"; }

void check_entry(Params p, const perk_test::RspEntry& e) {
  INFO(tempo::perk::name(p) << " count = " << e.count);
  perk_test::CtrDrbg drbg(e.seed);
  // keygen: three randombytes calls (H_seed, perm_seed, kernel seed)
  const std::size_t lb = tempo::perk::keygen_seed_size(p) / 3;
  std::vector<std::uint8_t> seed(3 * lb);
  for (std::size_t i = 0; i < 3; ++i) drbg.randombytes(seed.data() + i * lb, lb);
  const tempo::perk::KeyPair kp = tempo::perk::keygen_deterministic(p, seed);
  REQUIRE(kp.public_key == e.pk);
  REQUIRE(kp.secret_key == e.sk);
  // sign: one randombytes call (rand)
  std::vector<std::uint8_t> rand(tempo::perk::sign_randomness_size(p));
  drbg.randombytes(rand.data(), rand.size());
  const auto sig = tempo::perk::sign_deterministic(p, kp.secret_key, e.msg, rand);
  REQUIRE(sig.size() == tempo::perk::signature_size(p));
  REQUIRE(e.sm.size() == sig.size() + e.msg.size());  // sm = signature || message
  REQUIRE(std::equal(sig.begin(), sig.end(), e.sm.begin()));
  REQUIRE(std::equal(e.msg.begin(), e.msg.end(), e.sm.begin() + std::ptrdiff_t(sig.size())));
  REQUIRE(tempo::perk::verify(p, kp.public_key, e.msg, sig));
  // one flipped bit, at a different place for each vector
  std::vector<std::uint8_t> bad = sig;
  const std::size_t bit = (std::size_t(e.count) * 2654435761u + 12345u) % (8 * bad.size());
  bad[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
  INFO("flipped bit " << bit);
  REQUIRE_FALSE(tempo::perk::verify(p, kp.public_key, e.msg, bad));
}

void check_level(unsigned level) {
  const std::size_t n = perk_test::vectors_per_set();
  for (Params p : tempo::perk::all_params()) {
    if (tempo::perk::name(p)[5] != char('0' + level)) continue;
    const auto entries = perk_test::read_rsp(rsp_name(p));
    REQUIRE(entries.size() == 10);
    for (std::size_t i = 0; i < n; ++i) check_entry(p, entries[i]);
  }
}

}  // namespace

TEST_CASE("NIST KATs, level 1: keygen, sign byte-exact, verify", "[kat-l1]") { check_level(1); }
TEST_CASE("NIST KATs, level 3: keygen, sign byte-exact, verify", "[kat-l3]") { check_level(3); }
TEST_CASE("NIST KATs, level 5: keygen, sign byte-exact, verify", "[kat-l5]") { check_level(5); }

// keygen(p, RandomSource) draws as the NIST harness's randombytes calls do.
TEST_CASE("keygen from a random source gives the KAT keys", "[scheme]") {
  for (Params p : {Params::perk_1_fast_aes_aes, Params::perk_3_short_keccak_keccak, Params::perk_5_fast_aes_keccak}) {
    const auto e = perk_test::read_rsp(rsp_name(p)).at(3);
    perk_test::CtrDrbg drbg(e.seed);
    const tempo::perk::KeyPair kp = tempo::perk::keygen(p, [&](std::span<std::uint8_t> out) { drbg(out); });
    REQUIRE(kp.public_key == e.pk);
    REQUIRE(kp.secret_key == e.sk);
  }
}

// The portable kernels (TEMPO_PERK_ISA=portable in ctest's perk.portable-isa): the level-1
// sets, two vectors each (one with TEMPO_PERK_QUICK=1).
TEST_CASE("NIST KATs on the selected kernels, level 1, a few", "[kat-portable]") {
  INFO("kernels " << tempo::perk::cpu_isa_name());
  for (Params p : {Params::perk_1_fast_aes_aes, Params::perk_1_fast_aes_keccak, Params::perk_1_fast_keccak_keccak,
                   Params::perk_1_short_aes_aes}) {
    const auto entries = perk_test::read_rsp(rsp_name(p));
    for (std::size_t i = 0; i < (perk_test::vectors_per_set() < 10 ? 1u : 2u); ++i) check_entry(p, entries[i]);
  }
}
