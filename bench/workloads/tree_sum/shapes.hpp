// The tree sum in the two shapes users write, each a template over the Task
// type so that the same source runs on tempo::Task and on tb::SerialTask:
//  - byval: branches capture the node by value and call sum directly (the
//    shape of tempo's own examples);
//  - byref: [&] branches, and t.call for the one-child calls (the shape most
//    C++ code takes, and Spice's t.call).
#pragma once
#include <cstdint>

#include "tree.hpp"

namespace tb::tree {

template <class Task>
std::int64_t sum_byval(Task& t, const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    // join checks the heartbeat itself: the branches call directly.
    auto [a, b] = t.join([n](Task& t) { return sum_byval(t, n->left); },
                         [n](Task& t) { return sum_byval(t, n->right); });
    return r + a + b;
  }
  if (n->left) r += sum_byval(t, n->left);
  if (n->right) r += sum_byval(t, n->right);
  return r;
}

template <class Task>
std::int64_t sum_byref(Task& t, const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    auto [a, b] = t.join([&](Task& t) { return sum_byref(t, n->left); },
                         [&](Task& t) { return sum_byref(t, n->right); });
    return r + a + b;
  }
  if (n->left) r += t.call(sum_byref<Task>, n->left);
  if (n->right) r += t.call(sum_byref<Task>, n->right);
  return r;
}

}  // namespace tb::tree
