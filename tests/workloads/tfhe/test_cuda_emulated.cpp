// The CUDA bootstrap kernel's code (src/cuda/tfhe_device.hpp) run on the host: the same
// bootstrap_block the kernel runs, with the block's threads executed one after another per
// phase (a barrier = the end of a phase), against the CPU path's bytes. No GPU needed, so CI
// checks the kernel's index logic and arithmetic; test_gpu.cpp runs the real kernel on a device.
// Sizes: TOY256 always (many keys and inputs), PN10QP27 two bootstraps (not in sanitizer
// builds), PN11QP54 with TEMPO_TFHE_FULL=1; TEMPO_TFHE_EMU_SEEDS keys for TOY256 (default 4).
// The arithmetic checks (modmul, division, NTT stages, digits) cover all four sets always.
#include <catch2/catch.hpp>

#include <algorithm>
#include <barrier>
#include <cstdlib>
#include <random>
#include <string_view>
#include <thread>

#include <tempo/gpu/engine.hpp>

#include "cuda/tfhe_device.hpp"
#include "device_tables.hpp"
#include "helpers.hpp"
#include "internal.hpp"

using namespace tempo::tfhe;
namespace dev = tempo::tfhe::cuda::dev;
using dev::u32;
using dev::u64;

namespace {

// "All threads run f, then a barrier", one thread after another.
struct HostExec {
  u32 threads;
  template <class F>
  void operator()(F&& f) {
    for (u32 t = 0; t < threads; ++t) f(t);
  }
};

// The kernel's bootstrap of one combined LWE on the host, through the device tables as
// the upload would lay them out.
// latency_shape: latency_threads instead of DeviceParams::threads (the launcher's two block
// sizes; the bytes must not depend on the choice), and with 32-bit keys each step's key
// staged in the block's shared memory (the launcher's TEMPO_TFHE_GPU_STAGE_KEY=1 shape).
Ciphertext emulated_bootstrap(const detail::EvalData& d, const detail::Lwe& x, bool latency_shape = false) {
  cuda::DeviceParams p = detail::device_params(d);
  if (latency_shape) p.threads = p.latency_threads;
  p.stage_key = latency_shape && p.key32;
  const std::vector<u64> tables = detail::device_tables(d);
  const void* bk = d.bk32.empty() ? static_cast<const void*>(d.bk.data()) : static_cast<const void*>(d.bk32.data());
  std::vector<u32> in(x.a.begin(), x.a.end()), out(p.n + 1, 0xffffffffu);
  in.push_back(x.b);
  std::vector<u64> smem(cuda::block_smem_bytes(p) / sizeof(u64), 0xdeadbeefdeadbeefULL);
  HostExec ex{p.threads};
  if (p.word32)
    dev::bootstrap_block<u32>(ex, p, tables.data(), bk, d.ks.data(), in.data(), out.data(),
                              reinterpret_cast<u32*>(smem.data()), 1);
  else
    dev::bootstrap_block<u64>(ex, p, tables.data(), bk, d.ks.data(), in.data(), out.data(), smem.data(), 1);
  Ciphertext c;
  c.params_id = d.params.id;
  c.a.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(p.n));
  c.b = out[p.n];
  return c;
}

// The kernel's grouped shape on the host: blocks of `group` bootstraps (the last one with
// what is left) sharing each step's key reads, p.threads per bootstrap, as the launcher
// sets them up for batches of more than one per SM (32-bit words).
// in_place: the outputs overwrite the inputs (the gate kernel bootstraps its combined sums
// in place). doubled: 1 for p.double_threads per bootstrap (the launcher's shape for batches
// of a few items per SM), above 1 that many (TEMPO_TFHE_GPU_DOUBLE_THREADS); a block of more
// than kNarrowThreads runs the wide kernel's code.
std::vector<Ciphertext> emulated_group(const detail::EvalData& d, const std::vector<detail::Lwe>& xs, u32 group,
                                       bool stage_key, bool in_place = false, bool wide = false, u32 doubled = 0) {
  cuda::DeviceParams p = detail::device_params(d);
  REQUIRE(p.word32);
  p.group = group;
  p.threads = group * (doubled == 1 ? p.double_threads : doubled > 1 ? doubled : p.threads);
  wide = wide || p.threads > cuda::kNarrowThreads;
  p.stage_key = stage_key;
  const std::vector<u64> tables = detail::device_tables(d);
  const std::size_t stride = p.n + 1;
  std::vector<u32> in, out(xs.size() * stride, 0xffffffffu);
  for (const detail::Lwe& x : xs) {
    in.insert(in.end(), x.a.begin(), x.a.end());
    in.push_back(x.b);
  }
  std::vector<u64> smem(cuda::block_smem_bytes(p) / sizeof(u64));
  HostExec ex{p.threads};
  for (std::size_t first = 0; first < xs.size(); first += group) {
    std::fill(smem.begin(), smem.end(), 0xdeadbeefdeadbeefULL);
    const auto items = static_cast<u32>(std::min<std::size_t>(group, xs.size() - first));
    u32* dst = (in_place ? in.data() : out.data()) + first * stride;
    // The wide kernel's block code (multiply runs of two) or the narrow one's.
    if (wide)
      dev::bootstrap_block<u32, 2>(ex, p, tables.data(), d.bk32.data(), d.ks.data(), in.data() + first * stride, dst,
                                   reinterpret_cast<u32*>(smem.data()), items);
    else
      dev::bootstrap_block<u32>(ex, p, tables.data(), d.bk32.data(), d.ks.data(), in.data() + first * stride, dst,
                                reinterpret_cast<u32*>(smem.data()), items);
  }
  if (in_place) out = in;
  std::vector<Ciphertext> res(xs.size());
  for (std::size_t k = 0; k < xs.size(); ++k) {
    res[k].params_id = d.params.id;
    res[k].a.assign(out.begin() + static_cast<std::ptrdiff_t>(k * stride),
                    out.begin() + static_cast<std::ptrdiff_t>(k * stride + p.n));
    res[k].b = out[k * stride + p.n];
  }
  return res;
}

