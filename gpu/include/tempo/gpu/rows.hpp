// What a family's batch calls share around the engine: their range forms' row concepts and
// views, the length checks that run before any work (one-line std::invalid_argument naming
// the call), the packing of rows into the engine's layout, the signature families' range
// forms over their flat calls, and the split of a batch of millisecond items over the pool.
// Knows no workload.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <tempo/gpu/engine.hpp>
#include <tempo/gpu/op.hpp>
#include <tempo/secure_zero.hpp>
#include <tempo/tempo.hpp>

namespace tempo::gpu::rows {

// Where a signing batch's per-signature randomness comes from: os_random per signature, or an
// input of the batch (the deterministic forms: tests and known answers). One type for every
// signature family (tempo::faest::RhoSource and tempo::perk::RandSource name it after their
// specifications' rho and rand).
enum class RandomnessSource { os_random, input };

// A sized range of contiguous byte containers (std::vector<std::uint8_t>, std::array,
// std::span<const std::uint8_t>, ...).
template <class R>
concept byte_rows = std::ranges::sized_range<const R> && requires(const std::ranges::range_value_t<R>& x) {
  { std::data(x) } -> std::convertible_to<const std::uint8_t*>;
  { std::size(x) } -> std::convertible_to<std::size_t>;
};
// The same, writable (std::vector<std::vector<std::uint8_t>>, std::vector<std::span<std::uint8_t>>).
template <class R>
concept writable_rows = std::ranges::sized_range<R> && requires(std::ranges::range_reference_t<R> x) {
  { std::data(x) } -> std::convertible_to<std::uint8_t*>;
  { std::size(x) } -> std::convertible_to<std::size_t>;
};
template <class R>
concept flag_range = std::ranges::sized_range<R> && requires(std::ranges::range_reference_t<R> x) { x = true; };

using Rows = std::span<const std::span<const std::uint8_t>>;
using OutRows = std::span<const std::span<std::uint8_t>>;

template <class R>
std::vector<std::span<const std::uint8_t>> as_spans(const R& r) {
  std::vector<std::span<const std::uint8_t>> v;
  v.reserve(std::size(r));
  for (const auto& x : r) v.emplace_back(std::data(x), std::size(x));
  return v;
}
// Resizes the container to n rows of len bytes where it can (vectors), then views it.
template <class R>
std::vector<std::span<std::uint8_t>> out_spans(R& r, std::size_t n, std::size_t len) {
  if constexpr (requires { r.resize(n); }) r.resize(n);
  std::vector<std::span<std::uint8_t>> v;
  v.reserve(std::size(r));
  for (auto&& x : r) {
    if constexpr (requires { x.resize(len); }) x.resize(len);
    v.emplace_back(std::data(x), std::size(x));
  }
  return v;
}

// `who` names the call ("tempo::perk::sign_batch"): "<who>: <what> has 3 entries, expected 4".
inline void check_count(std::string_view who, const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw std::invalid_argument(std::string(who) + ": " + what + " has " + std::to_string(got) + " entries, expected " +
                                std::to_string(want));
}

// Every item is `len` bytes: "<who>: <what> 2 is 31 bytes, expected 32".
inline void check_lengths(std::string_view who, const char* what, const Operand& o, std::size_t len) {
  auto fail = [&](std::size_t i, std::size_t got) {
    throw std::invalid_argument(std::string(who) + ": " + what + " " + std::to_string(i) + " is " +
                                std::to_string(got) + " bytes, expected " + std::to_string(len));
  };
  if (o.is_fixed()) {
    if (o.stride != len && !o.data.empty()) fail(0, o.stride);
    return;
  }
  for (std::size_t i = 0; i + 1 < o.offsets.size(); ++i)
    if (o.offsets[i + 1] - o.offsets[i] != len) fail(i, static_cast<std::size_t>(o.offsets[i + 1] - o.offsets[i]));
}
template <class Row>
void check_lengths(std::string_view who, const char* what, std::span<const Row> r, std::size_t len) {
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r[i].size() != len)
      throw std::invalid_argument(std::string(who) + ": " + what + " " + std::to_string(i) + " is " +
                                  std::to_string(r[i].size()) + " bytes, expected " + std::to_string(len));
}

