// The GGM tree and all-but-one vector commitment (commit, open, reconstruct), ConvertToVOLE's
// correlation, grinding, the per-thread scratch: on a small scheme built here from the
// component's parts (AES-128 PRG expansion, SHAKE128 leaf commitments).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <tempo/tempo.hpp>
#include <tempo/voleith/ggm.hpp>
#include <tempo/voleith/grind.hpp>
#include <tempo/voleith/prg.hpp>
#include <tempo/voleith/scratch.hpp>
#include <tempo/voleith/sponge.hpp>
#include <tempo/voleith/vole.hpp>

namespace v = tempo::voleith;

namespace {

constexpr unsigned nb = 16;
const std::uint8_t iv[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1};

// Children of node a: AES-128-CTR(seed_a, tweak a), 32 bytes.
auto expander(v::Isa isa) {
  return [isa](const std::uint8_t* const* seeds, const std::uint32_t* idx, std::size_t n, std::uint8_t* out) {
    const v::PrgStream s{iv, idx, 0, 2 * nb, 16, out, 2 * nb};
    v::prg(isa, v::Cipher::aes128, v::Counter::ctr32, v::Keys{seeds, nullptr, 0, nb}, n, &s, 1);
  };
}

// The toy commitment: com_x = SHAKE128(leaf_x || 1), h = SHAKE128(com_0 || ... || 2).
std::vector<std::uint8_t> leaf_com(const std::uint8_t* leaf) {
  auto s = v::Sponge::shake128();
  s.absorb(leaf, nb);
  s.finalize(1);
  std::vector<std::uint8_t> c(32);
  s.squeeze(c.data(), 32);
  return c;
}
std::vector<std::uint8_t> root_hash(const std::vector<std::vector<std::uint8_t>>& coms) {
  auto s = v::Sponge::shake128();
  for (const auto& c : coms) s.absorb(c.data(), c.size());
  s.finalize(2);
  std::vector<std::uint8_t> h(32);
  s.squeeze(h.data(), 32);
  return h;
}

struct Opening {
  std::vector<std::uint32_t> nodes;     // co-path indices
  std::vector<std::uint8_t> seeds;      // their seeds
  std::vector<std::vector<std::uint8_t>> hidden_com;
};

Opening open(v::TreeShape sh, const std::vector<std::uint8_t>& tree, const std::vector<std::uint32_t>& hidden,
             v::CopathOrder order) {
  std::vector<std::uint8_t> marks(sh.mark_bytes(), 0);
  const std::size_t n = v::mark_hidden(sh, hidden.data(), hidden.size(), marks.data());
  Opening o;
  o.nodes.resize(n);
  REQUIRE(v::copath(sh, marks.data(), order, o.nodes.data()) == n);
  for (std::uint32_t a : o.nodes) o.seeds.insert(o.seeds.end(), tree.begin() + a * nb, tree.begin() + (a + 1) * nb);
  for (std::uint32_t h : hidden) o.hidden_com.push_back(leaf_com(tree.data() + h * nb));
  return o;
}

// The verifier: the tree from the opening, then the commitment from every leaf (the hidden
// ones' commitments from the opening).
std::vector<std::uint8_t> reconstruct(tempo::Task* t, v::TreeShape sh, const std::vector<std::uint32_t>& hidden,
                                      const Opening& o, std::vector<std::uint8_t>& tree) {
  std::vector<std::uint8_t> marks(sh.mark_bytes(), 0);
  v::mark_hidden(sh, hidden.data(), hidden.size(), marks.data());
  tree.assign(std::size_t{sh.nodes()} * nb, 0);
  for (std::size_t e = 0; e < o.nodes.size(); ++e) std::memcpy(tree.data() + o.nodes[e] * nb, o.seeds.data() + e * nb, nb);
  v::expand_tree(t, sh, tree.data(), marks.data(), expander(v::active_isa("TEMPO_VOLEITH_TEST_ISA")));
  std::vector<std::vector<std::uint8_t>> coms;
  for (std::uint32_t x = sh.first_leaf(); x < sh.nodes(); ++x) {
    const auto it = std::find(hidden.begin(), hidden.end(), x);
    coms.push_back(it != hidden.end() ? o.hidden_com[std::size_t(it - hidden.begin())] : leaf_com(tree.data() + x * nb));
  }
  return root_hash(coms);
}

}  // namespace