// The cluster shape's phases (dev::bootstrap_cluster) on the host: each rank on a thread of
// its own running its block's threads one after another per phase, the ranks meeting only
// at the cluster barriers, as the device's blocks do. A rank that touched another's shared
// memory between two barriers where the kernel's reasoning says it may not would race
// (ThreadSanitizer in CI) or change the bytes.
struct HostRankExec {
  u32 rank, threads;
  const std::vector<u32*>* bases;
  std::barrier<>* meet;
  u32* smem(u32 r) const { return (*bases)[r]; }
  template <class F>
  void operator()(F&& f) {
    for (u32 t = 0; t < threads; ++t) f(rank, t);
  }
  template <class F>
  void cluster(F&& f) {
    (*this)(f);
    meet->arrive_and_wait();
  }
};

// One bootstrap on a cluster of 2L blocks of `threads`, as the launcher sets it up for
// batches of a few items (each block's key buffer and tables after its rows).
Ciphertext emulated_cluster(const detail::EvalData& d, const detail::Lwe& x, u32 threads) {
  cuda::DeviceParams p = detail::device_params(d);
  REQUIRE(p.word32);
  p.group = 1;
  p.stage_key = true;
  p.threads = threads;
  const std::vector<u64> tables = detail::device_tables(d);
  std::vector<u32> in(x.a.begin(), x.a.end()), out(p.n + 1, 0xffffffffu);
  in.push_back(x.b);
  const u32 ranks = 2 * p.levels;
  std::vector<std::vector<u64>> smem(ranks,
                                     std::vector<u64>(cuda::block_smem_bytes(p) / sizeof(u64), 0xdeadbeefdeadbeefULL));
  std::vector<u32*> bases;
  for (auto& m : smem) bases.push_back(reinterpret_cast<u32*>(m.data()));
  std::barrier<> meet(ranks);
  std::vector<std::thread> blocks;
  for (u32 r = 0; r < ranks; ++r)
    blocks.emplace_back([&, r] {
      HostRankExec ex{r, threads, &bases, &meet};
      dev::bootstrap_cluster(ex, p, tables.data(), d.bk32.data(), d.ks.data(), in.data(), out.data());
    });
  for (auto& b : blocks) b.join();
  Ciphertext c;
  c.params_id = d.params.id;
  c.a.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(p.n));
  c.b = out[p.n];
  return c;
}

Ciphertext cpu_bootstrap(const detail::EvalData& d, const detail::Lwe& x) {
  Ciphertext c;
  detail::bootstrap_batch(d, std::span<const detail::Lwe>(&x, 1), std::span<Ciphertext>(&c, 1));
  return c;
}

// A random gate (or plain refresh) of fresh encryptions, combined as the gate code does.
detail::Lwe random_gate_input(const Keys& k, std::mt19937_64& rng, bool& expect) {
  const detail::EvalData& d = k.evaluation.data();
  const bool x = (rng() & 1) != 0, y = (rng() & 1) != 0;
  tfhe_test::Seed sx{}, sy{};
  for (auto& b : sx) b = static_cast<std::uint8_t>(rng());
  for (auto& b : sy) b = static_cast<std::uint8_t>(rng());
  const Ciphertext cx = encrypt_bit_deterministic(k.secret, x, sx), cy = encrypt_bit_deterministic(k.secret, y, sy);
  const Gate g = static_cast<Gate>(rng() % 6);
  const Ciphertext* in[2] = {&cx, &cy};
  expect = gate_plain(g, x, y);
  return detail::combine(d, detail::linear_of(g), in, 2);
}

// `count` of them, with their expected plain results.
std::vector<detail::Lwe> random_gate_inputs(const Keys& k, std::mt19937_64& rng, std::size_t count,
                                            std::vector<bool>& expect) {
  std::vector<detail::Lwe> xs;
  for (std::size_t i = 0; i < count; ++i) {
    bool e = false;
    xs.push_back(random_gate_input(k, rng, e));
    expect.push_back(e);
  }
  return xs;
}

