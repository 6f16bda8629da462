// The CUDA kernels' per-thread code (src/cuda/ntt_device.hpp) run on the CPU: for each
// polynomial (or chunk), the same dev::run program the kernel runs, its threads one after
// another at each step (a barrier is a step boundary, so that is what the block
// computes), the column pass a thread at a time, composed as the launchers compose them.
// Checks the index logic and the table layout (detail::device_table_bytes) without a GPU,
// byte for byte against the CPU.
#include <catch2/catch.hpp>

#include <cstring>
#include <type_traits>
#include <vector>

#include <tempo/ntt/detail/kernels.hpp>

#include "cuda/ntt_device.hpp"
#include "reference.hpp"
#include "tables.hpp"

using namespace ntt_test;
namespace d = tempo::ntt::detail;
namespace dev = tempo::ntt::cuda::dev;
using dev::Pass;
using tempo::ntt::cuda::Params;

namespace {

template <typename W>
std::vector<dev::Tw2<W>> pairs_of(const std::vector<std::uint8_t>& bytes) {
  std::vector<dev::Tw2<W>> v(bytes.size() / sizeof(dev::Tw2<W>));
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

// poly_kernel over count polynomials of cpp chunks of 2^L coefficients (the tables are
// already where the program reads them: nothing to stage). Pass::product runs a pair of
// polynomials' threads: a's, then b's. S: the coefficients' word in memory.
template <typename W, bool Strict, int L, Pass K, typename S>
void emulate_poly(const Params& p, const std::vector<dev::Tw2<W>>& tables, const S* a, const S* b, S* out,
                  std::size_t count, std::uint32_t cpp) {
  using Lane = dev::Lane<W, L, S>;
  constexpr std::uint32_t T = Lane::T, slots = K == Pass::product ? 2 : 1;
  std::vector<W> buf(std::size_t{slots} * dev::buf_words(L)), stash(std::size_t{T} * Lane::R);
  std::vector<Lane> lanes(std::size_t{slots} * T);
  auto each = [&](auto&& f) {
    for (auto& l : lanes) f(l);
  };
  auto sync = [] {};
  for (std::size_t i = 0; i < count; ++i)
    for (std::uint32_t c = 0; c < cpp; ++c) {
      // Poison shared memory: a step must never read what no earlier step wrote.
      std::fill(buf.begin(), buf.end(), static_cast<W>(0xdeadbeefdeadbeefull));
      std::fill(stash.begin(), stash.end(), static_cast<W>(0xdeadbeefdeadbeefull));
      for (std::uint32_t s = 0; s < slots * T; ++s) {
        Lane& l = lanes[s];
        const bool second = s >= T;  // product: b's threads
        l.t = s % T;
        l.active = true;
        l.a = second ? b : a;
        l.b = b;
        l.out = out;
        l.item = static_cast<std::uint32_t>(i * cpp + c);
        l.buf = buf.data() + (second ? dev::buf_words(L) : 0);
        l.stash = stash.data() + l.t;
        l.stash_stride = T;
        l.partner = second ? buf.data() : nullptr;
      }
      const std::size_t first = dev::chunk_table(c, L) + (K == Pass::inverse || K == Pass::inverse_part ? 1u << L : 0);
      dev::run<K, W, Strict, L>(each, sync, sync, [] {}, tables.data() + first, p);
    }
}

template <typename W, bool Strict, int LA, bool Forward, typename S>
void emulate_column(const Params& p, const std::vector<dev::Tw2<W>>& tables, const S* in, S* out,
                    std::size_t count) {
  const int log_c = static_cast<int>(p.log_n) - LA;
  const dev::Mod<W, Strict> mod{static_cast<W>(p.q), static_cast<W>(2 * p.q)};
  const dev::Tw2<W> ninv{static_cast<W>(p.n_inv), static_cast<W>(p.n_inv_s)};
  for (std::size_t tid = 0; tid < count << log_c; ++tid) {
    const std::size_t at = ((tid >> log_c) << p.log_n) + (tid & ((std::size_t{1} << log_c) - 1));
    W x[1 << LA];
    for (int c = 0; c < (1 << LA); ++c) x[c] = static_cast<W>(in[at + (static_cast<std::size_t>(c) << log_c)]);
    dev::column<Forward, LA>(x, tables.data() + dev::column_table(static_cast<int>(p.log_n)), mod, ninv);
    for (int c = 0; c < (1 << LA); ++c) out[at + (static_cast<std::size_t>(c) << log_c)] = static_cast<S>(x[c]);
  }
}

template <int Lo, int Hi, class F>
void with_log(int L, F&& f) {
  if constexpr (Lo <= Hi) {
    if (L == Lo) return f(std::integral_constant<int, Lo>{});
    with_log<Lo + 1, Hi>(L, f);
  }
}

// The launchers' composition (ntt_kernels.cu): forward / inverse / multiply.
template <typename W, bool Strict, typename S>
struct Emulator {
  const Params& p;
  const std::vector<dev::Tw2<W>>& tables;
  int L() const { return dev::chunk_log(static_cast<int>(p.log_n)); }
  std::uint32_t cpp() const { return p.n >> L(); }
  template <Pass K>
  void poly(const S* a, const S* b, S* out, std::size_t count) const {
    with_log<4, dev::kMaxLogC>(L(), [&](auto lc) {
      emulate_poly<W, Strict, decltype(lc)::value, K, S>(p, tables, a, b, out, count, cpp());
    });
  }
  template <bool Forward>
  void column(const S* in, S* out, std::size_t count) const {
    with_log<1, 4>(static_cast<int>(p.log_n) - dev::kMaxLogC, [&](auto la) {
      emulate_column<W, Strict, decltype(la)::value, Forward, S>(p, tables, in, out, count);
    });
  }
  void forward(const S* in, S* out, std::size_t count) const {
    if (cpp() == 1) return poly<Pass::forward>(in, nullptr, out, count);
    column<true>(in, out, count);
    poly<Pass::forward>(out, nullptr, out, count);
  }
  void inverse(const S* in, S* out, std::size_t count) const {
    if (cpp() == 1) return poly<Pass::inverse>(in, nullptr, out, count);
    poly<Pass::inverse_part>(in, nullptr, out, count);
    column<false>(out, out, count);
  }
  void multiply(const S* a, const S* b, S* out, std::size_t count) const {
    if (cpp() == 1 && sizeof(W) == 4) return poly<Pass::multiply>(a, b, out, count);
    if (cpp() == 1) {
      poly<Pass::product>(a, b, out, count);
      return poly<Pass::inverse>(out, nullptr, out, count);
    }
    std::vector<S> tb(count * p.n);
    forward(a, out, count);
    forward(b, tb.data(), count);
    for (std::size_t i = 0; i < count * p.n; ++i)
      out[i] = static_cast<S>(dev::mul_mod(static_cast<W>(out[i]), static_cast<W>(tb[i]), p));
    inverse(out, out, count);
  }
};

// S: the memory word (u32: the 32-bit layout; the same values).
template <typename W, bool Strict, typename S = u64>
void check(std::size_t n, u64 q) {
  INFO("n = " << n << ", q = " << q << ", word bits = " << sizeof(W) * 8 << (Strict ? " strict" : "")
              << ", memory word bits = " << sizeof(S) * 8);
  const auto t = d::build_tables(n, q, d::minimal_root(n, q), d::portable_kernels());
  const Params p = d::device_params(*t);
  REQUIRE(p.word32 == (sizeof(W) == 4));
  REQUIRE((sizeof(W) == 4 && q >= (u64{1} << 30)) == Strict);
  const auto tables = pairs_of<W>(d::device_table_bytes(*t));
  REQUIRE(tables.size() == dev::table_pairs(static_cast<int>(t->log_n)));
  const Emulator<W, Strict, S> emu{p, tables};
  const std::size_t count = 3;
  Rng r(n * 3 + q);
  std::vector<u64> in(count * n), in_b(count * n);
  for (auto& x : in) x = r.below(q);
  for (auto& x : in_b) x = r.below(q);
  std::fill(in.begin(), in.begin() + 8, q - 1);
  std::fill(in_b.begin(), in_b.begin() + 8, q - 1);
  const std::vector<S> in_s(in.begin(), in.end()), in_b_s(in_b.begin(), in_b.end());
  std::vector<S> dev_out(count * n);
  emu.forward(in_s.data(), dev_out.data(), count);
  auto cpu = in;
  for (std::size_t i = 0; i < count; ++i) t->kernels->forward(*t, cpu.data() + i * n);
  REQUIRE(std::equal(dev_out.begin(), dev_out.end(), cpu.begin(), cpu.end()));
  std::vector<S> back(count * n);
  emu.inverse(dev_out.data(), back.data(), count);
  REQUIRE(back == in_s);
  // The product, in place on a as the launcher allows.
  std::vector<u64> want(count * n);
  std::vector<S> got = in_s;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<u64> fa(in.begin() + static_cast<std::ptrdiff_t>(i * n), in.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
    std::vector<u64> fb(in_b.begin() + static_cast<std::ptrdiff_t>(i * n), in_b.begin() + static_cast<std::ptrdiff_t>((i + 1) * n));
    t->kernels->forward(*t, fa.data());
    t->kernels->forward(*t, fb.data());
    t->kernels->pointwise(*t, fa.data(), fb.data(), fa.data(), false);
    t->kernels->inverse(*t, fa.data());
    std::copy(fa.begin(), fa.end(), want.begin() + static_cast<std::ptrdiff_t>(i * n));
  }
  emu.multiply(got.data(), in_b_s.data(), got.data(), count);
  REQUIRE(std::equal(got.begin(), got.end(), want.begin(), want.end()));
  // Pointwise Barrett, edge values included.
  for (std::size_t i = 0; i < count * n; ++i) {
    const u64 a = i < 4 ? q - 1 - i : in[i], b = i < 4 ? q - 1 : cpu[i];
    REQUIRE(static_cast<u64>(dev::mul_mod(static_cast<W>(a), static_cast<W>(b), p)) == mulmod(a, b, q));
  }
}

}  // namespace

TEST_CASE("CUDA kernel logic, emulated on the CPU", "[cuda-emulated]") {
  for (std::size_t n = 16; n <= 65536; n *= 2) {
    check<std::uint32_t, false>(n, 1073479681);  // the largest prime below 2^30 that is 1 mod 2^17
    check<std::uint32_t, true>(n, 2147352577);   // the largest prime below 2^31 that is 1 mod 2^17
    check<std::uint64_t, false>(n, 4611686018425815041ull);
    check<std::uint32_t, false, std::uint32_t>(n, 1073479681);  // the 32-bit layout
    check<std::uint32_t, true, std::uint32_t>(n, 2147352577);
  }
  check<std::uint32_t, false>(256, 8380417);
  check<std::uint32_t, false>(1024, 134215681);
  check<std::uint32_t, false, std::uint32_t>(1024, 134215681);
  check<std::uint64_t, false>(1024, 1152921504606584833ull);
  check<std::uint64_t, false>(2048, 18014398509404161ull);
}
