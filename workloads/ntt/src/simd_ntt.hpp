// The NTT written once over a vector-ops type V (AVX2 or AVX-512, each with a Shoup shift
// S of 64, 52 or 32 bits). No intrinsics here: V supplies them. Included by the per-ISA
// translation units, each compiled for its ISA.
//
// V provides: reg, L (lanes), S (Shoup shift), K (per-modulus constants) and
//   K make(u64 q); reg load(const u64*); void store(u64*, reg); reg set1(u64);
//   reg add(reg, reg); reg sub(reg, reg); reg csub(reg x, reg m)  (x < 2m -> x mod m);
//   reg mul_lazy(reg y, reg w, reg ws, const K&)   (w*y mod q in [0, 2q); y < 2^S);
//   split(s, v0, v1, x, y) / merge(s, x, y, v0, v1) for the stages with len = L >> (s+1)
//   and lane(s, which, k): the index in [0, 2L) of the element that lane k of x (which 0)
//   or y (which 1) holds after split; BK make_barrett(const Barrett&) and
//   reg mul_mod(reg a, reg b, const BK&) (a*b mod q, fully reduced) for pointwise; for the
//   checked forms (Check below), reg max(reg, reg) (unsigned) and bool any_ge(reg m, reg q).
//
// Twiddle layout (Tables::kfwd/kinv and their _s companions, written by prepare<V>): one
// entry per block for stages with len >= L (broadcast), then per 2L coefficients each small
// stage's per-lane entries (tw_count: L, or the 2^(s+1) distinct ones where V has load_tw),
// in the order the loops below read them; the forward's folded stages (folded_stages) sit
// ahead of their unit's small-stage entries. Inverse: small stages first, then the large
// ones, and (n^-1, inv[1]*n^-1) for the last stage at the end.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "tables.hpp"