template <typename W, class Tw>
void check_transforms(const detail::EvalData& d, const cuda::DeviceParams& p, const Tw& tw,
                      std::mt19937_64& rng) {
  const u64 Q = p.Q;
  std::vector<u64> orig(2 * p.N), want(2 * p.N);
  for (auto& v : orig) v = rng() % Q;
  want = orig;
  d.ring.plan.forward(std::span<u64>(want.data(), p.N));
  d.ring.plan.forward(std::span<u64>(want.data() + p.N, p.N));
  // The radix passes over two swizzled rows, as the kernel runs them. 32-bit words: every
  // other input as its representative in [Q, 2Q) (the digits enter the forward below 2Q).
  constexpr u32 S = dev::kPassBits<W>;
  std::vector<W> rows(2 * p.N);
  for (u32 j = 0; j < 2 * p.N; ++j)
    rows[(j & ~(p.N - 1)) + dev::swz(j & (p.N - 1))] = static_cast<W>(orig[j] + (sizeof(W) == 4 && j % 2 == 1 ? Q : 0));
  auto unswizzled = [&] {
    std::vector<u64> v(2 * p.N);
    for (u32 j = 0; j < 2 * p.N; ++j) v[j] = rows[(j & ~(p.N - 1)) + dev::swz(j & (p.N - 1))];
    return v;
  };
  for (u32 h = p.log_n; h > 0;) {
    const u32 bits = h < S ? h : S;
    dev::fwd_pass_bits<W, S>(bits, h - bits, rows.data(), tw, p, [&](auto&& pass) {
      for (u32 g = 0; g < (2u << (p.log_n - S)); ++g) pass(rows.data(), nullptr, g);
    });
    h -= bits;
  }
  REQUIRE(unswizzled() == want);
  // Inverse passes, the last one adding N^-1 times the result to a zero ACC.
  std::vector<W> acc(2 * p.N, 0);
  for (u32 lo = 0; lo < p.log_n;) {
    const u32 bits = lo == 0 && p.log_n % S != 0 ? p.log_n % S : S;  // bootstrap_block's order
    W* dst = lo + bits == p.log_n ? acc.data() : nullptr;
    dev::inv_pass_bits<W, S>(bits, lo, rows.data(), tw, p, [&](auto&& pass) {
      for (u32 g = 0; g < (2u << (p.log_n - S)); ++g) pass(rows.data(), dst, g);
    });
    lo += bits;
  }
  std::vector<u64> got(acc.size());  // ACC's words as values in [0, Q) (centered with 32-bit words)
  for (std::size_t j = 0; j < acc.size(); ++j) got[j] = dev::acc_word<W>(acc[j], p);
  REQUIRE(got == orig);
}

}  // namespace

TEST_CASE("emulated kernel arithmetic: modmul, division, NTT stages, digits", "[cuda-emulated]") {
  for (const char* name : {"TOY256", "PN10QP27", "PN10QP27L3", "PN11QP54"}) {
    INFO(name);
    const Params prm = Params::preset(name);
    // 32-bit words need the 32-bit key (device_params): the sets that have one are keyed
    // (PN10QP27 and PN10QP27L3 outside sanitizer builds), so the 32-bit checks below run.
    const std::string_view set = name;
    const bool keyed = set == "TOY256" || (tfhe_test::real_sets() && set != "PN11QP54");
    const detail::EvalData plain(prm);
    const detail::EvalData& d = keyed ? tfhe_test::keys(name, 0).evaluation.data() : plain;
    const cuda::DeviceParams p = detail::device_params(d);
    if (keyed) REQUIRE(p.word32);
    const std::vector<u64> tables = detail::device_tables(d);
    const dev::Tables tw(tables.data(), p.N);
    std::mt19937_64 rng(prm.id);
    const u64 Q = prm.Q;
    const std::vector<u64> edge{0, 1, 2, Q / 2, Q / 2 + 1, Q - 2, Q - 1};
    for (int i = 0; i < 2000; ++i) {
      const u64 a = i < 49 ? edge[static_cast<std::size_t>(i / 7)] : rng() % Q;
      const u64 b = i < 49 ? edge[static_cast<std::size_t>(i % 7)] : rng() % Q;
      REQUIRE(dev::mul_mod(a, b, p) == d.ring.mod.mul(a, b));
      // The CPU's rounding switch to Q_ks, as bootstrap.cpp writes it.
      const u32 want = static_cast<u32>(((static_cast<detail::u128>(a) << prm.log_qks) + Q / 2) / Q) & (prm.qks() - 1);
      REQUIRE(dev::switch_to_ks(a, p) == want);
      if (p.word32) {  // the 32-bit path's wide reduction, up to its bound 2^(k+31)
        const u64 wide = (rng() >> 1) >> (64 - 1 - (p.k + 31));
        REQUIRE(dev::reduce_wide(wide, p) == wide % Q);
        const u64 lazy = dev::reduce_wide_lazy(wide, p);  // the multiply's first reduction
        REQUIRE(lazy < 4 * Q);
        REQUIRE(lazy % Q == wide % Q);
        REQUIRE(dev::reduce_wide(a * b, p) == d.ring.mod.mul(a, b));
      }
    }
    // Forward radix passes over two rows equal tempo::ntt::Plan's forward transform; the
    // inverse passes then N^-1 give the input back (Plan's inverse: the same unique result).
    if (p.word32) {
      check_transforms<u32>(d, p, tw, rng);
      // The kernel's shared copy of the tables (loaded by two "threads"), a poisoned buffer under it.
      std::vector<u32> shared(cuda::table_smem_words(p), 0xdeadbeefu);
      const dev::SharedTables st(shared.data(), p.N, p.log_n);
      REQUIRE(st.alpha + cuda::kMaxGroup == shared.data() + cuda::table_smem_words(p));  // the layout fills the size
      for (u32 t = 0; t < 2; ++t) st.load(tw, p.N, t, 2);
      check_transforms<u32>(d, p, st, rng);
      for (u32 j = 0; j < p.N; ++j) REQUIRE(st.slot_of(j, p.log_n) == d.ring.slot[j]);
      for (u32 e = 0; e < 2 * p.N; ++e) REQUIRE(st.psi(e) == tw.psi(e));
    } else
      check_transforms<u64>(d, p, tw, rng);
    // Decomposition digits recombine to the centered value: exactly, or with dropped bits up
    // to the rounding (half a dropped unit) and, beyond the digits' range, the carry
    // B_g^L 2^drop (mod Q, centered) on top.
    const unsigned drop = prm.dropped_bits();
    const std::int64_t half_unit = drop > 0 ? std::int64_t{1} << (drop - 1) : 0;
    const u64 carry_q = static_cast<u64>((static_cast<detail::u128>(1) << (prm.log_bg * prm.levels + drop)) % Q);
    const std::int64_t carry = carry_q > Q / 2 ? static_cast<std::int64_t>(Q - carry_q) : static_cast<std::int64_t>(carry_q);
    std::vector<u64> poly(p.N), dig(p.levels * p.N), cpu_dig(p.levels * p.N);
    std::vector<std::int64_t> scratch(p.N);
    for (u32 j = 0; j < p.N; ++j) poly[j] = j < edge.size() ? edge[j] : rng() % Q;
    detail::decompose(poly, prm, scratch.data(), cpu_dig.data());
    for (u32 j = 0; j < p.N; ++j) {
      const u64 v = poly[j];
      // The kernel's closed form equals the CPU's digits, at both word widths.
      for (u32 r = 0; r < p.levels; ++r) {
        dig[r * p.N + j] = dev::digit<u64>(v, r, p);
        REQUIRE(dig[r * p.N + j] == cpu_dig[r * p.N + j]);
        if (p.word32) {
          REQUIRE(dev::digit<u32>(static_cast<u32>(v), r, p) == cpu_dig[r * p.N + j]);
          // The forward pass's form: from ACC's centered word, not reduced, in [Q - B/2, Q + B/2).
          const u32 raw = dev::digit_at<u32, false, true>(dev::acc_store<u32>(v, p), dev::DigitLevel<u32>(r, p), p);
          const u64 half_b = u64{1} << (prm.log_bg - 1);
          REQUIRE(raw + half_b >= Q);
          REQUIRE(raw < Q + half_b);
          REQUIRE(raw % Q == cpu_dig[r * p.N + j]);
          REQUIRE(dev::acc_word<u32>(dev::acc_store<u32>(v, p), p) == v);
        }
      }
      u64 sum = 0, pw = u64{1} << drop;
      for (u32 r = 0; r < p.levels; ++r) {
        REQUIRE(dig[r * p.N + j] < Q);
        sum = d.ring.mod.add(sum, d.ring.mod.mul(dig[r * p.N + j], pw % Q));
        pw <<= prm.log_bg;
      }
      const u64 diff = d.ring.mod.sub(v, sum);
      const std::int64_t off = diff > Q / 2 ? -static_cast<std::int64_t>(Q - diff) : static_cast<std::int64_t>(diff);
      INFO("coefficient " << v << " off by " << off);
      if (drop == 0) REQUIRE(off == 0);
      else REQUIRE((std::abs(off) <= half_unit || std::abs(std::abs(off) - carry) <= half_unit));
    }
  }
}