TEST_CASE("GGM commit / open / reconstruct: every leaf but the hidden ones, a wrong opening rejected", "[vc]") {
  std::mt19937_64 g(17);
  tempo::ThreadPool pool(tempo::Options{.threads = 3});
  for (std::uint32_t leaves : {8u, 96u, 3u * 256 + 5 * 128}) {
    const v::TreeShape sh{leaves, nb};
    // Commit: the whole tree from a random root, on every instruction set alike, forks or not.
    std::vector<std::uint8_t> tree(std::size_t{sh.nodes()} * nb);
    for (unsigned b = 0; b < nb; ++b) tree[b] = static_cast<std::uint8_t>(g());
    const auto root = std::vector<std::uint8_t>(tree.begin(), tree.begin() + nb);
    v::expand_tree(nullptr, sh, tree.data(), nullptr, expander(v::Isa::portable));
    for (v::Isa isa : {v::Isa::aesni, v::Isa::vaes}) {
      if (!v::cpu_has(isa)) continue;
      std::vector<std::uint8_t> other(tree.size());
      std::memcpy(other.data(), root.data(), nb);
      pool.run([&](tempo::Task& t) { v::expand_tree(&t, sh, other.data(), nullptr, expander(isa)); });
      REQUIRE(other == tree);
    }
    std::vector<std::vector<std::uint8_t>> coms;
    for (std::uint32_t x = sh.first_leaf(); x < sh.nodes(); ++x) coms.push_back(leaf_com(tree.data() + x * nb));
    const auto h = root_hash(coms);

    for (int round = 0; round < 6; ++round) {
      std::vector<std::uint32_t> hidden;
      // Few hidden leaves, then many (more marked nodes than expand_marked's batch of 64).
      while (hidden.size() < std::min<std::uint32_t>(round < 3 ? 4 : 40, leaves / 2)) {
        const std::uint32_t x = sh.first_leaf() + static_cast<std::uint32_t>(g() % leaves);
        if (std::find(hidden.begin(), hidden.end(), x) == hidden.end()) hidden.push_back(x);
      }
      for (v::CopathOrder order : {v::CopathOrder::descending, v::CopathOrder::ascending}) {
        const Opening o = open(sh, tree, hidden, order);
        // The co-path by its definition (the unmarked nodes under a marked parent), and the
        // signer's path-only expansion from the root: the same seeds as the whole tree's.
        std::vector<std::uint8_t> marks(sh.mark_bytes(), 0);
        v::mark_hidden(sh, hidden.data(), hidden.size(), marks.data());
        std::vector<std::uint32_t> by_definition;
        for (std::uint32_t a = 1; a < sh.nodes(); ++a)
          if (!v::test_mark(marks.data(), a) && v::test_mark(marks.data(), (a - 1) / 2)) by_definition.push_back(a);
        if (order == v::CopathOrder::descending) std::reverse(by_definition.begin(), by_definition.end());
        CHECK(o.nodes == by_definition);
        std::vector<std::uint8_t> paths(tree.size(), 0);
        std::memcpy(paths.data(), tree.data(), nb);
        v::expand_marked(sh, paths.data(), marks.data(), expander(v::Isa::portable));
        for (std::uint32_t a = 0; a < sh.nodes(); ++a)
          if (v::test_mark(marks.data(), a) || (a > 0 && v::test_mark(marks.data(), (a - 1) / 2))) {
            INFO("node " << a);
            CHECK(std::memcmp(paths.data() + std::size_t{a} * nb, tree.data() + std::size_t{a} * nb, nb) == 0);
          }
        // The co-path opens every other leaf and no hidden one: ascending / descending sorted.
        CHECK(std::is_sorted(o.nodes.begin(), o.nodes.end()) == (order == v::CopathOrder::ascending));
        std::vector<std::uint8_t> rec;
        const auto h2 = pool.run([&](tempo::Task& t) { return reconstruct(&t, sh, hidden, o, rec); });
        CHECK(h2 == h);
        for (std::uint32_t x = sh.first_leaf(); x < sh.nodes(); ++x) {
          const bool is_hidden = std::find(hidden.begin(), hidden.end(), x) != hidden.end();
          const bool same = std::memcmp(rec.data() + x * nb, tree.data() + x * nb, nb) == 0;
          CHECK(same != is_hidden);
        }
        // A wrong opening: one seed bit flipped, or a hidden commitment changed, changes h.
        Opening bad = o;
        bad.seeds[g() % bad.seeds.size()] ^= 1;
        CHECK(reconstruct(nullptr, sh, hidden, bad, rec) != h);
        Opening bad2 = o;
        bad2.hidden_com[0][3] ^= 0x80;
        CHECK(reconstruct(nullptr, sh, hidden, bad2, rec) != h);
      }
    }
  }
}

