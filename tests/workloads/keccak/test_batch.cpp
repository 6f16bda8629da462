// Batch hashing (serial kernel and fork/join) == per-message hash(), over seeded random
// batches with lengths around rate boundaries; MessageBatch::validate errors.
#include <chrono>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/keccak/keccak.hpp>
#include <tempo/tempo.hpp>

namespace tc = tempo::keccak;

namespace {

struct OwnedBatch {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};
  tc::MessageBatch view() const { return {data, offsets}; }
  void add(std::size_t len, std::mt19937_64& rng) {
    for (std::size_t i = 0; i < len; ++i) data.push_back(static_cast<std::uint8_t>(rng()));
    offsets.push_back(data.size());
  }
};

// Lengths clustered around multiples of the rate (where padding changes shape), some
// runs of equal lengths (the 4-way path), and a few long messages.
OwnedBatch random_batch(std::mt19937_64& rng, std::size_t rate, std::size_t n) {
  OwnedBatch b;
  std::size_t run_len = 0, run_left = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (run_left > 0) {
      --run_left;
      b.add(run_len, rng);
      continue;
    }
    const auto pick = rng() % 10;
    std::size_t len;
    if (pick < 6) {
      const std::size_t k = rng() % 4;
      const int d = static_cast<int>(rng() % 5) - 2;
      len = static_cast<std::size_t>(std::max<long>(0, static_cast<long>(k * rate) + d));
    } else if (pick < 9) {
      len = rng() % (3 * rate);
    } else {
      len = rng() % 20000;
    }
    if (rng() % 3 == 0) {
      run_len = len;
      run_left = rng() % 7;
    }
    b.add(len, rng);
  }
  return b;
}

std::vector<std::uint8_t> reference(tc::Algorithm a, const tc::MessageBatch& b, std::size_t out_bytes) {
  std::vector<std::uint8_t> out(b.size() * out_bytes);
  for (std::size_t i = 0; i < b.size(); ++i) tc::hash(a, b.message(i), {out.data() + i * out_bytes, out_bytes});
  return out;
}

}  // namespace

TEST_CASE("batch hashing equals per-message hashing", "[batch]") {
  std::mt19937_64 rng(99);
  tempo::ThreadPool pool(tempo::Options{.threads = 4, .heartbeat = std::chrono::microseconds{20}});
  for (int i = 0; i <= static_cast<int>(tc::Algorithm::kt256); ++i) {
    const auto a = static_cast<tc::Algorithm>(i);
    const std::size_t rate = tc::rate_bytes(a);
    for (int trial = 0; trial < 4; ++trial) {
      const std::size_t n = trial == 0 ? 3 : 40 + rng() % 150;
      const auto owned = random_batch(rng, rate, n);
      const auto batch = owned.view();
      const std::size_t outs[] = {32, rate + 1, 7};
      const std::size_t out_bytes = tc::is_xof(a) ? outs[trial % 3] : tc::fixed_digest_bytes(a);
      const auto want = reference(a, batch, out_bytes);
      std::vector<std::uint8_t> serial(want.size()), parallel(want.size());
      tc::hash_batch_cpu_serial(a, batch, out_bytes, serial);
      pool.run([&](tempo::Task& t) { tc::hash_batch_cpu(t, a, batch, out_bytes, parallel); });
      INFO(tc::algorithm_name(a) << " n " << n << " out_bytes " << out_bytes);
      REQUIRE(serial == want);
      REQUIRE(parallel == want);
    }
  }
}

TEST_CASE("batch of equal-length one-block messages (the 4-way fast path)", "[batch]") {
  std::mt19937_64 rng(5);
  for (const std::size_t len : {0, 32, 135, 136, 167}) {
    OwnedBatch owned;
    for (int i = 0; i < 103; ++i) owned.add(len, rng);  // 103: ends with a partial group
    const auto batch = owned.view();
    for (const auto a : {tc::Algorithm::shake256, tc::Algorithm::sha3_256, tc::Algorithm::turboshake128}) {
      const std::size_t ob = tc::is_xof(a) ? 32 : tc::fixed_digest_bytes(a);
      const auto want = reference(a, batch, ob);
      std::vector<std::uint8_t> got(want.size());
      tc::hash_batch_cpu_serial(a, batch, ob, got);
      REQUIRE(got == want);
    }
  }
}

TEST_CASE("parallel batch on several pool sizes", "[batch]") {
  std::mt19937_64 rng(7);
  const auto owned = random_batch(rng, 136, 300);
  const auto batch = owned.view();
  const auto want = reference(tc::Algorithm::shake256, batch, 32);
  for (std::size_t threads : {1, 2, 3, 8}) {
    tempo::ThreadPool pool(tempo::Options{.threads = threads, .heartbeat = std::chrono::microseconds{20}});
    std::vector<std::uint8_t> got(want.size());
    pool.run([&](tempo::Task& t) { tc::hash_batch_cpu(t, tc::Algorithm::shake256, batch, 32, got); });
    REQUIRE(got == want);
  }
}

TEST_CASE("MessageBatch::validate names the problem", "[batch]") {
  const std::vector<std::uint8_t> data(10);
  auto message_of = [&](std::vector<std::uint64_t> offs) -> std::string {
    try {
      tc::MessageBatch{data, offs}.validate();
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message_of({}).find("empty") != std::string::npos);
  CHECK(message_of({1, 10}).find("offsets[0]") != std::string::npos);
  CHECK(message_of({0, 6, 4, 10}).find("decrease at index 2") != std::string::npos);
  CHECK(message_of({0, 5, 9}).find("data.size()") != std::string::npos);
  CHECK(message_of({0, 5, 10}).empty());
  CHECK(message_of({0, 10}).empty());

  const std::vector<std::uint64_t> offs{0, 4, 10};
  const tc::MessageBatch ok{data, offs};
  CHECK(ok.size() == 2);
  std::vector<std::uint8_t> out(64);
  CHECK_THROWS_AS(tc::hash_batch_cpu_serial(tc::Algorithm::shake128, ok, 31, out), std::invalid_argument);
  CHECK_THROWS_AS(tc::hash_batch_cpu_serial(tc::Algorithm::sha3_512, ok, 32, out), std::invalid_argument);
  CHECK_NOTHROW(tc::hash_batch_cpu_serial(tc::Algorithm::sha3_256, ok, 32, out));
  const std::vector<std::uint64_t> bad{0, 11};
  CHECK_THROWS_AS(tc::hash_batch_cpu_serial(tc::Algorithm::shake128, tc::MessageBatch{data, bad}, 32,
                                            std::span<std::uint8_t>(out).first(32)),
                  std::invalid_argument);
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) { tc::hash_batch_cpu(t, tc::Algorithm::shake128, ok, 31, out); }),
                  std::invalid_argument);
  // An empty batch is valid and produces nothing.
  const std::vector<std::uint64_t> zero{0};
  CHECK_NOTHROW(tc::hash_batch_cpu_serial(tc::Algorithm::shake128, tc::MessageBatch{{}, zero}, 32, {}));
}