// Rows laid end to end with offsets: the engine's layout of the range forms' inputs.
// Wiped when destroyed where it holds secrets. The bytes are not zeroed first (every one is
// copied in): zeroing a batch of signatures on one thread cost more than the copies.
class Packed {
 public:
  Packed(Task& t, Rows rows, bool secret) : offsets_(rows.size() + 1, 0), secret_(secret) {
    for (std::size_t i = 0; i < rows.size(); ++i) offsets_[i + 1] = offsets_[i] + rows[i].size();
    data_ = std::make_unique_for_overwrite<std::uint8_t[]>(offsets_.back());
    tempo::parallel_for(t, std::size_t{0}, rows.size(), [&](std::size_t i) {
      if (!rows[i].empty()) std::memcpy(data_.get() + offsets_[i], rows[i].data(), rows[i].size());
    });
  }
  Packed(const Packed&) = delete;
  Packed& operator=(const Packed&) = delete;
  ~Packed() {
    if (secret_) secure_zero(data_.get(), offsets_.back());
  }
  Operand operand() const { return Operand::variable({data_.get(), offsets_.back()}, offsets_); }

 private:
  std::unique_ptr<std::uint8_t[]> data_;
  std::vector<std::uint64_t> offsets_;
  bool secret_;
};

// Runs fill(out) over one flat output of outs.size() * len bytes and leaves row i in outs[i]:
// straight into the caller's rows when they are one array (numpy, a flat buffer), else
// through one buffer (not zeroed: the batch writes every byte) copied out afterwards.
template <class Fill>
auto fill_rows(Task& t, OutRows outs, std::size_t len, Fill&& fill) {
  const std::size_t n = outs.size();
  bool flat = true;
  for (std::size_t i = 1; i < n && flat; ++i) flat = outs[i].data() == outs[0].data() + i * len;
  const auto buffer = std::make_unique_for_overwrite<std::uint8_t[]>(flat ? 0 : n * len);
  const std::span<std::uint8_t> out(flat ? (n != 0 ? outs[0].data() : nullptr) : buffer.get(), n * len);
  auto result = fill(out);
  if (!flat)
    tempo::parallel_for(t, std::size_t{0}, n, [&](std::size_t i) { std::memcpy(outs[i].data(), out.data() + i * len, len); });
  return result;
}

// A signature family's range forms over its flat batch calls. Every count and length is
// checked before any work; the rows are packed into the engine's layout (secret keys and
// the signing randomness wiped afterwards); flat(keys, messages, rands, out) runs the flat
// sign_batch (rands null) or sign_batch_deterministic into one output of n signatures, which
// ends up in outs. `who` names the call, `rands_name` the randomness argument in errors.
template <class Flat>
BatchReport sign_rows(Task& t, std::string_view who, const char* rands_name, std::size_t secret_key_len,
                      std::size_t signature_len, Rows secret_keys, Rows messages, const Rows* rands, OutRows outs,
                      Flat&& flat) {
  const std::size_t n = secret_keys.size();
  check_count(who, "messages", messages.size(), n);
  check_count(who, "signatures_out", outs.size(), n);
  if (rands != nullptr) check_count(who, rands_name, rands->size(), n);
  check_lengths(who, "secret key", secret_keys, secret_key_len);
  check_lengths(who, "signature buffer", outs, signature_len);
  const Packed keys(t, secret_keys, true), msgs(t, messages, false);
  return fill_rows(t, outs, signature_len, [&](std::span<std::uint8_t> out) {
    if (rands == nullptr) return flat(keys.operand(), msgs.operand(), static_cast<const Operand*>(nullptr), out);
    const Packed packed_rands(t, *rands, true);
    const Operand r = packed_rands.operand();
    return flat(keys.operand(), msgs.operand(), &r, out);
  });
}
// The same for verify_batch: flat(public keys, messages, signatures, results).
template <class Flat>
BatchReport verify_rows(Task& t, std::string_view who, std::size_t public_key_len, std::size_t signature_len,
                        Rows public_keys, Rows messages, Rows signatures, std::span<std::uint8_t> results, Flat&& flat) {
  const std::size_t n = public_keys.size();
  check_count(who, "messages", messages.size(), n);
  check_count(who, "signatures", signatures.size(), n);
  check_count(who, "results_out", results.size(), n);
  check_lengths(who, "public key", public_keys, public_key_len);
  check_lengths(who, "signature", signatures, signature_len);
  const Packed keys(t, public_keys, false), msgs(t, messages, false), sigs(t, signatures, false);
  return flat(keys.operand(), msgs.operand(), sigs.operand(), results);
}

// n items of a few milliseconds each (signatures): fewer items than workers, and each item
// forks inside (item(&task, i)) so that the idle workers help; otherwise whole items per
// worker (item(nullptr, i)) keep them all busy without the inner loops' polling.
template <class Item>
void for_each_item(Task& t, std::size_t n, Item&& item) {
  const bool inner = n < t.thread_count();
  tempo::parallel_for(t, std::size_t{0}, n, [&](Task& t2, std::size_t i) { item(inner ? &t2 : nullptr, i); });
}

}  // namespace tempo::gpu::rows