TEST_CASE("mark_hidden counts the co-path: one hidden leaf needs one node per level", "[vc]") {
  const v::TreeShape sh{256, nb};  // a full tree of depth 8
  std::vector<std::uint8_t> marks(sh.mark_bytes(), 0);
  const std::uint32_t leaf = sh.first_leaf() + 77;
  CHECK(v::mark_hidden(sh, &leaf, 1, marks.data()) == 8);
  std::uint32_t path[8];
  CHECK(v::copath(sh, marks.data(), v::CopathOrder::ascending, path) == 8);
  // Two sibling leaves: their parent's sibling and up, 7 nodes.
  std::vector<std::uint8_t> m2(sh.mark_bytes(), 0);
  const std::uint32_t two[2] = {sh.first_leaf() + 10, sh.first_leaf() + 11};
  CHECK(v::mark_hidden(sh, two, 2, m2.data()) == 7);
  // An inner node is not a leaf that can be hidden.
  const std::uint32_t inner = 5;
  CHECK_THROWS_AS(v::mark_hidden(sh, &inner, 1, m2.data()), std::invalid_argument);
}

TEST_CASE("ConvertToVOLE: the verifier's q_j = v_j + Delta_j u for every column", "[vc]") {
  std::mt19937_64 g(23);
  for (unsigned depth : {4u, 7u, 8u}) {
    const std::size_t n = std::size_t{1} << depth, row = 37, stride = 48;
    std::vector<std::uint8_t> seeds(n * 16);
    for (auto& b : seeds) b = static_cast<std::uint8_t>(g());
    auto rows_of = [&](const std::uint8_t* sd, bool zero_first) {
      return [=](std::size_t first, std::uint8_t* out) {
        const v::PrgStream s{iv, nullptr, 5, row, 16, out, stride};
        v::prg(v::Isa::portable, v::Cipher::aes128, v::Counter::ctr32, v::Keys{nullptr, sd + 16 * first, 16, 16},
               v::vole_chunk, &s, 1);
        if (first == 0 && zero_first) std::memset(out, 0, row);
      };
    };
    std::vector<std::uint8_t> work(v::vole_work_bytes(depth, stride)), u(row), vv(depth * row);
    v::convert_to_vole(depth, row, stride, rows_of(seeds.data(), false), u.data(), vv.data(), work.data());
    // u is the sum of all rows, v_0 the sum of the odd ones (a direct check of one column).
    std::vector<std::uint8_t> all(n * stride), sum(row, 0), odd(row, 0);
    for (std::size_t f = 0; f < n; f += v::vole_chunk) rows_of(seeds.data(), false)(f, all.data() + f * stride);
    for (std::size_t x = 0; x < n; ++x)
      for (std::size_t b = 0; b < row; ++b) {
        sum[b] ^= all[x * stride + b];
        if (x & 1) odd[b] ^= all[x * stride + b];
      }
    CHECK(u == sum);
    CHECK(std::vector<std::uint8_t>(vv.begin(), vv.begin() + row) == odd);
    for (std::size_t delta : {std::size_t{0}, std::size_t{1}, n - 1, std::size_t(g() % n)}) {
      // The verifier: leaf x moves to x ^ delta; the hidden leaf (now 0) is unknown, taken as 0.
      std::vector<std::uint8_t> perm(n * 16, 0);
      for (std::size_t x = 0; x < n; ++x)
        if (x != delta) std::memcpy(perm.data() + 16 * (x ^ delta), seeds.data() + 16 * x, 16);
      std::vector<std::uint8_t> q(depth * row);
      v::convert_to_vole(depth, row, stride, rows_of(perm.data(), true), nullptr, q.data(), work.data());
      for (unsigned j = 0; j < depth; ++j)
        for (std::size_t b = 0; b < row; ++b) {
          const std::uint8_t want = vv[j * row + b] ^ (((delta >> j) & 1) ? u[b] : 0);
          REQUIRE(q[j * row + b] == want);
        }
    }
  }
}

