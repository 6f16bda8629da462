// Known-answer tests: FIPS 202 examples, RFC 9861 (TurboSHAKE, KT128/KT256), and the
// generated hashlib / Python-model files around rate and chunk boundaries.
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/keccak/keccak.hpp>

#include "vectors.hpp"

namespace tc = tempo::keccak;
using tempo_keccak_test::load_vectors;
using tempo_keccak_test::to_hex;
using tempo_keccak_test::Vector;

namespace {

// The two largest RFC messages (17^6 bytes = 23 MiB) are slow under sanitizers in Debug
// builds; TEMPO_KECCAK_QUICK=1 skips inputs over 2 MiB.
bool skip_large(const Vector& v) {
  const char* quick = std::getenv("TEMPO_KECCAK_QUICK");
  return quick != nullptr && std::string(quick) == "1" && v.message.size() > (2u << 20);
}

std::vector<std::uint8_t> tail(const Vector& v, const std::vector<std::uint8_t>& out) {
  if (v.compare_last == 0) return out;
  return {out.end() - static_cast<std::ptrdiff_t>(v.compare_last), out.end()};
}

std::uint8_t domain_of(const Vector& v) { return static_cast<std::uint8_t>(std::stoul(v.param.substr(2), nullptr, 16)); }

// Every entry point that can compute this vector, each checked separately.
void check(const Vector& v) {
  INFO(v.line.substr(0, 120));
  const tc::Algorithm a = tc::parse_algorithm(v.algorithm);
  std::vector<std::uint8_t> out(v.out_bytes);
  const std::span<const std::uint8_t> msg(v.message);
  const std::string want = to_hex(v.expected);

  if (a == tc::Algorithm::kt128 || a == tc::Algorithm::kt256) {
    const auto custom = tempo_keccak_test::message_from_spec(v.param.substr(2));
    if (a == tc::Algorithm::kt128)
      tc::kt128(msg, custom, out);
    else
      tc::kt256(msg, custom, out);
    CHECK(to_hex(tail(v, out)) == want);
    if (custom.empty()) {
      std::fill(out.begin(), out.end(), 0);
      tc::hash(a, msg, out);
      CHECK(to_hex(tail(v, out)) == want);
    }
    return;
  }

  std::uint8_t domain = 0x1F;
  if (a == tc::Algorithm::turboshake128 || a == tc::Algorithm::turboshake256) {
    domain = domain_of(v);
    (a == tc::Algorithm::turboshake128 ? tc::turboshake128 : tc::turboshake256)(msg, domain, out);
    CHECK(to_hex(tail(v, out)) == want);
  }
  if (domain == 0x1F) {
    std::fill(out.begin(), out.end(), 0);
    tc::hash(a, msg, out);
    CHECK(to_hex(tail(v, out)) == want);
  }
  switch (a) {
    case tc::Algorithm::sha3_224: tc::sha3_224(msg, std::span<std::uint8_t, 28>(out.data(), 28)); break;
    case tc::Algorithm::sha3_256: tc::sha3_256(msg, std::span<std::uint8_t, 32>(out.data(), 32)); break;
    case tc::Algorithm::sha3_384: tc::sha3_384(msg, std::span<std::uint8_t, 48>(out.data(), 48)); break;
    case tc::Algorithm::sha3_512: tc::sha3_512(msg, std::span<std::uint8_t, 64>(out.data(), 64)); break;
    case tc::Algorithm::shake128: tc::shake128(msg, out); break;
    case tc::Algorithm::shake256: tc::shake256(msg, out); break;
    default: break;
  }
  CHECK(to_hex(tail(v, out)) == want);

  tc::Keccak k(a, domain);
  k.absorb(msg);
  std::fill(out.begin(), out.end(), 0);
  k.squeeze(out);
  CHECK(to_hex(tail(v, out)) == want);
}

void check_file(const char* name) {
  const auto vectors = load_vectors(name);
  std::size_t checked = 0;
  for (const Vector& v : vectors) {
    if (skip_large(v)) continue;
    check(v);
    ++checked;
  }
  CHECK(checked > 0);
}

}  // namespace

TEST_CASE("FIPS 202 example values", "[kat]") { check_file("fips202_examples.txt"); }
TEST_CASE("RFC 9861 TurboSHAKE and KangarooTwelve vectors", "[kat]") { check_file("rfc9861.txt"); }
TEST_CASE("SHA3/SHAKE vs hashlib around rate boundaries", "[kat]") { check_file("hashlib_vectors.txt"); }
TEST_CASE("TurboSHAKE/KT around rate and chunk boundaries", "[kat]") { check_file("tree_vectors.txt"); }

TEST_CASE("Keccak-f[1600] of the zero state", "[kat][permutation]") {
  // First lanes of the FIPS 202 / Keccak reference "KeccakF-1600 intermediate values".
  std::uint64_t s[25] = {};
  tc::keccak_f1600(s);
  CHECK(s[0] == 0xF1258F7940E1DDE7ULL);
  CHECK(s[1] == 0x84D5CCF933C0478AULL);
  CHECK(s[2] == 0xD598261EA65AA9EEULL);
  CHECK(s[3] == 0xBD1547306F80494DULL);
}