TEST_CASE("emulated kernel bootstrap equals the CPU bytes (TOY256, TOY256G2, many keys)", "[cuda-emulated]") {
  const std::size_t key_count = tfhe_test::env_count("TEMPO_TFHE_EMU_SEEDS", 4), per_key = 8;
  std::size_t equal = 0;
  for (std::size_t ks = 0; ks < 2 * key_count; ++ks) {
    const char* name = ks % 2 == 0 ? "TOY256" : "TOY256G2";  // one-coefficient and multi-bit steps
    INFO(name);
    const Keys& k = tfhe_test::keys(name, 100 + ks / 2);
    const detail::EvalData& d = k.evaluation.data();
    std::mt19937_64 rng(0xe1u + ks);
    for (std::size_t i = 0; i < per_key; ++i) {
      INFO("key " << ks << " input " << i);
      bool expect = false;
      const detail::Lwe x = random_gate_input(k, rng, expect);
      const Ciphertext got = emulated_bootstrap(d, x);
      REQUIRE(to_bytes(got) == to_bytes(cpu_bootstrap(d, x)));
      REQUIRE(decrypt_bit(k.secret, got) == expect);
      REQUIRE(to_bytes(emulated_bootstrap(d, x, true)) == to_bytes(got));
      ++equal;
    }
    // Some steps with one coefficient zero (multi-bit: the other alone), some with both.
    {
      bool bit = false;
      detail::Lwe x = random_gate_input(k, rng, bit);
      for (std::size_t i = 0; i < d.params.n; ++i)
        if (i % 3 == 0 || i % 8 < 2) x.a[i] = 0;
      REQUIRE(to_bytes(emulated_bootstrap(d, x)) == to_bytes(cpu_bootstrap(d, x)));
    }
    // Edge inputs: all-zero mask (every step skipped) and the largest values.
    detail::Lwe zero{std::vector<std::uint32_t>(d.params.n, 0), 0};
    detail::Lwe top{std::vector<std::uint32_t>(d.params.n, d.params.q() - 1), d.params.q() - 1};
    REQUIRE(to_bytes(emulated_bootstrap(d, zero)) == to_bytes(cpu_bootstrap(d, zero)));
    REQUIRE(to_bytes(emulated_bootstrap(d, top)) == to_bytes(cpu_bootstrap(d, top)));
    equal += 2;
  }
  WARN("emulated kernel: " << equal << " TOY256 and TOY256G2 bootstraps byte-equal to the CPU path");
}

