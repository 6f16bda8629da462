// Hashing many independent messages: N messages of any lengths -> N digests of out_bytes
// each, written back to back (digest i at out[i * out_bytes]).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <tempo/keccak/algorithm.hpp>

namespace tempo {
class Task;  // <tempo/tempo.hpp>
}

namespace tempo::keccak {

struct MessageBatch {
  std::span<const std::uint8_t> data;      // all messages back to back
  std::span<const std::uint64_t> offsets;  // n+1 entries: offsets[0]==0, non-decreasing, offsets[n]==data.size()

  // Number of messages (0 for an empty offsets span, which validate() rejects).
  std::size_t size() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
  // Message i (no bounds check; call validate() first).
  std::span<const std::uint8_t> message(std::size_t i) const noexcept {
    return data.subspan(static_cast<std::size_t>(offsets[i]),
                        static_cast<std::size_t>(offsets[i + 1] - offsets[i]));
  }
  // Throws std::invalid_argument naming what is wrong.
  void validate() const;
};

// Throws std::invalid_argument if the batch is invalid, if out.size() != batch.size() * out_bytes,
// or if a SHA3 out_bytes differs from fixed_digest_bytes(a). TurboSHAKE uses domain 0x1F,
// KT an empty customization (same conventions as hash()).
void hash_batch_cpu_serial(Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                           std::span<std::uint8_t> out);

// Same result, split across the pool by recursive t.join; each piece runs the serial
// grouped path (4 messages per 4-way permutation where their block counts match).
void hash_batch_cpu(tempo::Task& t, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                    std::span<std::uint8_t> out);

}  // namespace tempo::keccak
