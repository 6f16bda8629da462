// Internal: the serial batch kernel, shared by the serial and the fork/join entry points.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <tempo/keccak/batch.hpp>

namespace tempo::keccak::detail {

// Checks everything hash_batch_* promise to reject; throws std::invalid_argument.
void validate_batch_call(const char* fn, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                         std::span<std::uint8_t> out);

// Digests of messages [lo, hi) into out (digest i at out + i * out_bytes). Arguments valid.
void hash_batch_range(Algorithm a, const MessageBatch& batch, std::size_t out_bytes, std::uint8_t* out,
                      std::size_t lo, std::size_t hi);

}  // namespace tempo::keccak::detail