TEST_CASE("32-bit key layout: a permutation of bk's order, the device's index equal to the host's", "[cuda-emulated]") {
  for (const char* name : {"TOY256", "TOY256G2"}) {
    INFO(name);
    const Keys& k = tfhe_test::keys(name, 0);
    const detail::EvalData& d = k.evaluation.data();
    REQUIRE(!d.bk32.empty());
    const cuda::DeviceParams p = detail::device_params(d);
    const std::size_t rows = 2 * d.params.levels, N = d.params.N;
    const u32 P = d.params.patterns();
    std::vector<bool> seen(d.bk32.size(), false);
    std::size_t idx = 0, bad = 0;  // idx in bk's order: ((i, t, row, col), j)
    for (std::size_t i = 0; i < d.params.steps(); ++i)
      for (u32 t = 0; t < P; ++t)
        for (std::size_t r = 0; r < rows; ++r)
          for (u32 col = 0; col < 2; ++col)
            for (std::size_t j = 0; j < N; ++j, ++idx) {
              const std::size_t pos = d.bk32_position(idx);
              const bool ok = pos < seen.size() && !seen[pos] &&
                              pos == i * d.step_stride() + d.bk32_offset(t, r, col, j) &&
                              pos == dev::key32_index(static_cast<u32>(i), t, static_cast<u32>(r), col,
                                                      static_cast<u32>(j), p) &&
                              d.bk_value(idx) == d.bk32[pos];
              if (ok) seen[pos] = true;
              else ++bad;
            }
    REQUIRE(bad == 0);
    REQUIRE(idx == d.bk32.size());
  }
}

TEST_CASE("emulated kernel: blocks of several bootstraps equal the CPU bytes", "[cuda-emulated]") {
  // Groups of 1 .. kMaxGroup items per block, the narrow and the wide kernel's block code
  // (multiply runs of up to kNarrowGroup or two items), the key read from global memory or
  // staged in shared memory, batches that leave a partial last block, inputs whose steps are
  // zero for some items of a block only (and for all of them), TOY256 keys; PN10QP27L3 once
  // outside the sanitizer builds, in the launcher's shape for large batches (six items, wide).
  for (std::size_t ks = 0; ks < 3; ++ks) {
    const char* name = ks < 2 ? "TOY256" : "TOY256G2";
    INFO(name);
    const Keys& k = tfhe_test::keys(name, 200 + ks);
    const detail::EvalData& d = k.evaluation.data();
    std::mt19937_64 rng(0x9e0u + ks);
    std::vector<bool> expect;
    std::vector<detail::Lwe> xs = random_gate_inputs(k, rng, 7, expect);
    // Item 2: every other step zero; item 5: all steps zero (its block still runs them).
    for (std::size_t i = 0; i < d.params.n; i += 2) xs[2].a[i] = 0;
    std::fill(xs[5].a.begin(), xs[5].a.end(), 0u);
    std::vector<std::vector<std::byte>> want;
    for (const detail::Lwe& x : xs) want.push_back(to_bytes(cpu_bootstrap(d, x)));
    for (u32 shape = 0; shape < 4 * cuda::kMaxGroup; ++shape) {
      const u32 group = shape / 4 + 1;
      const bool stage = shape % 2 == 1, wide = shape % 4 >= 2;
      if (!wide && group > cuda::kNarrowGroup) continue;  // the launcher's narrow blocks hold at most four
      INFO("key " << ks << " group " << group << " staged key " << stage << " wide " << wide);
      const std::vector<Ciphertext> got = emulated_group(d, xs, group, stage, false, wide);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        INFO("item " << i);
        REQUIRE(to_bytes(got[i]) == want[i]);
        if (i != 2 && i != 5) REQUIRE(decrypt_bit(k.secret, got[i]) == expect[i]);
      }
    }
    // The wide block code with a last block of four (ten items, groups of six): its third
    // multiply run is empty.
    {
      std::vector<detail::Lwe> ten(xs);
      std::vector<bool> more;
      for (const detail::Lwe& x : random_gate_inputs(k, rng, 3, more)) ten.push_back(x);
      const std::vector<Ciphertext> got = emulated_group(d, ten, cuda::kMaxGroup, false, false, true);
      for (std::size_t i = 0; i < ten.size(); ++i) REQUIRE(to_bytes(got[i]) == to_bytes(cpu_bootstrap(d, ten[i])));
    }
    // In place, as the gate kernel runs it.
    const std::vector<Ciphertext> inplace = emulated_group(d, xs, 3, true, true);
    for (std::size_t i = 0; i < xs.size(); ++i) REQUIRE(to_bytes(inplace[i]) == want[i]);
    // A block whose items all skip a step: both inputs zero at every even step.
    std::vector<detail::Lwe> pair{xs[0], xs[1]};
    for (auto& x : pair)
      for (std::size_t i = 0; i < d.params.n; i += 2) x.a[i] = 0;
    const std::vector<Ciphertext> got = emulated_group(d, pair, 2, true);
    for (std::size_t i = 0; i < 2; ++i) REQUIRE(to_bytes(got[i]) == to_bytes(cpu_bootstrap(d, pair[i])));
    // The doubled shape's threads per bootstrap, groups of one and two (odd count: a last
    // block of one).
    for (u32 group = 1; group <= 2; ++group) {
      INFO("doubled threads, group " << group);
      const std::vector<Ciphertext> dbl = emulated_group(d, xs, group, false, false, false, 1);
      for (std::size_t i = 0; i < xs.size(); ++i) REQUIRE(to_bytes(dbl[i]) == want[i]);
    }
  }
  if (!tfhe_test::real_sets()) return;
  for (const char* name : {"PN10QP27L3", "PN10QP27L3G2"}) {
  INFO(name);
  const Keys& k = tfhe_test::keys(name, 0);
  std::mt19937_64 rng(11);
  std::vector<bool> expect;
  const std::vector<detail::Lwe> xs = random_gate_inputs(k, rng, cuda::kMaxGroup, expect);
  // The wide shape, a narrow group of three with the key staged (key_slot's padding at L = 3),
  // and the doubled shape's pairs at TEMPO_TFHE_GPU_DOUBLE_THREADS=384 (2L x 64: one forward
  // radix group per thread; the wide kernel's code).
  for (const int shape : {0, 1, 2}) {
    const std::vector<Ciphertext> got = shape == 0   ? emulated_group(k.evaluation.data(), xs, cuda::kMaxGroup, false, false, true)
                                        : shape == 1 ? emulated_group(k.evaluation.data(), xs, 3, true)
                                                     : emulated_group(k.evaluation.data(), xs, 2, false, false, false, 384);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      INFO("shape " << shape << " item " << i);
      REQUIRE(to_bytes(got[i]) == to_bytes(cpu_bootstrap(k.evaluation.data(), xs[i])));
      REQUIRE(decrypt_bit(k.secret, got[i]) == expect[i]);
    }
  }
  }
}

