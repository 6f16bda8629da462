// The GPU kernels' per-thread code (<tempo/keccak/detail/device.hpp>), compiled for the host
// and checked against tempo::keccak: runs everywhere, GPU or not.
#include <cstring>

#include <tempo/keccak/detail/device.hpp>

#include "helpers.hpp"

using namespace tempo;
using keccak::Algorithm;
namespace d = tempo::keccak::cuda;

namespace {
d::SpongeSpec spec(Algorithm a, std::size_t out) {
  d::SpongeSpec s;
  s.rate = static_cast<std::uint32_t>(keccak::rate_bytes(a));
  s.rounds = static_cast<std::uint32_t>(keccak::permutation_rounds(a));
  s.domain = (a == Algorithm::sha3_224 || a == Algorithm::sha3_256 || a == Algorithm::sha3_384 ||
              a == Algorithm::sha3_512)
                 ? 0x06
                 : 0x1F;
  s.out_bytes = static_cast<std::uint32_t>(out);
  return s;
}
}  // namespace

TEST_CASE("kernel sponge code matches tempo::keccak around every rate boundary", "[gpu][kernel-logic]") {
  std::mt19937_64 rng(1234);
  int checked = 0;
  for (Algorithm a : gtest::kAll) {
    if (!keccak::gpu_supports(a)) continue;
    const std::size_t r = keccak::rate_bytes(a);
    std::vector<std::size_t> lens{0, 1, 7, 8, 9, r - 9, r - 8, r - 1, r, r + 1, 2 * r - 1, 2 * r, 2 * r + 1, 5000};
    for (int k = 0; k < 20; ++k) lens.push_back(gtest::boundary_length(rng, r) % 20000);
    for (std::size_t len : lens) {
      const std::size_t ob = gtest::out_bytes_for(a, rng);
      std::vector<std::uint8_t> msg(len + d::kLoadPadding);
      for (auto& x : msg) x = static_cast<std::uint8_t>(rng());
      std::vector<std::uint8_t> want(ob), got(ob + 1, 0xEE);
      keccak::hash(a, {msg.data(), len}, want);
      d::hash_message(msg.data(), len, got.data(), spec(a, ob));
      INFO(keccak::algorithm_name(a) << " len " << len << " out " << ob);
      CHECK(std::vector<std::uint8_t>(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(ob)) == want);
      CHECK(got[ob] == 0xEE);  // nothing written past the digest
      ++checked;
    }
  }
  CHECK(checked > 200);
}

TEST_CASE("specialised 32-byte kernel code matches tempo::keccak", "[gpu][kernel-logic]") {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 50; ++trial) {
    std::uint8_t msg[32];
    for (auto& x : msg) x = static_cast<std::uint8_t>(rng());
    std::uint64_t in[4], out[4];
    std::memcpy(in, msg, 32);
    auto check = [&](Algorithm a, auto fn, std::uint64_t domain) {
      fn(in, out, domain);
      std::uint8_t want[32];
      keccak::hash(a, {msg, 32}, want);
      CHECK(std::memcmp(out, want, 32) == 0);
    };
    check(Algorithm::sha3_256, d::hash32_to_32<17, 24>, 0x06);
    check(Algorithm::shake256, d::hash32_to_32<17, 24>, 0x1F);
    check(Algorithm::shake128, d::hash32_to_32<21, 24>, 0x1F);
    check(Algorithm::turboshake128, d::hash32_to_32<21, 12>, 0x1F);
    check(Algorithm::turboshake256, d::hash32_to_32<17, 12>, 0x1F);
  }
}

TEST_CASE("unaligned message starts are read correctly", "[gpu][kernel-logic]") {
  std::mt19937_64 rng(5);
  std::vector<std::uint8_t> buf(4096 + d::kLoadPadding);
  for (auto& x : buf) x = static_cast<std::uint8_t>(rng());
  for (std::size_t start = 0; start < 16; ++start) {
    for (std::size_t len : {5, 135, 136, 137, 300}) {
      std::uint8_t want[32], got[32];
      keccak::hash(Algorithm::shake256, {buf.data() + start, len}, want);
      d::hash_message(buf.data() + start, len, got, spec(Algorithm::shake256, 32));
      CHECK(std::memcmp(want, got, 32) == 0);
    }
  }
}
