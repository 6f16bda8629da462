// Serial KangarooTwelve and the pieces the parallel version reuses.
#include <memory>
#include <stdexcept>

#include <tempo/keccak/sponge.hpp>

#include "kt_core.hpp"
#include "sponge_core.hpp"

namespace tempo::keccak {
namespace detail {

KtParams kt_params(Algorithm kt) {
  if (kt == Algorithm::kt128) return {Algorithm::turboshake128, 168, 32};
  if (kt == Algorithm::kt256) return {Algorithm::turboshake256, 136, 64};
  throw std::invalid_argument("tempo::keccak: kt_params needs kt128 or kt256");
}

std::size_t length_encode(std::uint64_t x, std::uint8_t out[9]) noexcept {
  std::size_t n = 0;
  for (std::uint64_t v = x; v != 0; v >>= 8) ++n;
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(x >> (8 * (n - 1 - i)));
  out[n] = static_cast<std::uint8_t>(n);
  return n + 1;
}

KtInput::KtInput(std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom) noexcept {
  const std::size_t lenc = length_encode(custom.size(), lenc_);
  parts_[0] = msg;
  parts_[1] = custom;
  parts_[2] = std::span<const std::uint8_t>(lenc_, lenc);
  total_ = msg.size() + custom.size() + lenc;
}

std::size_t KtInput::chunk_size(std::size_t i) const noexcept {
  const std::size_t begin = i * kKtChunk;
  return total_ - begin < kKtChunk ? total_ - begin : kKtChunk;
}

const std::uint8_t* KtInput::contiguous(std::size_t begin, std::size_t len) const noexcept {
  for (const auto& part : parts_) {
    if (begin < part.size()) return len <= part.size() - begin ? part.data() + begin : nullptr;
    begin -= part.size();
  }
  return nullptr;
}

namespace {

void hash_one_leaf(const KtInput& in, const KtParams& p, std::size_t i, std::uint8_t* cv) {
  const std::size_t begin = i * kKtChunk, len = in.chunk_size(i);
  if (const std::uint8_t* data = in.contiguous(begin, len)) {
    sponge_oneshot(sponge_spec(p.turbo, 0x0B), data, len, cv, p.cv_bytes);
    return;
  }
  Keccak k(p.turbo, 0x0B);  // the leaf straddles M / C / length_encode(|C|)
  in.for_each_piece(begin, len, [&](std::span<const std::uint8_t> s) { k.absorb(s); });
  k.squeeze({cv, p.cv_bytes});
}

}  // namespace

void kt_hash_leaves(const KtInput& in, const KtParams& p, std::size_t first, std::size_t last,
                    std::uint8_t* cvs) {
  const SpongeSpec leaf = sponge_spec(p.turbo, 0x0B);
  std::size_t i = first;
  while (i < last) {
    // Gather up to four following contiguous leaves with the same number of full blocks.
    const std::uint8_t* msg[4];
    std::size_t len[4];
    std::uint8_t* out[4];
    int count = 0;
    while (count < 4 && i + count < last) {
      const std::size_t c = i + count, clen = in.chunk_size(c);
      const std::uint8_t* data = in.contiguous(c * kKtChunk, clen);
      if (data == nullptr || (count > 0 && clen / p.rate != len[0] / p.rate)) break;
      msg[count] = data;
      len[count] = clen;
      out[count] = cvs + (c - 1) * p.cv_bytes;
      ++count;
    }
    if (count < 2) {
      hash_one_leaf(in, p, i, cvs + (i - 1) * p.cv_bytes);
      ++i;
      continue;
    }
    for (int j = count; j < 4; ++j) {  // idle lanes recompute lane 0 and discard it
      msg[j] = msg[0];
      len[j] = len[0];
      out[j] = nullptr;
    }
    sponge_x4(leaf, msg, len, out, p.cv_bytes);
    i += static_cast<std::size_t>(count);
  }
}

void kt_single_chunk(const KtInput& in, const KtParams& p, std::span<std::uint8_t> out) {
  if (const std::uint8_t* data = in.contiguous(0, in.size())) {
    sponge_oneshot(sponge_spec(p.turbo, 0x07), data, in.size(), out.data(), out.size());
    return;
  }
  Keccak k(p.turbo, 0x07);
  in.for_each_piece(0, in.size(), [&](std::span<const std::uint8_t> s) { k.absorb(s); });
  k.squeeze(out);
}

void kt_final_node(const KtInput& in, const KtParams& p, const std::uint8_t* cvs, std::span<std::uint8_t> out) {
  const std::size_t n = in.chunk_count();
  Keccak k(p.turbo, 0x06);
  in.for_each_piece(0, kKtChunk, [&](std::span<const std::uint8_t> s) { k.absorb(s); });
  static constexpr std::uint8_t kMarker[8] = {0x03, 0, 0, 0, 0, 0, 0, 0};
  k.absorb(kMarker);
  k.absorb({cvs, (n - 1) * p.cv_bytes});
  std::uint8_t lenc[9];
  k.absorb({lenc, length_encode(n - 1, lenc)});
  static constexpr std::uint8_t kTerminator[2] = {0xFF, 0xFF};
  k.absorb(kTerminator);
  k.squeeze(out);
}

}  // namespace detail

namespace {

void kt_serial(Algorithm a, std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom,
               std::span<std::uint8_t> out) {
  const detail::KtParams p = detail::kt_params(a);
  const detail::KtInput in(msg, custom);
  const std::size_t n = in.chunk_count();
  if (n == 1) return detail::kt_single_chunk(in, p, out);
  const auto cvs = std::make_unique_for_overwrite<std::uint8_t[]>((n - 1) * p.cv_bytes);
  detail::kt_hash_leaves(in, p, 1, n, cvs.get());
  detail::kt_final_node(in, p, cvs.get(), out);
}

}  // namespace

void kt128(std::span<const std::uint8_t> msg, std::span<const std::uint8_t> customization,
           std::span<std::uint8_t> out) {
  kt_serial(Algorithm::kt128, msg, customization, out);
}
void kt256(std::span<const std::uint8_t> msg, std::span<const std::uint8_t> customization,
           std::span<std::uint8_t> out) {
  kt_serial(Algorithm::kt256, msg, customization, out);
}

}  // namespace tempo::keccak