namespace tempo::ntt::detail::simd {

inline u64 shoup_shift(u64 w, u64 q, int s) {
  return static_cast<u64>((static_cast<u128>(w) << s) / q);
}

// Small-stage twiddles. With V::load_tw (the ops' layouts put the 2^(s+1) blocks of stage
// s in lanes k mod 2^(s+1)), stage s stores only its 2^(s+1) distinct twiddles per 2L
// coefficients and load_tw broadcasts them; else L per-lane entries, read by load.
template <class V>
constexpr bool kCompactTwiddles = requires(const u64* p) { V::load_tw(0, p); };
template <class V>
constexpr std::size_t tw_count(int s) {
  return kCompactTwiddles<V> ? std::size_t{2} << s : V::L;
}
template <class V>
constexpr std::size_t tw_offset(int s) {  // of stage s within a block's twiddles
  std::size_t o = 0;
  for (int i = 0; i < s; ++i) o += tw_count<V>(i);
  return o;
}
template <class V>
inline typename V::reg load_tw(int s, const u64* p) {
  if constexpr (kCompactTwiddles<V>) return V::load_tw(s, p);
  else return V::load(p);
}

// From the layout after split(f) to the one after split(t): the ops' own two-permute
// transition where they have one, else merge and split.
template <class V>
inline void transition(int f, int t, typename V::reg& x, typename V::reg& y) {
  if constexpr (requires { V::transition(f, t, x, y); }) {
    V::transition(f, t, x, y);
  } else {
    typename V::reg v0, v1;
    V::merge(f, x, y, v0, v1);
    V::split(t, v0, v1, x, y);
  }
}

// AVX-512: the forward's last one or two stages with len >= L (one when their count is
// odd) run in the small-stage pass, before its split: len L pairs the two registers of a
// 2L block as loaded, len 2L the registers L apart in a 4L block (a radix-4 group as in
// the large passes). The large passes are then radix 4 only. AVX2 (16 registers): none,
// the large passes end with a radix-4 pass down to len L or a lone stage len L (measured
// faster there).
inline int folded_stages(std::size_t n, std::size_t lanes) {
  if (lanes < 8) return 0;
  int big = 0;  // stages with len >= lanes
  for (std::size_t len = n / 2; len >= lanes; len >>= 1) ++big;
  return big % 2 ? 1 : 2;
}

template <class V>
void prepare(Tables& t) {
  constexpr std::size_t L = V::L;
  const std::size_t n = t.n;
  t.kfwd.clear();
  t.kinv.clear();
  // Forward: stage len uses fwd[n/(2 len) + block]. Pairs of stages (len, len/2) run
  // fused down to the folded ones: per block of 2 len, the twiddle of len, then the two of
  // len/2.
  const int fold = folded_stages(n, L);
  std::size_t len = n / 2;
  for (; len >= 2 * L && len > (fold == 2 ? 2 * L : L); len >>= 2)
    for (std::size_t b = 0; b < n / (2 * len); ++b) {
      t.kfwd.push_back(t.fwd[n / (2 * len) + b]);
      t.kfwd.push_back(t.fwd[n / len + 2 * b]);
      t.kfwd.push_back(t.fwd[n / len + 2 * b + 1]);
    }
  if (fold == 0 && len >= L)  // a lone stage len L
    for (std::size_t b = 0; b < n / (2 * len); ++b) t.kfwd.push_back(t.fwd[n / (2 * len) + b]);
  // The small-stage pass: per unit (of 2L coefficients, 4L with two folded stages) the
  // folded stages' twiddles (len 2L, then the two of len L; or the one of len L), then per
  // 2L block each small stage's tw_count per-lane twiddles.
  const std::size_t unit = fold == 2 ? 4 * L : 2 * L;
  for (std::size_t base = 0; base < n; base += unit) {
    if (fold == 2) {
      t.kfwd.push_back(t.fwd[n / (4 * L) + base / (4 * L)]);
      t.kfwd.push_back(t.fwd[n / (2 * L) + base / (2 * L)]);
      t.kfwd.push_back(t.fwd[n / (2 * L) + base / (2 * L) + 1]);
    } else if (fold == 1) {
      t.kfwd.push_back(t.fwd[n / (2 * L) + base / (2 * L)]);
    }
    for (std::size_t b = base; b < base + unit; b += 2 * L)
      for (int s = 0; s < V::small_stages; ++s) {
        const std::size_t slen = L >> (s + 1);
        for (std::size_t k = 0; k < tw_count<V>(s); ++k)
          t.kfwd.push_back(t.fwd[n / (2 * slen) + (b + static_cast<std::size_t>(V::lane(s, 0, static_cast<int>(k)))) / (2 * slen)]);
      }
  }
  // Inverse: stage len uses inv[n/len - 1 - block]; small stages run len = 1, 2, ..., L/2.
  // (m = 1, whose inv[] entry carries 1/n, only occurs in the last stage.)
  for (std::size_t base = 0; base < n; base += 2 * L)
    for (int s = V::small_stages - 1; s >= 0; --s) {
      const std::size_t slen = L >> (s + 1);
      for (std::size_t k = 0; k < tw_count<V>(s); ++k)
        t.kinv.push_back(t.inv[n / slen - 1 - (base + static_cast<std::size_t>(V::lane(s, 0, static_cast<int>(k)))) / (2 * slen)]);
    }
  // Large stages len = L, 2L, ... below n/2, fused in pairs (len, 2 len) while 2 len < n/2:
  // per block of 4 len, the two twiddles of len, then the one of 2 len.
  std::size_t ilen = L;
  for (; 2 * ilen < n / 2; ilen <<= 2)
    for (std::size_t b = 0; b < n / (4 * ilen); ++b) {
      t.kinv.push_back(t.inv[n / ilen - 1 - 2 * b]);
      t.kinv.push_back(t.inv[n / ilen - 2 - 2 * b]);
      t.kinv.push_back(t.inv[n / (2 * ilen) - 1 - b]);
    }
  if (ilen < n / 2)
    for (std::size_t b = 0; b < n / (2 * ilen); ++b) t.kinv.push_back(t.inv[n / ilen - 1 - b]);
  t.kinv.push_back(t.n_inv);
  t.kinv.push_back(t.inv[1]);  // already times 1/n
  t.kfwd_s.resize(t.kfwd.size());
  t.kinv_s.resize(t.kinv.size());
  for (std::size_t i = 0; i < t.kfwd.size(); ++i) t.kfwd_s[i] = shoup_shift(t.kfwd[i], t.q, V::S);
  for (std::size_t i = 0; i < t.kinv.size(); ++i) t.kinv_s[i] = shoup_shift(t.kinv[i], t.q, V::S);
}

// The forward's folded stages (Fold: 1 or 2, see folded_stages), small stages and final
// reduction to [0, q), over Units units (of 2L coefficients, 4L when Fold = 2) at a time,
// interleaved: each block's stages form one long dependency chain.
// Reads `in`, writes `out` (the same array, or with Wipe a scratch `in`, zeroed as it is
// read: it held the caller's intermediate values).
template <class V, int Units, int Fold, bool Wipe, class Ct>
void forward_small(u64* in, u64* out, std::size_t n, const u64* w, const u64* ws, const typename V::K& k, Ct ct,
                   typename V::reg cq, typename V::reg q2, typename V::reg q) {
  using R = typename V::reg;
  constexpr std::size_t L = V::L;
  constexpr int C = V::mul_bound;
  constexpr int sub = Fold == 2 ? 2 : 1;  // 2L blocks per unit
  constexpr int Blocks = Units * sub;
  constexpr std::size_t step = tw_offset<V>(V::small_stages);  // small-stage twiddles per 2L block
  constexpr std::size_t fold_words = Fold == 2 ? 3 : Fold;
  constexpr std::size_t unit_words = fold_words + sub * step;
  const std::true_type red;
  for (std::size_t j = 0; j < n; j += 2 * L * Blocks, w += unit_words * Units, ws += unit_words * Units) {
    R v[Blocks][2];  // unit u's registers: v[u * sub + i / 2][i % 2], i = 0 .. 2 sub - 1
    for (int b = 0; b < Blocks; ++b) v[b][0] = V::load(in + j + 2 * L * b), v[b][1] = V::load(in + j + 2 * L * b + L);
    if constexpr (Wipe)
      for (std::size_t i = 0; i < 2 * L * Blocks; i += L) V::store(in + j + i, V::set1(0));
    for (int u = 0; u < Units; ++u) {
      const u64* fw = w + unit_words * u;
      const u64* fws = ws + unit_words * u;
      if constexpr (Fold == 2) {
        R* r0 = v[2 * u];
        R* r1 = v[2 * u + 1];
        const R wa = V::set1(fw[0]), wsa = V::set1(fws[0]);
        ct(r0[0], r1[0], wa, wsa, red);
        ct(r0[1], r1[1], wa, wsa, red);
        ct(r0[0], r0[1], V::set1(fw[1]), V::set1(fws[1]), red);
        ct(r1[0], r1[1], V::set1(fw[2]), V::set1(fws[2]), red);
      } else if constexpr (Fold == 1) {
        ct(v[u][0], v[u][1], V::set1(fw[0]), V::set1(fws[0]), red);
      }
    }
    R x[Blocks], y[Blocks];
    for (int b = 0; b < Blocks; ++b) V::split(0, v[b][0], v[b][1], x[b], y[b]);
    for (int s = 0; s < V::small_stages; ++s)
      for (int b = 0; b < Blocks; ++b) {
        if (s > 0) transition<V>(s - 1, s, x[b], y[b]);
        const std::size_t o = unit_words * static_cast<std::size_t>(b / sub) + fold_words +
                              step * static_cast<std::size_t>(b % sub) + tw_offset<V>(s);
        const R u = V::csub(x[b], cq);
        const R vv = V::mul_lazy(y[b], load_tw<V>(s, w + o), load_tw<V>(s, ws + o), k);
        x[b] = V::add(u, vv);
        y[b] = V::add(V::sub(u, vv), cq);
      }
    for (int b = 0; b < Blocks; ++b) {
      if constexpr (C == 4) x[b] = V::csub(x[b], cq), y[b] = V::csub(y[b], cq);
      x[b] = V::csub(V::csub(x[b], q2), q);
      y[b] = V::csub(V::csub(y[b], q2), q);
      R v0, v1;
      V::merge(V::small_stages - 1, x[b], y[b], v0, v1);
      V::store(out + j + 2 * L * b, v0);
      V::store(out + j + 2 * L * b + L, v1);
    }
  }
}

// Whether some a[i] >= q (the checked forward's scan where no pass precedes the last).
// Four running maxima, so that the loads, not one chain of maxima, set the pace.
template <class V>
bool any_at_least_q(const u64* a, std::size_t n, typename V::reg q) {
  constexpr std::size_t L = V::L;
  typename V::reg m0 = V::set1(0), m1 = m0, m2 = m0, m3 = m0;
  std::size_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    m0 = V::max(m0, V::load(a + i));
    m1 = V::max(m1, V::load(a + i + L));
    m2 = V::max(m2, V::load(a + i + 2 * L));
    m3 = V::max(m3, V::load(a + i + 3 * L));
  }
  for (; i < n; i += L) m0 = V::max(m0, V::load(a + i));
  return V::any_ge(V::max(V::max(m0, m1), V::max(m2, m3)), q);
}