TEST_CASE("the kernel shapes' variables are read and checked with the device parameters", "[cuda-emulated]") {
  const detail::EvalData& d = tfhe_test::keys("TOY256", 0).evaluation.data();
  REQUIRE(detail::device_params(d).double_threads == 2 * detail::device_params(d).threads);
  ::setenv("TEMPO_TFHE_GPU_DOUBLE_THREADS", "384", 1);
  CHECK(detail::device_params(d).double_threads == 384);
  for (const char* bad : {"16", "385", "two"}) {
    ::setenv("TEMPO_TFHE_GPU_DOUBLE_THREADS", bad, 1);
    CHECK_THROWS_WITH(detail::device_params(d), Catch::Contains("TEMPO_TFHE_GPU_DOUBLE_THREADS"));
  }
  ::unsetenv("TEMPO_TFHE_GPU_DOUBLE_THREADS");
}

TEST_CASE("the doubled shape: batches of at most two per SM, or up to the cap with full waves", "[cuda-emulated]") {
  cuda::DeviceParams p = detail::device_params(tfhe_test::keys("TOY256", 0).evaluation.data());
  REQUIRE(p.double_per_sm == 2);  // the default: one wave
  const std::size_t sms = 132;
  CHECK(cuda::doubled_shape(p, 264, sms));
  CHECK_FALSE(cuda::doubled_shape(p, 511, sms));
  p.double_per_sm = 4;  // TEMPO_TFHE_GPU_DOUBLE_PER_SM=4: two waves when the second is full enough
  for (std::size_t b : {2u, 133u, 200u, 264u, 495u, 511u, 528u}) CHECK(cuda::doubled_shape(p, b, sms));
  // The second wave of pairs less than 7/8 full (265 .. 494: 231 of 264 pairs' slots), or
  // above the cap.
  for (std::size_t b : {265u, 396u, 462u, 494u, 529u, 1024u}) CHECK_FALSE(cuda::doubled_shape(p, b, sms));
  p.double_per_sm = 6;  // three waves: the third one's fill decides
  CHECK(cuda::doubled_shape(p, 759, sms));
  CHECK_FALSE(cuda::doubled_shape(p, 758, sms));
  p.double_per_sm = 2;
  CHECK(cuda::doubled_shape(p, 264, sms));
  CHECK_FALSE(cuda::doubled_shape(p, 511, sms));
  p.double_per_sm = 0;
  CHECK_FALSE(cuda::doubled_shape(p, 133, sms));
}

TEST_CASE("resident groups: the neighbouring group that keeps the most bootstraps on an SM", "[cuda-emulated]") {
  // PN10QP27L3 on an H100: blocks of 1, 2, 3, 4 hold 3, 2, 1, 1 per SM (3, 4, 3, 4 bootstraps).
  CHECK(cuda::resident_group(3, 2, 1, 1) == 2);  // four (two blocks of two) against three
  CHECK(cuda::resident_group(1, 0, 3, 2) == 2);  // four against three
  CHECK(cuda::resident_group(2, 3, 2, 1) == 2);  // four against three either way
  CHECK(cuda::resident_group(4, 1, 1, 0) == 4);  // four against three, nothing above
  CHECK(cuda::resident_group(2, 3, 1, 0) == 1);  // three against two
  CHECK(cuda::resident_group(3, 0, 0, 0) == 3);  // nothing known: as chosen
  CHECK(cuda::resident_group(2, 4, 2, 1) == 2);  // a tie stays
  cuda::DeviceParams p = detail::device_params(tfhe_test::keys("TOY256", 0).evaluation.data());
  CHECK(p.resident_groups);  // the default
  ::setenv("TEMPO_TFHE_GPU_RESIDENT_GROUPS", "0", 1);
  CHECK_FALSE(detail::device_params(tfhe_test::keys("TOY256", 0).evaluation.data()).resident_groups);
  ::setenv("TEMPO_TFHE_GPU_RESIDENT_GROUPS", "maybe", 1);
  CHECK_THROWS_WITH(detail::device_params(tfhe_test::keys("TOY256", 0).evaluation.data()),
                    Catch::Contains("TEMPO_TFHE_GPU_RESIDENT_GROUPS"));
  ::unsetenv("TEMPO_TFHE_GPU_RESIDENT_GROUPS");
}

