// Spice's binary-tree sum: a perfectly balanced tree whose nodes sit in one
// contiguous array in pre-order; node values are their in-order index, so the
// sum of an n-node tree is n(n-1)/2.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tb::tree {

struct Node {
  std::int64_t value;
  Node* left;
  Node* right;
};

struct Tree {
  std::vector<Node> nodes;
  const Node* root() const { return nodes.data(); }
  std::size_t size() const { return nodes.size(); }
  std::int64_t expected_sum() const {
    auto n = static_cast<std::int64_t>(nodes.size());
    return n * (n - 1) / 2;
  }
};

namespace detail {
// Values [lo, hi) go under the node written at nodes[next]; the middle value is
// the root, so the tree is perfectly balanced. Recursion depth is log2(n).
inline Node* build(std::vector<Node>& nodes, std::size_t& next, std::int64_t lo, std::int64_t hi) {
  if (lo >= hi) return nullptr;
  std::int64_t mid = lo + (hi - lo) / 2;
  Node* n = &nodes[next++];
  n->value = mid;
  n->left = build(nodes, next, lo, mid);
  n->right = build(nodes, next, mid + 1, hi);
  return n;
}
}  // namespace detail

// Built once per size and shared by every variant (100M nodes take ~2.4 GB).
inline const Tree& get(std::size_t n) {
  static std::mutex m;
  static std::map<std::size_t, std::unique_ptr<Tree>> cache;
  std::lock_guard lock(m);
  auto& slot = cache[n];
  if (!slot) {
    slot = std::make_unique<Tree>();
    slot->nodes.resize(n);
    std::size_t next = 0;
    detail::build(slot->nodes, next, 0, static_cast<std::int64_t>(n));
  }
  return *slot;
}

// Small trees are summed several times per iteration (1000 nodes: 2000 times)
// so one iteration is long enough to time and amortises the pool entry.
inline std::size_t reps(std::size_t nodes, std::size_t nodes_per_iter) {
  return nodes >= nodes_per_iter ? 1 : nodes_per_iter / nodes;
}

inline std::string name(const char* variant, std::size_t nodes) {
  return std::string("tree_sum/") + variant + "/nodes:" + std::to_string(nodes);
}

}  // namespace tb::tree
