// hash_batch / submit on whatever this machine has: results equal the CPU oracle,
// reports are coherent, bad arguments are named.
#include "helpers.hpp"

using namespace tempo;
using keccak::Algorithm;

TEST_CASE("hash_batch equals hash_batch_cpu for every algorithm (auto backend)", "[gpu][dispatch]") {
  ThreadPool pool(Options{.threads = 3});
  std::mt19937_64 rng(11);
  for (Algorithm a : gtest::kAll) {
    gtest::Batch b;
    for (int i = 0; i < 37; ++i) b.add(gtest::boundary_length(rng, keccak::rate_bytes(a)) % 2000, rng);
    const std::size_t ob = gtest::out_bytes_for(a, rng);
    const auto ref = gtest::cpu_reference(a, b.view(), ob);
    std::vector<std::uint8_t> out(ref.size());
    auto rep = pool.run([&](Task& t) { return keccak::hash_batch(t, a, b.view(), ob, out, tempo::Backend::auto_select); });
    INFO(keccak::algorithm_name(a));
    CHECK(out == ref);
    CHECK(rep.items == b.size());
    CHECK(rep.cpu_items + rep.gpu_items == b.size());
    CHECK_FALSE(rep.reason.empty());
  }
}

TEST_CASE("FixedBatch needs no offsets and gives the same digests", "[gpu][dispatch]") {
  ThreadPool pool(Options{.threads = 2});
  std::mt19937_64 rng(3);
  for (std::size_t len : {0, 1, 32, 135, 136, 137, 1000}) {
    gtest::Batch b;
    for (int i = 0; i < 50; ++i) b.add(len, rng);
    const auto ref = gtest::cpu_reference(Algorithm::shake256, b.view(), 32);
    std::vector<std::uint8_t> out(ref.size());
    keccak::FixedBatch fb{b.data, len, 50};
    pool.run([&](Task& t) { keccak::hash_batch(t, Algorithm::shake256, fb, 32, out, tempo::Backend::cpu); });
    CHECK(out == ref);
  }
}

TEST_CASE("bad arguments are named", "[gpu][dispatch]") {
  ThreadPool pool(Options{.threads = 1});
  std::mt19937_64 rng(5);
  gtest::Batch b;
  b.add(10, rng);
  b.add(20, rng);
  std::vector<std::uint8_t> out(64);
  pool.run([&](Task& t) {
    CHECK_THROWS_WITH(keccak::hash_batch(t, Algorithm::sha3_256, b.view(), 64, out, tempo::Backend::cpu),
                      Catch::Contains("32-byte"));
    CHECK_THROWS_WITH(keccak::hash_batch(t, Algorithm::shake256, b.view(), 16, out, tempo::Backend::cpu),
                      Catch::Contains("expected"));
    CHECK_THROWS_WITH(keccak::hash_batch(t, Algorithm::shake256, b.view(), 0, out, tempo::Backend::cpu),
                      Catch::Contains("out_bytes is 0"));
    keccak::FixedBatch fb{b.data, 7, 3};  // 21 != 30 bytes
    CHECK_THROWS_AS(keccak::hash_batch(t, Algorithm::shake256, fb, 32, std::span(out).first(96 > out.size() ? 0 : 96),
                                    tempo::Backend::cpu),
                    std::invalid_argument);
    std::vector<std::uint64_t> bad_offsets{0, 30, 10};
    keccak::MessageBatch mb{b.data, bad_offsets};
    CHECK_THROWS_AS(keccak::hash_batch(t, Algorithm::shake256, mb, 32, out, tempo::Backend::cpu), std::invalid_argument);
  });
}

TEST_CASE("an empty batch is fine", "[gpu][dispatch]") {
  ThreadPool pool(Options{.threads = 1});
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};
  std::vector<std::uint8_t> out;
  auto rep = pool.run([&](Task& t) {
    return keccak::hash_batch(t, Algorithm::shake128, keccak::MessageBatch{data, offsets}, 32, out);
  });
  CHECK(rep.items == 0);
}

TEST_CASE("submit/join: the async form joins like a fork", "[gpu][dispatch]") {
  ThreadPool pool(Options{.threads = 4});
  std::mt19937_64 rng(9);
  gtest::Batch b;
  for (int i = 0; i < 300; ++i) b.add(rng() % 400, rng);
  const auto ref = gtest::cpu_reference(Algorithm::turboshake128, b.view(), 48);
  std::vector<std::uint8_t> out(ref.size());
  pool.run([&](Task& t) {
    gpu::Offload off = keccak::submit(t, Algorithm::turboshake128, b.view(), 48, out);
    CHECK(off.valid());
    // Other tempo work while the offload runs.
    const auto sum = parallel_reduce(t, 0, 100000, tempo::grain{1}, std::uint64_t{0}, [](std::size_t i) { return std::uint64_t(i); },
                                     [](std::uint64_t x, std::uint64_t y) { return x + y; });
    CHECK(sum == 4999950000ull);
    gpu::BatchReport rep = off.join(t);
    CHECK_FALSE(off.valid());
    CHECK(rep.items == 300);
    CHECK_THROWS_AS(off.join(t), std::logic_error);
  });
  CHECK(out == ref);
}

TEST_CASE("HostBuffer grows and keeps its contents", "[gpu][dispatch]") {
  gpu::HostBuffer h(10);
  for (int i = 0; i < 10; ++i) h.data()[i] = static_cast<std::uint8_t>(i);
  h.resize(100000);
  for (int i = 0; i < 10; ++i) CHECK(h.data()[i] == i);
  CHECK(h.size() == 100000);
  gpu::HostBuffer moved = std::move(h);
  CHECK(moved.size() == 100000);
  CHECK(h.size() == 0);
  CHECK(h.pinned() == false);
  if (!gtest::have_device()) CHECK_FALSE(moved.pinned());
}