// Ranges: mul_lazy's results are below C q (C = V::mul_bound, 2 or 4). The forward keeps
// values below 2 C q (Harvey's 4q for C = 2), the inverse below C q.
//
// forward_into / inverse_into transform a, passing through buf (buf == a: in place): the
// pass that reads a writes buf; the forward's later passes work in buf and its last one
// writes a, the inverse's second pass writes a and the later ones work there. Check (V has
// max and any_ge; buf then a separate scratch of n words): false, with a untouched, when
// some a[i] >= q: the first pass takes the maximum of what it loads and stops before
// anything is written to a. The pass that moves the values back into a zeroes buf as it
// reads it (it held the caller's intermediate values). A forward without a pass ahead of
// the small-stage one (n <= 32 on AVX-512) runs in place after a scan.
template <class V, bool Check = false>
bool forward_into(const Tables& t, u64* a, u64* buf) {
  using R = typename V::reg;
  constexpr std::size_t L = V::L;
  constexpr int C = V::mul_bound;
  const typename V::K k = V::make(t.q);
  const R q = V::set1(t.q), cq = V::set1(C * t.q);
  const R q2 = V::set1(2 * t.q);
  const std::size_t n = t.n;
  const u64* w = t.kfwd.data();
  const u64* ws = t.kfwd_s.data();
  // Reduce: x below 2 C q, else already below C q (the input, fully reduced, in the first
  // stage).
  auto ct = [&](R& x, R& y, R W, R WS, auto reduce) {
    const R u = reduce ? V::csub(x, cq) : x;
    const R v = V::mul_lazy(y, W, WS, k);
    x = V::add(u, v);
    y = V::add(V::sub(u, v), cq);
  };
  const std::true_type red;
  R mx = V::set1(0);  // Check: the maximum of the values the first pass loaded
  std::size_t len = n / 2;
  // Radix 4: stages len and len/2 in one pass. With 64-bit products (long dependency
  // chains), two groups of four registers at a time (two j of one block, or, when a block
  // has one j, two blocks); measured slower with IFMA's short ones.
  constexpr bool paired = V::S == 64;
  struct Tw {
    R a, as, b, bs, c, cs;
  };
  auto load3 = [&](const u64* pw, const u64* pws) {
    return Tw{V::set1(pw[0]), V::set1(pws[0]), V::set1(pw[1]), V::set1(pws[1]), V::set1(pw[2]), V::set1(pws[2])};
  };
  // first: the pass that reads the input (from a, below q: its first stage skips the
  // reduction). o0, o1: offsets of the groups in the array.
  auto groups2 = [&](std::size_t o0, std::size_t o1, std::size_t h, const Tw& t0, const Tw& t1, auto first) {
    const u64* in = first ? a : buf;
    R x[2][4];
    const std::size_t o[2] = {o0, o1};
    for (int g = 0; g < 2; ++g)
      for (int i = 0; i < 4; ++i) x[g][i] = V::load(in + o[g] + i * h);
    if constexpr (Check && first)
      for (int g = 0; g < 2; ++g) mx = V::max(mx, V::max(V::max(x[g][0], x[g][1]), V::max(x[g][2], x[g][3])));
    for (int g = 0; g < 2; ++g) ct(x[g][0], x[g][2], g ? t1.a : t0.a, g ? t1.as : t0.as, std::bool_constant<!first>());
    for (int g = 0; g < 2; ++g) ct(x[g][1], x[g][3], g ? t1.a : t0.a, g ? t1.as : t0.as, std::bool_constant<!first>());
    for (int g = 0; g < 2; ++g) ct(x[g][0], x[g][1], g ? t1.b : t0.b, g ? t1.bs : t0.bs, red);
    for (int g = 0; g < 2; ++g) ct(x[g][2], x[g][3], g ? t1.c : t0.c, g ? t1.cs : t0.cs, red);
    for (int g = 0; g < 2; ++g)
      for (int i = 0; i < 4; ++i) V::store(buf + o[g] + i * h, x[g][i]);
  };
  auto group1 = [&](std::size_t o, std::size_t h, const Tw& tw, auto first) {
    const u64* p = (first ? a : buf) + o;
    R x0 = V::load(p), x1 = V::load(p + h), x2 = V::load(p + 2 * h), x3 = V::load(p + 3 * h);
    if constexpr (Check && first) mx = V::max(mx, V::max(V::max(x0, x1), V::max(x2, x3)));
    ct(x0, x2, tw.a, tw.as, std::bool_constant<!first>());
    ct(x1, x3, tw.a, tw.as, std::bool_constant<!first>());
    ct(x0, x1, tw.b, tw.bs, red);
    ct(x2, x3, tw.c, tw.cs, red);
    u64* d = buf + o;
    V::store(d, x0);
    V::store(d + h, x1);
    V::store(d + 2 * h, x2);
    V::store(d + 3 * h, x3);
  };
  auto radix4_pass = [&](auto first) {
    const std::size_t h = len / 2;
    if (paired && h == L && n >= 4 * len) {  // one j per block: two blocks at a time
      for (std::size_t start = 0; start < n; start += 4 * len, w += 6, ws += 6)
        groups2(start, start + 2 * len, h, load3(w, ws), load3(w + 3, ws + 3), first);
      return;
    }
    for (std::size_t start = 0; start < n; start += 2 * len, w += 3, ws += 3) {
      const Tw tw = load3(w, ws);
      std::size_t j = 0;
      if constexpr (paired)
        for (; j + 2 * L <= h; j += 2 * L) groups2(start + j, start + j + L, h, tw, tw, first);
      for (; j < h; j += L) group1(start + j, h, tw, first);
    }
  };
  const int fold = folded_stages(n, L);
  const std::size_t stop = fold == 2 ? 2 * L : L;  // the folded stages: len <= stop
  bool first_done = false;
  if (len >= 2 * L && len > stop) {
    radix4_pass(std::true_type()), len >>= 2, first_done = true;
    if constexpr (Check)
      if (V::any_ge(mx, q)) return false;
  } else {
    if constexpr (Check)
      if (any_at_least_q<V>(a, n, q)) return false;
    buf = a;
  }
  for (; len >= 2 * L && len > stop; len >>= 2) radix4_pass(std::false_type());
  if (fold == 0 && len >= L) {  // a lone stage len L
    for (std::size_t start = 0; start < n; start += 2 * len, ++w, ++ws) {
      const R W = V::set1(*w), WS = V::set1(*ws);
      for (std::size_t j = start; j < start + len; j += L) {
        R x = V::load(buf + j), y = V::load(buf + j + len);
        if (first_done) ct(x, y, W, WS, red);
        else ct(x, y, W, WS, std::false_type());
        V::store(buf + j, x);
        V::store(buf + j + len, y);
      }
    }
  }
  // The folded and small stages, up to four blocks of 2L coefficients at a time where n and
  // the register file (AVX-512: 32, AVX2: 16) allow.
  constexpr std::size_t most = L >= 8 ? 4 : 2;  // blocks per iteration
  const std::size_t sub = fold == 2 ? 2 : 1;  // 2L blocks per unit
  const std::size_t units = std::min(n / (2 * L) / sub, most / sub);
  auto small = [&](auto units_c, auto fold_c) {
    constexpr int U = decltype(units_c)::value, F = decltype(fold_c)::value;
    if (Check && buf != a) forward_small<V, U, F, Check>(buf, a, n, w, ws, k, ct, cq, q2, q);
    else forward_small<V, U, F, false>(buf, a, n, w, ws, k, ct, cq, q2, q);
  };
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  using I4 = std::integral_constant<int, 4>;
  using I0 = std::integral_constant<int, 0>;
  if (fold == 2) {
    if (units >= 2) small(I2(), I2());
    else small(I1(), I2());
  } else if (fold == 1) {
    if (units >= 4) {
      if constexpr (most >= 4) small(I4(), I1());
    } else if (units >= 2) {
      small(I2(), I1());
    } else {
      small(I1(), I1());
    }
  } else if (units >= 2) {
    small(I2(), I0());
  } else {
    small(I1(), I0());
  }
  return true;
}

