// The 4-way permutation (AVX2 or portable) must equal four single-state permutations.
#include <cstring>
#include <random>

#include <catch2/catch.hpp>
#include <tempo/keccak/detail/x4.hpp>
#include <tempo/keccak/permutation.hpp>

namespace tc = tempo::keccak;

namespace {

void random_states(std::mt19937_64& rng, std::uint64_t (&s)[4][25]) {
  for (auto& st : s)
    for (auto& lane : st) lane = rng();
}

}  // namespace

TEST_CASE("keccak_*_x4 equals four single-state permutations", "[permutation]") {
  std::mt19937_64 rng(12345);
  INFO("backend: " << tc::keccak_backend_name());
  for (int trial = 0; trial < 200; ++trial) {
    std::uint64_t s[4][25], ref[4][25];
    random_states(rng, s);
    std::memcpy(ref, s, sizeof s);
    std::uint64_t* ptrs[4] = {s[0], s[1], s[2], s[3]};
    const bool twelve = trial % 2 == 1;
    if (twelve) {
      tc::keccak_p1600_12_x4(ptrs);
      for (auto& r : ref) tc::keccak_p1600_12(r);
    } else {
      tc::keccak_f1600_x4(ptrs);
      for (auto& r : ref) tc::keccak_f1600(r);
    }
    REQUIRE(std::memcmp(s, ref, sizeof s) == 0);
  }
}

TEST_CASE("interleaved 4-way kernels agree (portable vs AVX2 vs AVX-512VL)", "[permutation]") {
  std::mt19937_64 rng(777);
  for (int rounds : {12, 24}) {
    for (int trial = 0; trial < 100; ++trial) {
      std::uint64_t lanes[100], portable[100], dispatched[100];
      for (auto& l : lanes) l = rng();
      std::memcpy(portable, lanes, sizeof lanes);
      std::memcpy(dispatched, lanes, sizeof lanes);
      tc::detail::permute_x4_interleaved_portable(portable, rounds);
      tc::detail::permute_x4_interleaved(dispatched, rounds);
      REQUIRE(std::memcmp(portable, dispatched, sizeof lanes) == 0);
      // The portable kernel really computes four independent single-state permutations.
      for (int j = 0; j < 4; ++j) {
        std::uint64_t one[25];
        for (int i = 0; i < 25; ++i) one[i] = lanes[4 * i + j];
        tc::detail::permute(one, rounds);
        for (int i = 0; i < 25; ++i) REQUIRE(one[i] == portable[4 * i + j]);
      }
      if (tc::detail::cpu_has_avx2()) {
        std::uint64_t avx2[100];
        std::memcpy(avx2, lanes, sizeof lanes);
        REQUIRE(tc::detail::permute_x4_interleaved_avx2(avx2, rounds));
        REQUIRE(std::memcmp(portable, avx2, sizeof lanes) == 0);
      }
      if (tc::detail::cpu_has_avx512vl()) {
        std::uint64_t avx512[100];
        std::memcpy(avx512, lanes, sizeof lanes);
        REQUIRE(tc::detail::permute_x4_interleaved_avx512(avx512, rounds));
        REQUIRE(std::memcmp(portable, avx512, sizeof lanes) == 0);
      }
    }
  }
}

TEST_CASE("backend name is reported", "[permutation]") {
  const std::string name = tc::keccak_backend_name();
  CHECK((name == "avx512" || name == "avx2" || name == "portable"));
  if (!tc::detail::cpu_has_avx2()) CHECK(name == "portable");
  if (!tc::detail::cpu_has_avx512vl()) CHECK(name != "avx512");
}
