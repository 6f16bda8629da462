// Batch hashing, serial kernel. Messages whose block counts match are hashed four at a time
// with the 4-way permutation; a message that fits in one block costs one (shared)
// permutation, with no allocation anywhere.
#include <tempo/keccak/batch.hpp>

#include <stdexcept>
#include <string>

#include <tempo/keccak/sponge.hpp>

#include "batch_core.hpp"
#include "sponge_core.hpp"

namespace tempo::keccak {

void MessageBatch::validate() const {
  using std::to_string;
  if (offsets.empty())
    throw std::invalid_argument("MessageBatch: offsets is empty (it needs n+1 entries, starting with 0)");
  if (offsets.front() != 0)
    throw std::invalid_argument("MessageBatch: offsets[0] is " + to_string(offsets.front()) + ", must be 0");
  for (std::size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1])
      throw std::invalid_argument("MessageBatch: offsets decrease at index " + to_string(i) + " (" +
                                  to_string(offsets[i - 1]) + " then " + to_string(offsets[i]) + ")");
  if (offsets.back() != data.size())
    throw std::invalid_argument("MessageBatch: offsets[n] (last offset) is " + to_string(offsets.back()) +
                                " but data.size() is " + to_string(data.size()));
}

namespace detail {

void validate_batch_call(const char* fn, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                         std::span<std::uint8_t> out) {
  using std::to_string;
  batch.validate();
  const std::size_t fixed = fixed_digest_bytes(a);  // also rejects a bad Algorithm value
  if (fixed != 0 && out_bytes != fixed)
    throw std::invalid_argument(std::string(fn) + ": " + std::string(algorithm_name(a)) + " digests are " +
                                to_string(fixed) + " bytes, but out_bytes is " + to_string(out_bytes));
  std::size_t need = 0;
  if (__builtin_mul_overflow(batch.size(), out_bytes, &need) || out.size() != need)
    throw std::invalid_argument(std::string(fn) + ": out.size() is " + to_string(out.size()) +
                                ", expected batch.size() * out_bytes = " + to_string(batch.size()) + " * " +
                                to_string(out_bytes));
}

namespace {

// Up to four messages waiting for a 4-way permutation, all with `blocks` full blocks.
struct Group {
  std::size_t blocks;
  std::size_t idx[4];
  int count;
};

class Grouper {
 public:
  Grouper(const SpongeSpec& s, const MessageBatch& b, std::size_t out_bytes, std::uint8_t* out)
      : s_(s), b_(b), out_bytes_(out_bytes), out_(out) {}

  void add(std::size_t i) {
    const std::size_t blocks = (b_.offsets[i + 1] - b_.offsets[i]) / s_.rate;
    for (int g = 0; g < open_; ++g) {
      if (groups_[g].blocks != blocks) continue;
      groups_[g].idx[groups_[g].count++] = i;
      if (groups_[g].count == 4) close(g);
      return;
    }
    if (open_ == kMaxOpen) close(0);  // too many distinct shapes in flight: flush the oldest
    groups_[open_++] = Group{blocks, {i, 0, 0, 0}, 1};
  }

  void finish() {
    while (open_ > 0) close(0);
  }

 private:
  static constexpr int kMaxOpen = 8;

  void close(int g) {
    flush(groups_[g]);
    for (int k = g + 1; k < open_; ++k) groups_[k - 1] = groups_[k];
    --open_;
  }

  void flush(const Group& grp) {
    if (grp.count == 1) {  // a lone message: the single-state permutation is cheaper
      const auto m = b_.message(grp.idx[0]);
      sponge_oneshot(s_, m.data(), m.size(), out_ + grp.idx[0] * out_bytes_, out_bytes_);
      return;
    }
    const std::uint8_t* msg[4];
    std::size_t len[4];
    std::uint8_t* out[4];
    for (int j = 0; j < 4; ++j) {
      const int k = j < grp.count ? j : 0;  // idle lanes redo lane 0 and drop the result
      const auto m = b_.message(grp.idx[k]);
      msg[j] = m.data();
      len[j] = m.size();
      out[j] = j < grp.count ? out_ + grp.idx[j] * out_bytes_ : nullptr;
    }
    sponge_x4(s_, msg, len, out, out_bytes_);
  }

  SpongeSpec s_;
  const MessageBatch& b_;
  std::size_t out_bytes_;
  std::uint8_t* out_;
  Group groups_[kMaxOpen];
  int open_ = 0;
};

}  // namespace

void hash_batch_range(Algorithm a, const MessageBatch& batch, std::size_t out_bytes, std::uint8_t* out,
                      std::size_t lo, std::size_t hi) {
  if (out_bytes == 0) return;  // nothing to produce
  if (a == Algorithm::kt128 || a == Algorithm::kt256) {
    for (std::size_t i = lo; i < hi; ++i) hash(a, batch.message(i), {out + i * out_bytes, out_bytes});
    return;
  }
  Grouper g(sponge_spec(a), batch, out_bytes, out);
  for (std::size_t i = lo; i < hi; ++i) g.add(i);
  g.finish();
}

}  // namespace detail

void hash_batch_cpu_serial(Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                           std::span<std::uint8_t> out) {
  detail::validate_batch_call("hash_batch_cpu_serial", a, batch, out_bytes, out);
  detail::hash_batch_range(a, batch, out_bytes, out.data(), 0, batch.size());
}

}  // namespace tempo::keccak
