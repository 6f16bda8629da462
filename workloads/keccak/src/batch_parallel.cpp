// Batch hashing across the pool: the message range is halved by t.join (at the byte
// midpoint, so a few long messages do not end up in one piece) until a piece is about
// kLeafBlocks permutations of work, then the serial grouped kernel runs on it.
#include <algorithm>

#include <tempo/keccak/batch.hpp>
#include <tempo/keccak/kangaroo_twelve.hpp>
#include <tempo/tempo.hpp>

#include "batch_core.hpp"

namespace tempo::keccak {
namespace {

constexpr std::size_t kLeafBlocks = 256;  // ~64 4-way permutations: tens of microseconds

struct Job {
  Algorithm a;
  const MessageBatch& batch;
  std::size_t out_bytes;
  std::uint8_t* out;
  std::size_t rate;
};

// Rough permutation count for messages [lo, hi): absorbed blocks plus squeezed blocks.
std::size_t cost(const Job& j, std::size_t lo, std::size_t hi) {
  const std::size_t bytes = j.batch.offsets[hi] - j.batch.offsets[lo];
  return bytes / j.rate + (hi - lo) * (1 + j.out_bytes / j.rate);
}

void run(tempo::Task& t, const Job& j, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1 && (j.a == Algorithm::kt128 || j.a == Algorithm::kt256)) {
    // One long KT message: parallelise inside it instead.
    const auto m = j.batch.message(lo);
    std::span<std::uint8_t> o(j.out + lo * j.out_bytes, j.out_bytes);
    if (j.a == Algorithm::kt128)
      kt128(t, m, {}, o);
    else
      kt256(t, m, {}, o);
    return;
  }
  if (hi - lo == 1 || cost(j, lo, hi) <= kLeafBlocks) {
    detail::hash_batch_range(j.a, j.batch, j.out_bytes, j.out, lo, hi);
    return;
  }
  // First message whose end passes the byte midpoint, kept strictly inside (lo, hi).
  const std::uint64_t middle = j.batch.offsets[lo] + (j.batch.offsets[hi] - j.batch.offsets[lo]) / 2;
  const auto* first = j.batch.offsets.data();
  std::size_t mid = static_cast<std::size_t>(std::lower_bound(first + lo + 1, first + hi, middle) - first);
  // Mostly short messages: split by count instead, on a multiple of 4 for the x4 groups.
  if (j.batch.offsets[hi] - j.batch.offsets[lo] < (hi - lo) * j.rate) mid = lo + std::max<std::size_t>(1, (hi - lo) / 8 * 4);
  mid = std::clamp(mid, lo + 1, hi - 1);
  t.join([&](tempo::Task& t1) { run(t1, j, lo, mid); }, [&](tempo::Task& t2) { run(t2, j, mid, hi); });
}

}  // namespace

void hash_batch_cpu(tempo::Task& t, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                    std::span<std::uint8_t> out) {
  detail::validate_batch_call("hash_batch_cpu", a, batch, out_bytes, out);
  if (batch.size() == 0 || out_bytes == 0) return;
  run(t, Job{a, batch, out_bytes, out.data(), rate_bytes(a)}, 0, batch.size());
}

}  // namespace tempo::keccak