template <class V, bool Check = false>
bool inverse_into(const Tables& t, u64* a, u64* buf) {
  using R = typename V::reg;
  constexpr std::size_t L = V::L;
  constexpr int C = V::mul_bound;
  const typename V::K k = V::make(t.q);
  const R q = V::set1(t.q), cq = V::set1(C * t.q);
  const R q2 = V::set1(2 * t.q);
  auto reduce_product = [&](R x) {  // [0, C q) -> [0, q)
    if constexpr (C == 4) x = V::csub(x, q2);
    return V::csub(x, q);
  };
  const std::size_t n = t.n;
  const u64* w = t.kinv.data();
  const u64* ws = t.kinv_s.data();
  R mx = V::set1(0);  // Check: the maximum of the input
  for (std::size_t j = 0; j < n; j += 2 * L) {
    const R v0 = V::load(a + j), v1 = V::load(a + j + L);
    if constexpr (Check) mx = V::max(mx, V::max(v0, v1));
    R x, y;
    V::split(V::small_stages - 1, v0, v1, x, y);
    for (int s = V::small_stages - 1; s >= 0; --s) {
      if (s < V::small_stages - 1) transition<V>(s + 1, s, x, y);
      const R u = V::csub(V::add(x, y), cq);
      y = V::mul_lazy(V::add(V::sub(x, y), cq), load_tw<V>(s, w), load_tw<V>(s, ws), k);
      x = u;
      w += tw_count<V>(s), ws += tw_count<V>(s);
    }
    R m0, m1;
    V::merge(0, x, y, m0, m1);
    V::store(buf + j, m0);
    V::store(buf + j + L, m1);
  }
  if constexpr (Check)
    if (V::any_ge(mx, q)) return false;
  auto gs = [&](R& x, R& y, R W, R WS) {
    const R u = V::csub(V::add(x, y), cq);
    y = V::mul_lazy(V::add(V::sub(x, y), cq), W, WS, k);
    x = u;
  };
  // The second pass reads buf (in) into a and zeroes it (Check): a radix-4 pass where there
  // is one, whose work hides those stores better than the last stage's (measured).
  u64* in = buf;
  auto take = [&](std::size_t o) {
    if constexpr (!Check) return V::load(a + o);
    const R v = V::load(in + o);
    if (in != a) V::store(in + o, V::set1(0));
    return v;
  };
  std::size_t len = L;
  for (; 2 * len < n / 2; len <<= 2, in = a) {  // radix 4: stages len and 2 len in one pass
    for (std::size_t start = 0; start < n; start += 4 * len, w += 3, ws += 3) {
      const R WA = V::set1(w[0]), WAS = V::set1(ws[0]), WB = V::set1(w[1]), WBS = V::set1(ws[1]),
              WC = V::set1(w[2]), WCS = V::set1(ws[2]);
      for (std::size_t j = start; j < start + len; j += L) {
        R x0 = take(j), x1 = take(j + len), x2 = take(j + 2 * len), x3 = take(j + 3 * len);
        gs(x0, x1, WA, WAS);
        gs(x2, x3, WB, WBS);
        gs(x0, x2, WC, WCS);
        gs(x1, x3, WC, WCS);
        V::store(a + j, x0);
        V::store(a + j + len, x1);
        V::store(a + j + 2 * len, x2);
        V::store(a + j + 3 * len, x3);
      }
    }
  }
  if (len < n / 2) {
    for (std::size_t start = 0; start < n; start += 2 * len, ++w, ++ws) {
      const R W = V::set1(*w), WS = V::set1(*ws);
      for (std::size_t j = start; j < start + len; j += L) {
        R xv = take(j), yv = take(j + len);
        gs(xv, yv, W, WS);
        V::store(a + j, xv);
        V::store(a + j + len, yv);
      }
    }
    in = a;
  }
  const std::size_t h = n / 2;
  const R NI = V::set1(w[0]), NIS = V::set1(ws[0]), W1 = V::set1(w[1]), W1S = V::set1(ws[1]);
  for (std::size_t j = 0; j < h; j += L) {
    const R xv = take(j), yv = take(j + h);
    V::store(a + j, reduce_product(V::mul_lazy(V::add(xv, yv), NI, NIS, k)));
    V::store(a + j + h, reduce_product(V::mul_lazy(V::add(V::sub(xv, yv), cq), W1, W1S, k)));
  }
  return true;
}

template <class V>
void forward(const Tables& t, u64* a) {
  forward_into<V>(t, a, a);
}
template <class V>
void inverse(const Tables& t, u64* a) {
  inverse_into<V>(t, a, a);
}

template <class V>
void pointwise(const Tables& t, const u64* a, const u64* b, u64* out, bool accumulate) {
  using R = typename V::reg;
  const typename V::BK k = V::make_barrett(t.barrett);
  const R q = V::set1(t.q);
  for (std::size_t i = 0; i < t.n; i += V::L) {
    R r = V::mul_mod(V::load(a + i), V::load(b + i), k);
    if (accumulate) r = V::csub(V::add(V::load(out + i), r), q);
    V::store(out + i, r);
  }
}

}  // namespace tempo::ntt::detail::simd
