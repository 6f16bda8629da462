// gpu::detail::run_slices (the signature families' batch pipeline) on simulated devices:
// every item prepared once, staged, run and finished once, in slices of the planned sizes
// (fixed or ramped), and an exception that leaves nothing running.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include <tempo/gpu/detail/slice_pipeline.hpp>
#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

namespace {

using tempo::gpu::detail::SliceView;

// out = the input item's bytes, complemented; 16-byte items both ways.
class Complement final : public tempo::gpu::BatchOp {
 public:
  std::string key() const override { return "test/slice-complement"; }
  std::size_t out_stride() const override { return 16; }
  void cpu(const tempo::gpu::Chunk& c) const override {
    for (std::size_t i = 0; i < c.count; ++i)
      for (std::size_t b = 0; b < 16; ++b) c.out[i * 16 + b] = static_cast<std::uint8_t>(~c.in[0].data[i * c.in[0].stride + b]);
  }
};

struct Seen {
  std::mutex m;
  std::vector<std::pair<std::size_t, std::size_t>> slices;  // (first, count), as prepared
  std::set<std::pair<std::size_t, std::size_t>> finished;   // (first, count)
};

// Catch2's assertions are not thread-safe: the callbacks (on pool workers) only record.
std::vector<std::uint8_t> run(std::size_t n, const tempo::gpu::detail::SliceOptions& o, Seen& seen) {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  tempo::gpu::Engine engine(tempo::gpu::EngineOptions{.simulated_devices = 1});
  const Complement op;
  std::vector<std::uint8_t> result(n * 16, 0);
  std::vector<std::atomic<int>> prepared(n), finished(n);
  std::atomic<bool> bad_view{false};
  pool.run([&](tempo::Task& t) {
    tempo::gpu::detail::run_slices(
        t, engine, op, n, 16, 16, o,
        [&](const SliceView& s, std::size_t q) {
          if (q >= s.count || s.slot > 1 || s.in_stride != 16 || s.out_stride != 16) bad_view = true;
          if (q == 0) {
            std::lock_guard<std::mutex> lock(seen.m);
            seen.slices.emplace_back(s.first, s.count);
          }
          const std::size_t i = s.first + q;
          prepared[i].fetch_add(1);
          for (std::size_t b = 0; b < 16; ++b) s.in_item(q)[b] = static_cast<std::uint8_t>(i * 7 + b);
        },
        [&](const SliceView& s, std::size_t q) {
          const std::size_t i = s.first + q;
          finished[i].fetch_add(1);
          std::memcpy(result.data() + i * 16, s.out_item(q), 16);
          if (q == 0) {
            std::lock_guard<std::mutex> lock(seen.m);
            seen.finished.emplace(s.first, s.count);
          }
        });
  });
  CHECK_FALSE(bad_view.load());
  for (std::size_t i = 0; i < n; ++i) {
    INFO("item " << i);
    CHECK(prepared[i].load() == 1);
    CHECK(finished[i].load() == 1);
  }
  return result;
}

void check_complements(const std::vector<std::uint8_t>& r, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t b = 0; b < 16; ++b) REQUIRE(r[i * 16 + b] == static_cast<std::uint8_t>(~(i * 7 + b)));
}

}  // namespace

TEST_CASE("slice pipeline: fixed slices cover the batch in order", "[slices]") {
  for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{37}}) {
    Seen seen;
    const auto r = run(n, {.slice = 8}, seen);
    check_complements(r, n);
    std::size_t next = 0;
    for (const auto& [first, count] : seen.slices) {
      CHECK(first == next);
      CHECK(count == std::min<std::size_t>(8, n - first));
      next += count;
    }
    CHECK(next == n);
    CHECK(seen.finished.size() == seen.slices.size());
  }
}

TEST_CASE("slice pipeline: a ramp starts at a quarter slice and doubles", "[slices]") {
  Seen seen;
  const std::size_t n = 100;
  check_complements(run(n, {.slice = 16, .ramp = true}, seen), n);
  std::vector<std::size_t> counts;
  for (const auto& s : seen.slices) counts.push_back(s.second);
  const std::vector<std::size_t> want{4, 8, 16, 16, 16, 16, 16, 8};
  CHECK(counts == want);
}

TEST_CASE("slice pipeline: a slice of 0 means 1; an empty batch runs nothing", "[slices]") {
  Seen seen;
  check_complements(run(3, {.slice = 0}, seen), 3);
  CHECK(seen.slices.size() == 3);
  Seen none;
  run(0, {.slice = 4}, none);
  CHECK(none.slices.empty());
}

TEST_CASE("slice pipeline: an exception from prepare leaves nothing running and propagates", "[slices]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  tempo::gpu::Engine engine(tempo::gpu::EngineOptions{.simulated_devices = 1});
  const Complement op;
  std::atomic<int> finished{0};
  CHECK_THROWS_WITH(pool.run([&](tempo::Task& t) {
                      tempo::gpu::detail::run_slices(
                          t, engine, op, 40, 16, 16, {.slice = 8},
                          [&](const SliceView& s, std::size_t q) {
                            if (s.first == 16 && q == 3) throw std::runtime_error("bad item 19");
                            std::memset(s.in_item(q), 1, 16);
                          },
                          [&](const SliceView&, std::size_t) { finished.fetch_add(1); });
                    }),
                    "bad item 19");
  CHECK(finished.load() <= 16);  // the slices before the failing one, at most
}
