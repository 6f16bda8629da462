#include "uts.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace tb::uts {
namespace {

constexpr int kMaxChildren = 100;  // UTS's MAXNUMCHILDREN (the binomial root is exempt)

std::vector<Params> make_trees() {
  std::vector<Params> v;
  // T1: -t 1 -a 3 -d 10 -b 4 -r 19 -> 4130071 nodes, depth 10, 3305118 leaves.
  Params t1{"T1", Type::geometric, 4.0, 19};
  t1.gen_mx = 10;
  t1.shape = Shape::fixed;
  t1.nodes = 4130071;
  t1.leaves = 3305118;
  t1.depth = 10;
  v.push_back(t1);
  // T3: -t 0 -b 2000 -q 0.124875 -m 8 -r 42 -> 4112897 nodes, depth 1572, 3599034 leaves.
  Params t3{"T3", Type::binomial, 2000.0, 42};
  t3.q = 0.124875;
  t3.m = 8;
  t3.nodes = 4112897;
  t3.leaves = 3599034;
  t3.depth = 1572;
  v.push_back(t3);
  // Small unpublished variants for smoke runs: checked against the serial run.
  Params t1xs = t1;
  t1xs.name = "T1XS";
  t1xs.gen_mx = 6;
  t1xs.nodes = t1xs.leaves = 0;
  t1xs.depth = 0;
  v.push_back(t1xs);
  Params t3xs = t3;
  t3xs.name = "T3XS";
  t3xs.b0 = 20;
  t3xs.nodes = t3xs.leaves = 0;
  t3xs.depth = 0;
  v.push_back(t3xs);
  return v;
}

double to_prob(std::uint8_t const* s) {
  std::uint32_t b = (std::uint32_t{s[16]} << 24) | (std::uint32_t{s[17]} << 16) | (std::uint32_t{s[18]} << 8) |
                    std::uint32_t{s[19]};
  return static_cast<double>(b & 0x7fffffffu) / 2147483648.0;
}

}  // namespace

Result serial_walk(const Params& p, const Node& n) {
  int k = num_children(p, n);
  Result r = leaf_or_inner(n, k);
  for (int i = 0; i < k; ++i) r += serial_walk(p, child(n, i));
  return r;
}

const Params& params(const std::string& name) {
  static const std::vector<Params> trees = make_trees();
  for (const auto& t : trees)
    if (t.name == name) return t;
  throw std::invalid_argument("uts: unknown tree '" + name + "' (known: T1, T3, T1XS, T3XS)");
}

Node root(const Params& p) {
  std::uint8_t msg[20] = {};
  msg[16] = static_cast<std::uint8_t>(p.seed >> 24);
  msg[17] = static_cast<std::uint8_t>(p.seed >> 16);
  msg[18] = static_cast<std::uint8_t>(p.seed >> 8);
  msg[19] = static_cast<std::uint8_t>(p.seed);
  Node n;
  sha1_short(msg, 20, n.state);
  n.height = 0;
  return n;
}

int num_children(const Params& p, const Node& n) {
  int k = 0;
  if (p.type == Type::binomial) {
    if (n.height == 0) return static_cast<int>(std::floor(p.b0));  // root: exactly b0, uncapped
    k = to_prob(n.state) < p.q ? p.m : 0;
  } else {
    double b = p.b0;
    if (n.height > 0) {
      const double d = n.height, mx = p.gen_mx;
      switch (p.shape) {
        case Shape::expdec:
          b = p.b0 * std::pow(d, -std::log(p.b0) / std::log(mx));
          break;
        case Shape::cyclic:
          b = d > 5 * mx ? 0.0 : std::pow(p.b0, std::sin(2.0 * 3.141592653589793 * d / mx));
          break;
        case Shape::fixed:
          b = n.height < p.gen_mx ? p.b0 : 0.0;
          break;
        case Shape::linear:
          b = p.b0 * (1.0 - d / mx);
          break;
      }
    }
    // Geometric distribution with mean b: P(k) = (1-q)^k q, q = 1/(1+b).
    const double prob = 1.0 / (1.0 + b);
    const double u = to_prob(n.state);
    k = static_cast<int>(std::floor(std::log(1.0 - u) / std::log(1.0 - prob)));
  }
  return std::min(k, kMaxChildren);
}

// FIPS 180's example "abc" and a 55-byte message (the longest one block
// holds), checked once before any reference walk: a wrong SHA-1 would
// still give self-consistent trees for the unpublished T1XS and T3XS.
static void check_sha1() {
  static const bool ok = [] {
    const std::uint8_t abc[3] = {'a', 'b', 'c'};
    const std::uint8_t want_abc[20] = {0xa9, 0x99, 0x3e, 0x36, 0x47, 0x06, 0x81, 0x6a, 0xba, 0x3e,
                                       0x25, 0x71, 0x78, 0x50, 0xc2, 0x6c, 0x9c, 0xd0, 0xd8, 0x9d};
    std::uint8_t a55[55];
    std::fill(a55, a55 + 55, std::uint8_t{'a'});
    // sha1sum of 55 'a' characters.
    const std::uint8_t want_a55[20] = {0xc1, 0xc8, 0xbb, 0xdc, 0x22, 0x79, 0x6e, 0x28, 0xc0, 0xe1,
                                       0x51, 0x63, 0xd2, 0x08, 0x99, 0xb6, 0x56, 0x21, 0xd6, 0x5a};
    std::uint8_t got[20];
    sha1_short(abc, 3, got);
    if (!std::equal(got, got + 20, want_abc)) return false;
    sha1_short(a55, 55, got);
    return std::equal(got, got + 20, want_a55);
  }();
  if (!ok) throw std::runtime_error("uts: sha1_short fails its known-answer test (FIPS 180 \"abc\", 55 x 'a')");
}

const Result& reference(const Params& p) {
  check_sha1();
  static std::mutex m;
  static std::map<std::string, Result> cache;
  std::lock_guard lock(m);
  auto it = cache.find(p.name);
  if (it != cache.end()) return it->second;
  Result r = serial_walk(p, root(p));
  verify_published(p, r);
  return cache[p.name] = r;
}

std::string describe(const Result& r) {
  return std::to_string(r.nodes) + " nodes, " + std::to_string(r.leaves) + " leaves, depth " +
         std::to_string(r.depth);
}

void verify_published(const Params& p, const Result& r) {
  if (p.nodes == 0) return;
  Result want{p.nodes, p.leaves, p.depth};
  if (!(r == want))
    throw std::runtime_error("uts " + p.name + ": generated " + describe(r) + ", published " + describe(want));
}

}  // namespace tb::uts
