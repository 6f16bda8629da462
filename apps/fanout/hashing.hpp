// The batch hashing API tempo-fanout uses (tempo::keccak::hash_batch, FixedBatch,
// HostBuffer, BatchReport), wherever the engine keeps it: <tempo/keccak/offload.hpp>
// once Keccak sits on top of the generic engine, <tempo/gpu/gpu.hpp> before.
#pragma once

#if __has_include(<tempo/keccak/offload.hpp>)
#include <tempo/keccak/offload.hpp>
#else
#include <tempo/gpu/gpu.hpp>
#endif
#include <tempo/keccak/keccak.hpp>
#include <tempo/tempo.hpp>

#include <string>
#include <string_view>
#include <type_traits>

namespace tempo::fanout {
// BatchReport::ran_on as text: a C string in the old engine, gpu::Placement in the new.
template <class T>
std::string placement_text(const T& v) {
  if constexpr (std::is_convertible_v<const T&, std::string_view>) return std::string(std::string_view(v));
  else return std::string(placement_name(v));  // found by ADL in tempo::gpu
}
}  // namespace tempo::fanout
