// ConvertToVOLE (FAEST v2 Section 5.2, PERK v2.1.0 voles.c): an instance's 2^depth leaves'
// PRG rows r_x give u = sum over x of r_x and v_j = sum of r_x over the x with bit j set
// (j < depth). The prover knows every leaf; the verifier, missing the hidden leaf, permutes
// the leaves so that the hidden one is x = 0 (which v never uses) and gets
// q_j = v_j + Delta_j * u: the VOLE correlation both schemes build on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <tempo/secure_zero.hpp>

namespace tempo::voleith {

inline constexpr unsigned vole_chunk = 16;  // leaves per rows() call

// Bytes of convert_to_vole's work buffer.
constexpr std::size_t vole_work_bytes(unsigned depth, std::size_t row_stride) {
  return (vole_chunk + depth + 1) * row_stride;
}

namespace detail {
inline void xor_into(std::uint8_t* d, const std::uint8_t* s, std::size_t n) {
  std::size_t b = 0;
  for (; b + 8 <= n; b += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, d + b, 8);
    std::memcpy(&y, s + b, 8);
    x ^= y;
    std::memcpy(d + b, &x, 8);
  }
  for (; b < n; ++b) d[b] = static_cast<std::uint8_t>(d[b] ^ s[b]);
}
}  // namespace detail

// rows(first, out): the rows of leaves first .. first + 15 at out + i * row_stride (i < 16).
// u (null: not needed) and v (depth rows of row_bytes, back to back) are written; depth >= 4;
// work: vole_work_bytes(depth, row_stride), wiped before return. The leaves are taken 16 at
// a time and the levels above folded like a binary counter: memory O(depth), not O(2^depth).
template <class Rows>
void convert_to_vole(unsigned depth, std::size_t row_bytes, std::size_t row_stride, Rows&& rows, std::uint8_t* u,
                     std::uint8_t* v, std::uint8_t* work) {
  constexpr unsigned chunk_levels = 4;  // 16 = 2^4
  if (depth < chunk_levels || depth > 30)
    throw std::invalid_argument("tempo::voleith::convert_to_vole: depth must be 4..30, got " + std::to_string(depth));
  const std::size_t n = std::size_t{1} << depth;
  std::uint8_t* out = work;                              // 16 rows
  std::uint8_t* stack = work + vole_chunk * row_stride;  // depth + 1 partial sums
  std::memset(v, 0, depth * row_bytes);
  for (std::size_t c = 0; c < n / vole_chunk; ++c) {
    rows(c * vole_chunk, out);
    for (unsigned l = 0, step = 1; l < chunk_levels; ++l, step *= 2)
      for (unsigned m = 0; m < vole_chunk; m += 2 * step) {
        detail::xor_into(v + l * row_bytes, out + (m + step) * row_stride, row_bytes);
        detail::xor_into(out + m * row_stride, out + (m + step) * row_stride, row_bytes);
      }
    unsigned level = chunk_levels;
    std::size_t idx = c;
    while (idx & 1) {
      detail::xor_into(v + level * row_bytes, out, row_bytes);
      detail::xor_into(out, stack + level * row_stride, row_bytes);
      ++level;
      idx >>= 1;
    }
    std::memcpy(stack + level * row_stride, out, row_bytes);
  }
  if (u != nullptr) std::memcpy(u, stack + depth * row_stride, row_bytes);
  secure_zero(work, vole_work_bytes(depth, row_stride));
}

}  // namespace tempo::voleith
