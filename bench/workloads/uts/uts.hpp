// The Unbalanced Tree Search benchmark (Olivier et al., LCPC 2006): trees
// generated on the fly from a SHA-1 splittable RNG, so every implementation
// visits exactly the same tree. Parameters and published sizes are those of
// UTS's sample_trees.sh.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "sha1.hpp"

namespace tb::uts {

enum class Type { binomial, geometric };
enum class Shape { linear = 0, expdec = 1, cyclic = 2, fixed = 3 };

struct Params {
  std::string name;
  Type type;
  double b0;          // -b root branching factor
  int seed;           // -r
  int gen_mx = 6;     // -d (geometric)
  Shape shape = Shape::linear;  // -a (geometric)
  double q = 15.0 / 64.0;       // -q (binomial)
  int m = 4;                    // -m (binomial)
  // Published size, leaves and depth; 0 = not published (checked against the
  // serial traversal only).
  std::uint64_t nodes = 0, leaves = 0;
  int depth = 0;
};

// Looks a tree up by name (T1, T3, and the small T1XS/T3XS used for smoke
// runs). Throws std::invalid_argument naming the tree otherwise.
const Params& params(const std::string& name);

struct Node {
  std::uint8_t state[20];
  int height;
};

struct Result {
  std::uint64_t nodes = 0, leaves = 0;
  int depth = 0;
  Result& operator+=(const Result& o) {
    nodes += o.nodes;
    leaves += o.leaves;
    depth = std::max(depth, o.depth);
    return *this;
  }
  friend Result operator+(Result a, const Result& b) { return a += b; }
  friend bool operator==(const Result&, const Result&) = default;
};

Node root(const Params& p);

inline Node child(const Node& parent, int i) {
  std::uint8_t msg[24];
  std::copy(parent.state, parent.state + 20, msg);
  msg[20] = static_cast<std::uint8_t>(i >> 24);
  msg[21] = static_cast<std::uint8_t>(i >> 16);
  msg[22] = static_cast<std::uint8_t>(i >> 8);
  msg[23] = static_cast<std::uint8_t>(i);
  Node c;
  sha1_short(msg, 24, c.state);
  c.height = parent.height + 1;
  return c;
}

int num_children(const Params& p, const Node& n);

// A node's own contribution to the result.
inline Result leaf_or_inner(const Node& n, int children) {
  return Result{1, children == 0 ? 1u : 0u, n.height};
}

// The whole subtree under n, walked serially, children in order.
Result serial_walk(const Params& p, const Node& n);

// The serial reference traversal (cached per tree).
const Result& reference(const Params& p);

// Throws std::runtime_error when the serial traversal disagrees with the
// published size of a standard tree.
void verify_published(const Params& p, const Result& r);

std::string describe(const Result& r);

}  // namespace tb::uts
