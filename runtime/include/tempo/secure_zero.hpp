// Wiping secrets: a store the compiler may not remove as dead (the memory is about to be
// freed or go out of scope, which is exactly when a plain memset would be elided).
// Every family wipes keys, seeds and intermediate secrets with this one function.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace tempo {

void secure_zero(void* p, std::size_t n) noexcept;

template <class T>
  requires std::is_trivially_copyable_v<T>
void secure_zero(std::span<T> s) noexcept {
  secure_zero(s.data(), s.size_bytes());
}

template <class T>
  requires std::is_trivially_copyable_v<T>
void secure_zero(std::vector<T>& v) noexcept {
  secure_zero(v.data(), v.size() * sizeof(T));
}

}  // namespace tempo
