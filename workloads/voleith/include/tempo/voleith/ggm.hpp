// GGM trees and the all-but-one vector commitment on them, as FAEST v2 (BAVC, Section 5.1)
// and PERK v2.1.0 (ggm_tree.c) both lay them out: one heap-ordered tree (node a's children
// are 2a + 1 and 2a + 2) whose last `leaves` nodes are the leaves of all tau instances,
// interleaved. What differs is a parameter: the node size, the PRG that expands a node
// (Expand), where each instance's leaves sit (the caller's heap indices), and the order in
// which the opening lists its co-path (FAEST descending, PERK ascending).
//
//   commit:       expand_tree(t, shape, nodes, nullptr, expand) from nodes[0] = the root seed
//   open:         mark_hidden(shape, hidden, tau, marks) -> co-path size (the scheme checks
//                 its bound), then copath(shape, marks, order, out) -> the nodes to reveal;
//                 a signer that kept only the root expands the paths alone (expand_marked)
//   reconstruct:  mark_hidden + copath on the same hidden leaves give where the revealed
//                 seeds go; expand_tree(t, shape, nodes, marks, expand) fills every node
//                 but the hidden leaves and their ancestors.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <tempo/secure_zero.hpp>
#include <tempo/voleith/parallel.hpp>

namespace tempo::voleith {

struct TreeShape {
  std::uint32_t leaves;  // >= 2
  unsigned node_bytes;   // <= 32
  constexpr std::uint32_t nodes() const { return 2 * leaves - 1; }
  constexpr std::uint32_t first_leaf() const { return leaves - 1; }
  constexpr std::size_t mark_bytes() const { return (std::size_t{nodes()} + 7) / 8; }
};

inline bool test_mark(const std::uint8_t* m, std::size_t i) { return (m[i / 8] >> (i % 8)) & 1u; }
inline void set_mark(std::uint8_t* m, std::size_t i) { m[i / 8] = static_cast<std::uint8_t>(m[i / 8] | (1u << (i % 8))); }

// The most nodes one call of an expansion callback takes (expand_tree, expand_marked).
inline constexpr std::size_t kExpandBatch = 64;

// Expands m <= kExpandBatch nodes that are not one run (their children are not adjacent):
// through a staging buffer, each pair of children copied to its place, the buffer wiped.
template <class Expand>
void expand_scattered(std::size_t nb, std::uint8_t* nodes, const std::uint8_t* const* seeds, const std::uint32_t* index,
                      std::size_t m, Expand& expand) {
  if (m == 0) return;
  std::uint8_t out[kExpandBatch * 2 * 32];
  expand(seeds, index, m, out);
  for (std::size_t q = 0; q < m; ++q) std::memcpy(nodes + (2 * std::size_t{index[q]} + 1) * nb, out + 2 * nb * q, 2 * nb);
  secure_zero(out, 2 * nb * m);
}

// Expands the tree level by level from the nodes already there: every internal node not
// marked in `skip` (null: none) gets its two children from
//   expand(const std::uint8_t* const* seeds, const std::uint32_t* index, std::size_t n, std::uint8_t* out)
// which writes node index[q]'s children (2 * node_bytes bytes, left then right) to
// out + 2 * node_bytes * q, for up to 64 nodes per call. t (not null): each level's chunks
// run as forks (nodes of one level are independent).
template <class Expand>
void expand_tree(tempo::Task* t, TreeShape sh, std::uint8_t* nodes, const std::uint8_t* skip, Expand&& expand) {
  constexpr std::size_t chunk = kExpandBatch;
  const std::size_t nb = sh.node_bytes, internal = sh.first_leaf();
  for (std::size_t first = 0; first < internal; first = 2 * first + 1) {
    const std::size_t last = std::min(2 * first + 1, internal);
    par_for(t, (last - first + chunk - 1) / chunk, [&](std::size_t c) {
      const std::size_t a0 = first + c * chunk, a1 = std::min(last, a0 + chunk);
      const std::uint8_t* seeds[chunk] = {};
      std::uint32_t index[chunk] = {};
      std::size_t m = 0;
      for (std::size_t a = a0; a < a1; ++a)
        if (skip == nullptr || !test_mark(skip, a)) {
          seeds[m] = nodes + a * nb;
          index[m++] = static_cast<std::uint32_t>(a);
        }
      if (m == a1 - a0) {  // the whole run: its children are consecutive, written in place
        expand(seeds, index, m, nodes + (2 * a0 + 1) * nb);
        return;
      }
      expand_scattered(nb, nodes, seeds, index, m, expand);
    });
  }
}

// Marks the hidden leaves (heap indices, distinct) and all their ancestors in marks
// (mark_bytes(), zeroed by the caller); returns the size of the co-path: the unmarked
// nodes whose parent is marked, which together open every other leaf.
// A hidden index that is not a leaf is a std::invalid_argument.
inline std::size_t mark_hidden(TreeShape sh, const std::uint32_t* hidden, std::size_t n, std::uint8_t* marks) {
  std::size_t marked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (hidden[i] < sh.first_leaf() || hidden[i] >= sh.nodes())
      throw std::invalid_argument("tempo::voleith::mark_hidden: node " + std::to_string(hidden[i]) + " is not a leaf");
    std::size_t a = hidden[i];
    set_mark(marks, a);
    ++marked;
    while (a > 0 && !test_mark(marks, (a - 1) / 2)) {
      a = (a - 1) / 2;
      set_mark(marks, a);
      ++marked;
    }
  }
  // marked - n internal nodes, each with one or two marked children, marked - 1 marked children in all.
  return marked - 2 * n + 1;
}

