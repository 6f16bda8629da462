// CPU vs GPU byte equality: 1000+ seeded random batches, lengths around every rate
// boundary up to 64 KiB, every algorithm, through every GPU path (forced cuda, split,
// pinned host memory, the async form, the fixed-length and 32-byte kernels).
// Skipped, with the reason printed, where there is no CUDA device.
#include "helpers.hpp"

using namespace tempo;
using keccak::Algorithm;

TEST_CASE("GPU equals CPU on 1000 seeded random batches (all algorithms)", "[gpu][device][equivalence]") {
  GPU_OR_SKIP();
  ThreadPool pool(Options{});
  std::size_t batches = 0, digests = 0, mismatches = 0;
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    std::mt19937_64 rng(0x7e3b0 + seed);
    const Algorithm a = gtest::kAll[seed % std::size(gtest::kAll)];
    const std::size_t rate = keccak::rate_bytes(a);
    gtest::Batch b;
    const std::size_t n = 1 + rng() % (seed % 10 == 0 ? 2000 : 40);
    for (std::size_t i = 0; i < n; ++i) b.add(gtest::boundary_length(rng, rate), rng);
    const std::size_t ob = gtest::out_bytes_for(a, rng);
    const auto ref = gtest::cpu_reference(a, b.view(), ob);
    std::vector<std::uint8_t> out(ref.size(), 0xA5);
    // Alternate the forced backend and the split path (which also uses the CPU).
    const bool split = seed % 3 == 2;
    gtest::EnvVar placement("TEMPO_GPU_PLACEMENT", split ? "split" : nullptr);
    auto rep = pool.run([&](Task& t) {
      return keccak::hash_batch(t, a, b.view(), ob, out, split ? tempo::Backend::auto_select : tempo::Backend::cuda);
    });
    if (keccak::gpu_supports(a) && !split) CHECK(rep.gpu_items + rep.cpu_items == n);
    if (out != ref) {
      ++mismatches;
      FAIL_CHECK("mismatch: seed " << seed << " " << keccak::algorithm_name(a) << " n " << n << " out " << ob
                                   << " ran on " << gpu::placement_name(rep.ran_on));
    }
    ++batches;
    digests += n;
  }
  WARN("equivalence sweep: " << batches << " batches, " << digests << " digests, " << mismatches << " mismatches");
  CHECK(mismatches == 0);
}

TEST_CASE("GPU fixed-length and 32-byte paths equal the CPU", "[gpu][device][equivalence]") {
  GPU_OR_SKIP();
  ThreadPool pool(Options{});
  std::mt19937_64 rng(42);
  for (Algorithm a : gtest::kAll) {
    for (std::size_t len : {0, 1, 31, 32, 33, 71, 72, 135, 136, 137, 167, 168, 169, 4096}) {
      for (std::size_t n : {1, 255, 256, 257, 100000}) {
        if (n == 100000 && len > 64) continue;
        const std::size_t ob = keccak::is_xof(a) ? 32 : keccak::fixed_digest_bytes(a);
        gtest::Batch b;
        for (std::size_t i = 0; i < n; ++i) b.add(len, rng);
        const auto ref = gtest::cpu_reference(a, b.view(), ob);
        std::vector<std::uint8_t> out(ref.size());
        keccak::FixedBatch fb{b.data, len, n};
        pool.run([&](Task& t) { keccak::hash_batch(t, a, fb, ob, out, tempo::Backend::cuda); });
        INFO(keccak::algorithm_name(a) << " len " << len << " n " << n);
        CHECK(out == ref);
      }
    }
  }
}

TEST_CASE("pinned host memory (direct DMA) and the async form equal the CPU", "[gpu][device][equivalence]") {
  GPU_OR_SKIP();
  ThreadPool pool(Options{});
  std::mt19937_64 rng(77);
  const std::size_t n = 300000, len = 32;
  gpu::HostBuffer in(n * len), out(n * 32);
  REQUIRE(in.pinned());
  for (std::size_t i = 0; i < n * len; ++i) in.data()[i] = static_cast<std::uint8_t>(rng());
  std::vector<std::uint64_t> offsets(n + 1);
  for (std::size_t i = 0; i <= n; ++i) offsets[i] = i * len;
  const keccak::MessageBatch mb{{in.data(), n * len}, offsets};
  const auto ref = gtest::cpu_reference(Algorithm::shake256, mb, 32);
  pool.run([&](Task& t) {
    auto rep = keccak::hash_batch(t, Algorithm::shake256, keccak::FixedBatch{{in.data(), n * len}, len, n}, 32, out.span(),
                               tempo::Backend::cuda);
    CHECK(gpu::placement_name(rep.ran_on) == "gpu");
    CHECK(rep.gpu_chunks >= 1);
  });
  CHECK(std::equal(ref.begin(), ref.end(), out.data()));
  std::fill(out.data(), out.data() + out.size(), 0);
  pool.run([&](Task& t) {
    auto off = keccak::submit(t, Algorithm::shake256, mb, 32, out.span(), tempo::Backend::cuda);
    auto rep = off.join(t);
    CHECK(rep.gpu_items == n);
  });
  CHECK(std::equal(ref.begin(), ref.end(), out.data()));
}

TEST_CASE("messages over the GPU's per-message limit are finished by the CPU", "[gpu][device][equivalence]") {
  GPU_OR_SKIP();
  ThreadPool pool(Options{});
  std::mt19937_64 rng(8);
  gtest::Batch b;
  b.add(100, rng);
  b.add((8u << 20) + 1, rng);  // over the 8 MiB limit
  b.add(3, rng);
  const auto ref = gtest::cpu_reference(Algorithm::shake128, b.view(), 32);
  std::vector<std::uint8_t> out(ref.size());
  auto rep =
      pool.run([&](Task& t) { return keccak::hash_batch(t, Algorithm::shake128, b.view(), 32, out, tempo::Backend::cuda); });
  CHECK(out == ref);
  CHECK(rep.cpu_items >= 1);
}