TEST_CASE("Bad sizes are refused with std::invalid_argument", "[vc]") {
  std::vector<std::uint8_t> work(v::vole_work_bytes(3, 16)), v3(3 * 16);
  CHECK_THROWS_AS(v::convert_to_vole(3, 16, 16, [](std::size_t, std::uint8_t*) {}, nullptr, v3.data(), work.data()),
                  std::invalid_argument);
  const auto prefix = v::Sponge::shake128();
  std::uint8_t out[65];
  CHECK_THROWS_AS(v::grind(prefix, 4, 1, out, 65, [](const std::uint8_t*) { return true; }), std::invalid_argument);
}

TEST_CASE("Grinding finds the first accepted counter; the check rejects a wrong one", "[vc]") {
  auto prefix = v::Sponge::shake128();
  const std::uint8_t msg[5] = {1, 2, 3, 4, 5};
  prefix.absorb(msg, sizeof msg);
  for (unsigned ctr_bytes : {4u, 8u}) {
    const auto accept = [](const std::uint8_t* o) { return (o[0] & 0x3F) == 0 && (o[1] & 1) == 0; };  // 7 bits
    std::uint8_t out[24];
    const std::uint64_t c = v::grind(prefix, ctr_bytes, 0x32, out, sizeof out, accept);
    std::uint8_t check[24];
    v::grind_output(prefix, c, ctr_bytes, 0x32, check, sizeof check);
    CHECK(std::memcmp(out, check, sizeof out) == 0);
    CHECK(accept(check));
    for (std::uint64_t earlier = 0; earlier < c; ++earlier) {  // the serial search would not stop before c
      v::grind_output(prefix, earlier, ctr_bytes, 0x32, check, sizeof check);
      REQUIRE_FALSE(accept(check));
    }
    v::grind_output(prefix, c + 1, ctr_bytes, 0x32, check, sizeof check);
    CHECK(std::memcmp(out, check, sizeof out) != 0);  // another counter: another challenge
  }
}

TEST_CASE("Scratch: nested leases on one thread get distinct buffers", "[vc]") {
  v::Scratch a;
  std::uint8_t* pa = a.get_zeroed(0, 1000, true);
  pa[0] = 7;
  {
    v::Scratch b;
    std::uint8_t* pb = b.get_zeroed(0, 1000, true);
    CHECK(pb != pa);
    CHECK(pb[0] == 0);
  }
  CHECK(pa[0] == 7);
}
