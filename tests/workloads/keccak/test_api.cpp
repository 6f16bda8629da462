// Algorithm metadata and argument checking of the one-shot API.
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/keccak/keccak.hpp>

namespace tc = tempo::keccak;

TEST_CASE("algorithm names round-trip", "[api]") {
  for (int i = 0; i <= static_cast<int>(tc::Algorithm::kt256); ++i) {
    const auto a = static_cast<tc::Algorithm>(i);
    CHECK(tc::parse_algorithm(tc::algorithm_name(a)) == a);
  }
  CHECK(tc::parse_algorithm("sha3-256") == tc::Algorithm::sha3_256);
  CHECK(tc::parse_algorithm("SHA3_512") == tc::Algorithm::sha3_512);
  CHECK(tc::parse_algorithm("shake256") == tc::Algorithm::shake256);
  CHECK(tc::parse_algorithm("TurboSHAKE128") == tc::Algorithm::turboshake128);
  CHECK(tc::parse_algorithm("kt128") == tc::Algorithm::kt128);
  CHECK(tc::algorithm_name(tc::Algorithm::kt256) == "kt256");
}

TEST_CASE("hashlib's algorithm names are accepted, in any case", "[api]") {
  // Exactly as hashlib.algorithms_available spells them.
  CHECK(tc::parse_algorithm("sha3_224") == tc::Algorithm::sha3_224);
  CHECK(tc::parse_algorithm("sha3_256") == tc::Algorithm::sha3_256);
  CHECK(tc::parse_algorithm("sha3_384") == tc::Algorithm::sha3_384);
  CHECK(tc::parse_algorithm("sha3_512") == tc::Algorithm::sha3_512);
  CHECK(tc::parse_algorithm("shake_128") == tc::Algorithm::shake128);
  CHECK(tc::parse_algorithm("shake_256") == tc::Algorithm::shake256);
  // docs/guide/04-crypto-batches.md's example, and its '-' form.
  CHECK(tc::parse_algorithm("SHAKE_256") == tc::Algorithm::shake256);
  CHECK(tc::parse_algorithm("Shake-128") == tc::Algorithm::shake128);
  // The aliases are the SHAKEs' only: no other name grows a separator.
  CHECK_THROWS_AS(tc::parse_algorithm("kt_128"), std::invalid_argument);
  CHECK_THROWS_AS(tc::parse_algorithm("shake__256"), std::invalid_argument);
  CHECK_THROWS_WITH(tc::parse_algorithm("shake_512"), Catch::Contains("shake_256") && Catch::Contains("kt256"));
}

TEST_CASE("bad algorithm names are named in the error", "[api]") {
  try {
    tc::parse_algorithm("sha3-1024");
    FAIL("no exception");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("sha3-1024") != std::string::npos);
  }
  CHECK_THROWS_AS(tc::parse_algorithm(""), std::invalid_argument);
  CHECK_THROWS_AS(tc::algorithm_name(static_cast<tc::Algorithm>(99)), std::invalid_argument);
}

TEST_CASE("algorithm parameters", "[api]") {
  CHECK(tc::rate_bytes(tc::Algorithm::sha3_224) == 144);
  CHECK(tc::rate_bytes(tc::Algorithm::sha3_256) == 136);
  CHECK(tc::rate_bytes(tc::Algorithm::sha3_384) == 104);
  CHECK(tc::rate_bytes(tc::Algorithm::sha3_512) == 72);
  CHECK(tc::rate_bytes(tc::Algorithm::shake128) == 168);
  CHECK(tc::rate_bytes(tc::Algorithm::shake256) == 136);
  CHECK(tc::rate_bytes(tc::Algorithm::turboshake128) == 168);
  CHECK(tc::rate_bytes(tc::Algorithm::kt256) == 136);
  CHECK(tc::fixed_digest_bytes(tc::Algorithm::sha3_384) == 48);
  CHECK(tc::fixed_digest_bytes(tc::Algorithm::shake128) == 0);
  CHECK(tc::is_xof(tc::Algorithm::kt128));
  CHECK_FALSE(tc::is_xof(tc::Algorithm::sha3_224));
}

TEST_CASE("hash() checks the digest size; TurboSHAKE checks its domain", "[api]") {
  std::vector<std::uint8_t> msg(10), out31(31), out32(32);
  CHECK_THROWS_AS(tc::hash(tc::Algorithm::sha3_256, msg, out31), std::invalid_argument);
  CHECK_NOTHROW(tc::hash(tc::Algorithm::sha3_256, msg, out32));
  CHECK_NOTHROW(tc::hash(tc::Algorithm::shake128, msg, out31));
  CHECK_NOTHROW(tc::hash(tc::Algorithm::kt256, msg, std::span<std::uint8_t>{}));
  CHECK_THROWS_AS(tc::turboshake128(msg, 0x00, out32), std::invalid_argument);
  CHECK_THROWS_AS(tc::turboshake256(msg, 0x80, out32), std::invalid_argument);
  // hash() with turboshake uses domain 0x1F
  std::vector<std::uint8_t> a(32), b(32);
  tc::hash(tc::Algorithm::turboshake128, msg, a);
  tc::turboshake128(msg, 0x1F, b);
  CHECK(a == b);
}
