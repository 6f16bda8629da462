// KangarooTwelve with the leaves hashed by fork/join. The leaf range is halved by t.join
// until a piece has at most kLeavesPerTask leaves (multiples of 4 so every piece feeds the
// 4-way permutation); the heartbeat scheduler only pays for the forks that idle workers
// actually take, so the small grain costs little on one thread.
#include <memory>

#include <tempo/keccak/kangaroo_twelve.hpp>
#include <tempo/tempo.hpp>

#include "kt_core.hpp"

namespace tempo::keccak {
namespace {

constexpr std::size_t kLeavesPerTask = 8;  // 64 KiB of input per leaf task

void leaves(tempo::Task& t, const detail::KtInput& in, const detail::KtParams& p, std::size_t lo, std::size_t hi,
            std::uint8_t* cvs) {
  if (hi - lo <= kLeavesPerTask) {
    detail::kt_hash_leaves(in, p, lo, hi, cvs);
    return;
  }
  // Split on a multiple of 4 leaves from lo, so both halves keep full 4-way groups.
  const std::size_t half = ((hi - lo) / 2 + 3) / 4 * 4;
  const std::size_t mid = lo + half;
  t.join([&](tempo::Task& t1) { leaves(t1, in, p, lo, mid, cvs); },
         [&](tempo::Task& t2) { leaves(t2, in, p, mid, hi, cvs); });
}

void kt_parallel(tempo::Task& t, Algorithm a, std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom,
                 std::span<std::uint8_t> out) {
  const detail::KtParams p = detail::kt_params(a);
  const detail::KtInput in(msg, custom);
  const std::size_t n = in.chunk_count();
  if (n == 1) return detail::kt_single_chunk(in, p, out);
  const auto cvs = std::make_unique_for_overwrite<std::uint8_t[]>((n - 1) * p.cv_bytes);
  leaves(t, in, p, 1, n, cvs.get());
  detail::kt_final_node(in, p, cvs.get(), out);
}

}  // namespace

void kt128(tempo::Task& t, std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom,
           std::span<std::uint8_t> out) {
  kt_parallel(t, Algorithm::kt128, msg, custom, out);
}
void kt256(tempo::Task& t, std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom,
           std::span<std::uint8_t> out) {
  kt_parallel(t, Algorithm::kt256, msg, custom, out);
}

}  // namespace tempo::keccak
