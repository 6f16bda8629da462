// Known answers: the deterministic v2 vectors (keys, witness, signature) and the NIST KATs
// (keygen + sign from NIST's CTR_DRBG, then verify), all byte-exact against faest-ref 2.0.5.
#include <catch2/catch.hpp>

#include <tempo/faest.hpp>

#include "kat.hpp"

using tempo::faest::Params;

namespace {

struct SetInfo {
  Params p;
  const char* section;
  const char* rsp;
};
const SetInfo kSets[] = {{Params::faest_128f, "faest_128f", "PQCsignKAT_faest_128f.rsp"},
                         {Params::faest_128s, "faest_128s", "PQCsignKAT_faest_128s.rsp"}};

void check_nist_entry(Params p, const faest_test::RspEntry& e) {
  INFO("count = " << e.count);
  faest_test::CtrDrbg drbg(e.seed);
  auto rnd = [&](std::span<std::uint8_t> out) { drbg.randombytes(out.data(), out.size()); };
  tempo::faest::KeyPair kp = tempo::faest::keygen(p, rnd);
  REQUIRE(kp.public_key == e.pk);
  REQUIRE(kp.secret_key == e.sk);
  std::uint8_t rho[16];
  drbg.randombytes(rho, sizeof rho);
  const auto sig = tempo::faest::sign_deterministic(p, kp.secret_key, e.msg, rho);
  REQUIRE(e.sm.size() == e.msg.size() + sig.size());
  REQUIRE(std::equal(e.msg.begin(), e.msg.end(), e.sm.begin()));
  REQUIRE(std::equal(sig.begin(), sig.end(), e.sm.begin() + std::ptrdiff_t(e.msg.size())));
  REQUIRE(tempo::faest::verify(p, kp.public_key, e.msg, sig));
}

void check_v2(const SetInfo& s) {
  const auto v = faest_test::read_v2_vectors();
  const auto rho = faest_test::hex(v.at("").at("rho"));
  const auto msg = faest_test::hex(v.at("").at("msg"));
  const auto& sec = v.at(s.section);
  const auto sk = faest_test::hex(sec.at("sk"));
  const auto pk = faest_test::hex(sec.at("pk"));
  const auto sig = faest_test::hex(sec.at("signature"));
  REQUIRE(tempo::faest::sign_deterministic(s.p, sk, msg, rho) == sig);
  REQUIRE(tempo::faest::verify(s.p, pk, msg, sig));
}

}  // namespace

// For the slow instruction sets (the portable one under sanitizers): one v2 vector and one
// NIST vector per set; TEMPO_FAEST_QUICK=1 keeps to FAEST-128f.
TEST_CASE("Known answers on the selected instruction set, a few", "[kat-portable]") {
  INFO("ISA " << tempo::faest::cpu_isa_name());
  for (const auto& s : kSets) {
    if (faest_test::quick() && s.p != Params::faest_128f) continue;
    INFO(s.section);
    check_v2(s);
    check_nist_entry(s.p, faest_test::read_rsp(s.rsp).at(0));
  }
}

TEST_CASE("v2 deterministic vectors: keys, witness, signature", "[kat]") {
  const auto v = faest_test::read_v2_vectors();
  const auto rho = faest_test::hex(v.at("").at("rho"));
  const auto msg = faest_test::hex(v.at("").at("msg"));
  for (const auto& s : kSets) {
    INFO(s.section);
    const auto& sec = v.at(s.section);
    const auto sk = faest_test::hex(sec.at("sk"));
    const auto pk = faest_test::hex(sec.at("pk"));
    const auto sig = faest_test::hex(sec.at("signature"));
    // the "f" set shares the "s" set's keys and witness
    const auto& wsec = v.at(s.p == Params::faest_128f ? "faest_128s" : s.section);
    REQUIRE(tempo::faest::extend_witness(s.p, sk) == faest_test::hex(wsec.at("witness")));
    REQUIRE(std::vector<std::uint8_t>(sk.begin(), sk.begin() + 16) ==
            std::vector<std::uint8_t>(pk.begin(), pk.begin() + 16));
    const auto got = tempo::faest::sign_deterministic(s.p, sk, msg, rho);
    REQUIRE(got.size() == tempo::faest::signature_size(s.p));
    REQUIRE(got == sig);
    REQUIRE(tempo::faest::verify(s.p, pk, msg, sig));
  }
}

TEST_CASE("NIST KATs: keygen, sign and verify match (a few; TEMPO_FAEST_FULL=1 for all 100)", "[kat]") {
  const std::size_t n = faest_test::full_sweep() ? 100 : 3;
  for (const auto& s : kSets) {
    INFO(s.rsp);
    const auto entries = faest_test::read_rsp(s.rsp);
    REQUIRE(entries.size() == 100);
    for (std::size_t i = 0; i < n; ++i) check_nist_entry(s.p, entries[i]);
  }
}

TEST_CASE("NIST KATs: all 100 per set", "[kat-full]") {
  for (const auto& s : kSets) {
    INFO(s.rsp);
    const auto entries = faest_test::read_rsp(s.rsp);
    REQUIRE(entries.size() == 100);
    for (const auto& e : entries) check_nist_entry(s.p, e);
  }
}