TEST_CASE("emulated cluster bootstrap equals the CPU bytes", "[cuda-emulated]") {
  // TOY256 (2L = 8 ranks, one run of 32 coefficients each): several keys, inputs with steps
  // skipped, the edges; 256, 96 and 32 threads per block (loops that wrap or leave threads
  // idle). PN10QP27L3 (6 ranks, slices of 160 and 192) and PN10QP27 (8 ranks) once each
  // outside the sanitizer builds.
  for (std::size_t ks = 0; ks < 3; ++ks) {
    const char* name = ks < 2 ? "TOY256" : "TOY256G2";
    const Keys& k = tfhe_test::keys(name, 300 + ks);
    const detail::EvalData& d = k.evaluation.data();
    std::mt19937_64 rng(0xc1u + ks);
    std::vector<bool> expect;
    std::vector<detail::Lwe> xs = random_gate_inputs(k, rng, 4, expect);
    for (std::size_t i = 0; i < d.params.n; i += 2) xs[1].a[i] = 0;
    xs.push_back(detail::Lwe{std::vector<std::uint32_t>(d.params.n, 0), 0});
    xs.push_back(detail::Lwe{std::vector<std::uint32_t>(d.params.n, d.params.q() - 1), d.params.q() - 1});
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const auto want = to_bytes(cpu_bootstrap(d, xs[i]));
      for (const u32 threads : {256u, 96u, 32u}) {
        INFO(name << " key " << ks << " input " << i << " threads " << threads);
        const Ciphertext got = emulated_cluster(d, xs[i], threads);
        REQUIRE(to_bytes(got) == want);
        if (i < expect.size() && i != 1) REQUIRE(decrypt_bit(k.secret, got) == expect[i]);
      }
    }
  }
  if (!tfhe_test::real_sets()) return;
  for (const char* name : {"PN10QP27L3", "PN10QP27", "PN10QP27L3G2"}) {
    const Keys& k = tfhe_test::keys(name, 0);
    std::mt19937_64 rng(13);
    bool expect = false;
    const detail::Lwe x = random_gate_input(k, rng, expect);
    INFO(name);
    const Ciphertext got = emulated_cluster(k.evaluation.data(), x, 256);
    REQUIRE(to_bytes(got) == to_bytes(cpu_bootstrap(k.evaluation.data(), x)));
    REQUIRE(decrypt_bit(k.secret, got) == expect);
  }
}

TEST_CASE("emulated kernel bootstrap equals the CPU bytes (PN10QP27, PN10QP27L3, PN10QP27L3G2, PN11QP54)", "[cuda-emulated]") {
  if (!tfhe_test::real_sets()) return;  // sanitizer builds: TOY256 only
  std::vector<std::pair<const char*, std::size_t>> sets{{"PN10QP27", 2}, {"PN10QP27L3", 2}, {"PN10QP27L3G2", 2}};
  if (tfhe_test::full()) sets.emplace_back("PN11QP54", 2);  // a PN11QP54 key is 0.6 GB
  for (const auto& [name, count] : sets) {
    const Keys& k = tfhe_test::keys(name, 0);
    std::mt19937_64 rng(7);
    for (std::size_t i = 0; i < count; ++i) {
      INFO(name << " input " << i);
      bool expect = false;
      const detail::Lwe x = random_gate_input(k, rng, expect);
      const Ciphertext got = emulated_bootstrap(k.evaluation.data(), x, i % 2 == 1);
      REQUIRE(to_bytes(got) == to_bytes(cpu_bootstrap(k.evaluation.data(), x)));
      REQUIRE(decrypt_bit(k.secret, got) == expect);
    }
  }
}

// The CPU's AVX-512 loops (multiply-accumulate, decomposition) against its portable ones:
// the same bytes (on a CPU without AVX-512 both runs take the portable loops).
TEST_CASE("CPU bootstrap: vector and portable loops give the same bytes", "[cuda-emulated]") {
  std::vector<std::pair<const char*, std::size_t>> sets{{"TOY256", 16}, {"TOY256G2", 16}};
  if (tfhe_test::real_sets()) {
    sets.emplace_back("PN10QP27", 2);
    sets.emplace_back("PN10QP27L3", 2);
    sets.emplace_back("PN10QP27L3G2", 2);
  }
  struct Restore {
    ~Restore() { detail::set_vector_kernels(true); }
  } restore;
  for (const auto& [name, count] : sets) {
    const Keys& k = tfhe_test::keys(name, 3);
    const detail::EvalData& d = k.evaluation.data();
    std::mt19937_64 rng(0x5eedu);
    for (std::size_t i = 0; i < count; ++i) {
      INFO(name << " input " << i);
      bool expect = false;
      const detail::Lwe x = random_gate_input(k, rng, expect);
      detail::set_vector_kernels(true);
      const Ciphertext vec = cpu_bootstrap(d, x);
      detail::set_vector_kernels(false);
      const Ciphertext portable = cpu_bootstrap(d, x);
      REQUIRE(to_bytes(vec) == to_bytes(portable));
      REQUIRE(decrypt_bit(k.secret, vec) == expect);
    }
  }
}