enum class CopathOrder { descending, ascending };  // FAEST, PERK

// Calls f(a) for every marked internal node a (a < first_leaf()) in ascending order: a scan of
// the marks eight bytes at a time, so a sparse marking (tau paths in a tree of thousands of
// nodes) costs a few hundred word tests.
template <class F>
void for_each_marked_internal(TreeShape sh, const std::uint8_t* marks, F&& f) {
  const std::uint32_t internal = sh.first_leaf();
  const std::size_t bytes = (std::size_t{internal} + 7) / 8;
  for (std::size_t b = 0; b < bytes; b += 8) {
    std::uint64_t w = 0;
    const std::size_t take = std::min<std::size_t>(8, bytes - b);
    std::memcpy(&w, marks + b, take);
    if (w == 0) continue;
    for (std::size_t k = b; k < b + take; ++k)
      for (unsigned bits = marks[k]; bits != 0; bits &= bits - 1) {
        const std::uint32_t a = static_cast<std::uint32_t>(8 * k + static_cast<unsigned>(std::countr_zero(bits)));
        if (a < internal) f(a);
      }
  }
}

// The co-path of mark_hidden's marks in the scheme's order into out (co-path size entries,
// returned): the unmarked children of the marked internal nodes, which are exactly the
// unmarked siblings along the hidden paths. Children of ascending parents ascend, so no sort.
inline std::size_t copath(TreeShape sh, const std::uint8_t* marks, CopathOrder order, std::uint32_t* out) {
  std::size_t n = 0;
  for_each_marked_internal(sh, marks, [&](std::uint32_t a) {
    for (std::uint32_t c = 2 * a + 1; c <= 2 * a + 2; ++c)
      if (!test_mark(marks, c)) out[n++] = c;
  });
  if (order == CopathOrder::descending) std::reverse(out, out + n);
  return n;
}

// Expands only the marked internal nodes (mark_hidden's: the hidden leaves' ancestors) from
// the root already in nodes[0]: afterwards every node on a hidden path and every co-path node
// holds its seed, the rest of `nodes` is untouched. The signer's opening from the root alone.
// Parents come before children (ascending order); a batch of up to 64 goes to expand (as in
// expand_tree) until a node's parent is in the batch being gathered.
template <class Expand>
void expand_marked(TreeShape sh, std::uint8_t* nodes, const std::uint8_t* marks, Expand&& expand) {
  constexpr std::size_t chunk = kExpandBatch;
  const std::size_t nb = sh.node_bytes;
  const std::uint8_t* seeds[chunk] = {};
  std::uint32_t index[chunk] = {};
  std::size_t m = 0;
  auto flush = [&] {
    expand_scattered(nb, nodes, seeds, index, m, expand);
    m = 0;
  };
  for_each_marked_internal(sh, marks, [&](std::uint32_t a) {
    if (m == chunk || (m > 0 && a > 0 && (a - 1) / 2 >= index[0])) flush();
    seeds[m] = nodes + std::size_t{a} * nb;
    index[m++] = a;
  });
  flush();
}

}  // namespace tempo::voleith
