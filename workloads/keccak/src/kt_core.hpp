// Internal: KangarooTwelve (RFC 9861) building blocks shared by the serial and the
// fork/join implementation.
//
// KT(M, C, L): S = M || C || length_encode(|C|), cut into 8192-byte chunks S_0..S_{n-1}.
//   n == 1: TurboSHAKE(S, 0x07, L)
//   else:   CV_i = TurboSHAKE(S_i, 0x0B, 32 or 64) for i >= 1 (the independent leaves), then
//           TurboSHAKE(S_0 || 03 00^7 || CV_1..CV_{n-1} || length_encode(n-1) || FF FF, 0x06, L)
// S is never materialised: it is read as three spans.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <tempo/keccak/algorithm.hpp>

namespace tempo::keccak::detail {

inline constexpr std::size_t kKtChunk = 8192;

struct KtParams {
  Algorithm turbo;        // turboshake128 or turboshake256
  std::size_t rate;       // 168 or 136
  std::size_t cv_bytes;   // 32 or 64
};

KtParams kt_params(Algorithm kt);  // kt128 or kt256

// length_encode(x): big-endian x without leading zero bytes, then the number of those bytes.
// Returns the encoded size (1..9).
std::size_t length_encode(std::uint64_t x, std::uint8_t out[9]) noexcept;

class KtInput {
 public:
  KtInput(std::span<const std::uint8_t> msg, std::span<const std::uint8_t> custom) noexcept;
  KtInput(const KtInput&) = delete;  // parts_[2] points into this object
  KtInput& operator=(const KtInput&) = delete;

  std::size_t size() const noexcept { return total_; }
  std::size_t chunk_count() const noexcept { return (total_ + kKtChunk - 1) / kKtChunk; }
  std::size_t chunk_size(std::size_t i) const noexcept;
  // S[begin, begin+len) if it lies inside one of the three spans, else nullptr.
  const std::uint8_t* contiguous(std::size_t begin, std::size_t len) const noexcept;
  // Calls f(std::span<const std::uint8_t>) for the pieces of S[begin, begin+len), in order.
  template <class F>
  void for_each_piece(std::size_t begin, std::size_t len, F&& f) const {
    for (const auto& part : parts_) {
      if (len == 0) return;
      if (begin >= part.size()) {
        begin -= part.size();
        continue;
      }
      const std::size_t take = part.size() - begin < len ? part.size() - begin : len;
      f(part.subspan(begin, take));
      len -= take;
      begin = 0;
    }
  }

 private:
  std::span<const std::uint8_t> parts_[3];
  std::uint8_t lenc_[9];
  std::size_t total_;
};

// CVs of the leaves (chunks) first..last-1, 1 <= first; CV of chunk i goes to
// cvs + (i - 1) * cv_bytes. Leaves with matching shapes go four at a time through the
// 4-way permutation.
void kt_hash_leaves(const KtInput& in, const KtParams& p, std::size_t first, std::size_t last,
                    std::uint8_t* cvs);

// Whole result for a single-chunk input (chunk_count() == 1).
void kt_single_chunk(const KtInput& in, const KtParams& p, std::span<std::uint8_t> out);

// Final node once all n-1 CVs are known.
void kt_final_node(const KtInput& in, const KtParams& p, const std::uint8_t* cvs, std::span<std::uint8_t> out);

}  // namespace tempo::keccak::detail
