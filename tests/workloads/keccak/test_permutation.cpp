// The 4-way permutation (AVX-512, AVX2 or portable) must equal four single-state
// permutations; TEMPO_KECCAK_ISA's choice and its errors.
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/keccak/batch.hpp>
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
  INFO("isa: " << tc::permutation_isa_name());
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

TEST_CASE("keccak_*_x8 equals eight single-state permutations", "[permutation]") {
  std::mt19937_64 rng(4242);
  INFO("isa: " << tc::permutation_isa_name());
  for (int trial = 0; trial < 200; ++trial) {
    std::uint64_t s[8][25], ref[8][25];
    for (auto& st : s)
      for (auto& lane : st) lane = rng();
    std::memcpy(ref, s, sizeof s);
    std::uint64_t* ptrs[8] = {s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]};
    if (trial % 2 == 1) {
      tc::keccak_p1600_12_x8(ptrs);
      for (auto& r : ref) tc::keccak_p1600_12(r);
    } else {
      tc::keccak_f1600_x8(ptrs);
      for (auto& r : ref) tc::keccak_f1600(r);
    }
    REQUIRE(std::memcmp(s, ref, sizeof s) == 0);
  }
}

TEST_CASE("the 8-way AVX-512 kernel equals eight single-state permutations", "[permutation]") {
  if (!tc::detail::cpu_has_avx512vl()) return;  // the stub returns false; nothing to compare
  std::mt19937_64 rng(99);
  for (int rounds : {12, 24}) {
    for (int trial = 0; trial < 100; ++trial) {
      std::uint64_t lanes[200], one[25];
      for (auto& l : lanes) l = rng();
      std::uint64_t ref[200];
      for (int j = 0; j < 8; ++j) {
        for (int i = 0; i < 25; ++i) one[i] = lanes[8 * i + j];
        tc::detail::permute(one, rounds);
        for (int i = 0; i < 25; ++i) ref[8 * i + j] = one[i];
      }
      REQUIRE(tc::detail::permute_x8_interleaved_avx512(lanes, rounds));
      REQUIRE(std::memcmp(lanes, ref, sizeof lanes) == 0);
    }
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

TEST_CASE("the instruction set is reported", "[permutation]") {
  const std::string name = tc::permutation_isa_name();
  CHECK((name == "avx512" || name == "avx2" || name == "portable"));
  if (!tc::detail::cpu_has_avx2()) CHECK(name == "portable");
  if (!tc::detail::cpu_has_avx512vl()) CHECK(name != "avx512");
}

// Hidden: its own ctest entry (keccak.isa-env) runs it alone, because the choice is made
// once per process, at the first 4-way permutation: the bad value must come first.
TEST_CASE("a bad TEMPO_KECCAK_ISA is an error naming the variable and the accepted values", "[.][isa-env]") {
  const char* before = std::getenv("TEMPO_KECCAK_ISA");
  const std::string saved = before ? before : "";
  ::setenv("TEMPO_KECCAK_ISA", "avx3", 1);
  const std::string named = "TEMPO_KECCAK_ISA='avx3' is not accepted (expected one of: portable, avx2, avx512, auto)";
  CHECK_THROWS_WITH(tc::permutation_isa_name(), Catch::Contains(named));
  std::uint64_t s[4][25] = {};
  std::uint64_t* states[4] = {s[0], s[1], s[2], s[3]};
  CHECK_THROWS_WITH(tc::keccak_f1600_x4(states), Catch::Contains(named));
  // Four equal messages go through the 4-way permutation together.
  const std::vector<std::uint8_t> data(4 * 32, 0x61);
  const std::vector<std::uint64_t> offsets = {0, 32, 64, 96, 128};
  std::vector<std::uint8_t> out(4 * 32);
  CHECK_THROWS_WITH(tc::hash_batch_cpu_serial(tc::Algorithm::shake256, {data, offsets}, 32, out),
                    Catch::Contains(named));
  // A good value, in any case, then works: nothing was chosen while the value was bad.
  ::setenv("TEMPO_KECCAK_ISA", "Portable", 1);
  CHECK(std::string(tc::permutation_isa_name()) == "portable");
  CHECK_NOTHROW(tc::hash_batch_cpu_serial(tc::Algorithm::shake256, {data, offsets}, 32, out));
  // Chosen once: the variable is not read again.
  ::setenv("TEMPO_KECCAK_ISA", "avx3", 1);
  CHECK(std::string(tc::permutation_isa_name()) == "portable");
  if (before) ::setenv("TEMPO_KECCAK_ISA", saved.c_str(), 1);
  else ::unsetenv("TEMPO_KECCAK_ISA");
}