TEST_CASE("emulated combination kernel equals the host's gate sums", "[cuda-emulated]") {
  // The device step before a GateOp's (or BootstrapOp's) bootstrap, word by word as its
  // threads compute it, against detail::combine, for every gate and the refresh.
  const Keys& k = tfhe_test::keys("TOY256", 0);
  const detail::EvalData& d = k.evaluation.data();
  const cuda::DeviceParams p = detail::device_params(d);
  const std::size_t n = d.params.n, words = n + 1, count = 5;
  std::mt19937_64 rng(3);
  std::vector<Ciphertext> xs, ys;
  std::vector<u32> x, y;
  for (std::size_t i = 0; i < count; ++i) {
    tfhe_test::Seed s{};
    for (auto& b : s) b = static_cast<std::uint8_t>(rng());
    xs.push_back(encrypt_bit_deterministic(k.secret, (i & 1) != 0, s));
    s[0] ^= 1;
    ys.push_back(encrypt_bit_deterministic(k.secret, (i & 2) != 0, s));
    for (const auto& [c, w] : {std::pair{&xs.back(), &x}, std::pair{&ys.back(), &y}}) {
      w->insert(w->end(), c->a.begin(), c->a.end());
      w->push_back(c->b);
    }
  }
  std::vector<std::pair<detail::Linear, unsigned>> sums{{detail::kRefresh, 1}};
  for (Gate g : {Gate::and_, Gate::or_, Gate::xor_, Gate::nand, Gate::nor, Gate::xnor})
    sums.emplace_back(detail::linear_of(g), 2);
  for (const auto& [lin, arity] : sums) {
    const cuda::Combination c{static_cast<u32>(lin.w[0]), arity > 1 ? static_cast<u32>(lin.w[1]) : 0u,
                              detail::offset_word(lin, d.params)};
    for (std::size_t i = 0; i < count; ++i) {
      const Ciphertext* in[2] = {&xs[i], &ys[i]};
      const detail::Lwe want = detail::combine(d, lin, in, arity);
      for (std::size_t w = 0; w < words; ++w)
        REQUIRE(dev::combine_word(c, p, x.data(), y.data(), i * words + w) == (w < n ? want.a[w] : want.b));
    }
  }
}

TEST_CASE("bootstrap and gate ops on simulated devices: packing, chunks and the ops' CPU code", "[cuda-emulated]") {
  // Simulated devices claim chunks like devices and run the op's cpu(): the GPU path's
  // batch layout and engine plumbing, checked without a GPU (the kernel is checked above).
  tempo::gpu::Engine engine(tempo::gpu::EngineOptions{.simulated_devices = 2});
  const Keys& k = tfhe_test::keys("TOY256", 0);
  const Params& prm = k.secret.params();
  const std::size_t words = prm.n + 1, count = 40;
  std::vector<Ciphertext> xs, ys;
  std::vector<u32> x, y;
  for (std::size_t i = 0; i < count; ++i) {
    xs.push_back(encrypt_bit_deterministic(k.secret, (i % 3) == 1, tfhe_test::seed(90, i)));
    ys.push_back(encrypt_bit_deterministic(k.secret, (i % 5) < 2, tfhe_test::seed(91, i)));
    for (const auto& [c, w] : {std::pair{&xs.back(), &x}, std::pair{&ys.back(), &y}}) {
      w->insert(w->end(), c->a.begin(), c->a.end());
      w->push_back(c->b);
    }
  }
  std::vector<Ciphertext> gates(count), fresh(count);
  tfhe_test::pool().run([&](tempo::Task& t) {
    eval_gates(t, k.evaluation, Gate::xnor, xs, ys, gates, tempo::Backend::cpu);
    eval_bootstraps(t, k.evaluation, xs, fresh, tempo::Backend::cpu);
  });
  auto bytes = [](const std::vector<u32>& v) {
    return std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 4);
  };
  auto item = [&](const std::vector<u32>& v, std::size_t i) {
    Ciphertext c;
    c.params_id = prm.id;
    const auto first = v.begin() + static_cast<std::ptrdiff_t>(i * words);
    c.a.assign(first, first + static_cast<std::ptrdiff_t>(prm.n));
    c.b = v[i * words + prm.n];
    return c;
  };
  const GateOp gate(k.evaluation, Gate::xnor, engine);
  const BootstrapOp boot(k.evaluation, engine);
  for (auto place : {tempo::gpu::Placement::gpu, tempo::gpu::Placement::split}) {
    tempo::gpu::RunOptions opt(tempo::Backend::auto_select);
    opt.force = true;
    opt.forced = place;
    std::vector<u32> g(x.size()), b = x;  // the refresh runs in place
    tfhe_test::pool().run([&](tempo::Task& t) {
      const auto rg = engine.run(t, gate, {tempo::gpu::Operand::fixed(bytes(x), gate.out_stride()),
                                           tempo::gpu::Operand::fixed(bytes(y), gate.out_stride())},
                                 std::span(reinterpret_cast<std::uint8_t*>(g.data()), g.size() * 4), opt);
      CHECK(rg.gpu_items > 0);
      const auto rb = engine.run(t, boot, {tempo::gpu::Operand::fixed(bytes(b), boot.out_stride())},
                                 std::span(reinterpret_cast<std::uint8_t*>(b.data()), b.size() * 4), opt);
      CHECK(rb.gpu_items > 0);
    });
    for (std::size_t i = 0; i < count; ++i) {
      INFO(tempo::gpu::placement_name(place) << " item " << i);
      REQUIRE(item(g, i) == gates[i]);
      REQUIRE(item(b, i) == fresh[i]);
    }
  }
}
