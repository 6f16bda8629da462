// The 32-bit-word AVX-512 path ("avx512-w32"), for q < 2^31: 16 coefficients per register
// (twice the 64-bit paths' 8), Harvey butterflies with 32-bit Shoup companions.
//
// Data flow. Coefficients live in memory as uint64; the transform runs on uint32 copies in
// a scratch array. The first pass reads the caller's array (narrowing, and taking the
// running maximum for the range check), every later pass works in the scratch, and the
// last pass widens back into the caller's array. So the range check costs one max per
// load, and a failed check returns before the caller's array was written. A caller's
// uint32 array (Tables::forward_u32 / inverse_u32, unchecked) is itself the scratch.
//
// Passes. Stages with len >= 16 broadcast one twiddle per block and run two at a time
// (radix 4). When their count is odd, the forward runs the first three as one radix-8 pass
// (fwd_passes; one memory pass fewer, measured faster than the lone stage at n = 2048), and
// the inverse runs the last one, len 16, in its small-stage pass (inv_small's Lone). At
// n = 1024 the forward runs its six as two radix-8 passes (see fwd_passes).
// The four stages with len 8, 4, 2, 1 run in one pass over 32-coefficient blocks held in
// two registers: before each stage one two-source permute per register puts the pairs
// (i, i + len) into matching lanes, and the last permute also widens to uint64 for the
// store. Twiddles of those stages are per lane, laid out by prepare() in the order read.
//
// Lazy ranges. Forward keeps values in [0, 4q) (inputs to the Shoup product are then
// < 2^32); inverse in [0, 2q). With 2^30 <= q < 2^31, where 4q no longer fits, both keep
// [0, 2q) (kFull below). The Shoup product w*y mod q with ws = floor(w * 2^32 / q) is exact up to one q: hi = floor(ws*y / 2^32), w*y - hi*q in
// [0, 2q), computed mod 2^32. AVX-512 has no 32-bit high multiply: even and odd lanes go
// through vpmuludq separately and one masked vpshufd joins the high halves (one cycle of
// latency where a vpermt2d took three, and no index register).
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tables.hpp"

namespace tempo::ntt::detail {
namespace {

using u32 = std::uint32_t;
using R = __m512i;

// ---- lane layouts of a 32-coefficient block held in two registers (x, y)
// Layout h (h = 16, 8, 4, 2, 1): x holds coefficients i < 32 with (i & h) == 0, y holds
// i + h in the same lanes: the butterfly pairs of len h. Layout 16 is the natural one
// (x = 0..15, y = 16..31), layout 1 has the even coefficients in x. For h = 8, 4, 2 the
// lanes 2p and 2p + 1 hold neighbours c, c + 1 of one twiddle block (of 2h coefficients),
// and lane pair p holds block p mod (16 / h): a stage's 16 per-lane twiddles are then
// 32 / h values repeated, read by one broadcast load (tw_lanes).
constexpr std::array<int, 32> layout(int h) {  // [lane] = coefficient; lanes 16..31: y
  std::array<int, 32> v{};
  const int blocks = 16 / h;
  for (int k = 0; k < 16; ++k) {
    int c = k;  // h = 16
    if (h == 1) c = 2 * k;
    else if (h < 16) c = 2 * h * ((k / 2) % blocks) + 2 * ((k / 2) / blocks) + k % 2;
    v[static_cast<std::size_t>(k)] = c, v[static_cast<std::size_t>(k + 16)] = c + h;
  }
  return v;
}
constexpr int pos_in(const std::array<int, 32>& l, int coeff) {
  for (int p = 0; p < 32; ++p)
    if (l[static_cast<std::size_t>(p)] == coeff) return p;
  return -1;
}
// Permute indices (vpermt2d: < 16 from the first source, >= 16 from the second) taking
// layout `from` to layout `to`: out_x = idx[0..15], out_y = idx[16..31].
struct alignas(64) Perm {
  int x[16], y[16];
};
constexpr Perm transition(int from, int to) {
  const auto f = layout(from), t = layout(to);
  Perm p{};
  for (int k = 0; k < 16; ++k) {
    p.x[k] = pos_in(f, t[static_cast<std::size_t>(k)]);
    p.y[k] = pos_in(f, t[static_cast<std::size_t>(k + 16)]);
  }
  return p;
}
// Widening store: uint64 register r (coefficients 8r .. 8r + 7) from layout `from`, in the
// even dword lanes (odd lanes zeroed by the mask).
struct alignas(64) Widen {
  int r[4][16];
};
constexpr Widen widen_from(int from) {
  const auto f = layout(from);
  Widen w{};
  for (int r = 0; r < 4; ++r)
    for (int j = 0; j < 8; ++j) w.r[r][2 * j] = pos_in(f, 8 * r + j), w.r[r][2 * j + 1] = 0;
  return w;
}

constexpr Perm kFwdPerm[4] = {transition(16, 8), transition(8, 4), transition(4, 2), transition(2, 1)};
constexpr Perm kInvPerm[4] = {transition(16, 1), transition(1, 2), transition(2, 4), transition(4, 8)};
constexpr Perm kInvLast = transition(8, 16);
constexpr Widen kFwdWiden = widen_from(1);
constexpr Perm kFwdNatural = transition(1, 16);
// Narrowing: the even dwords of two uint64 registers, in order; widening a natural-order
// register: dword k of each half to lane 2k.
struct alignas(64) Idx16 {
  int v[16];
};
constexpr Idx16 kNarrow = {{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30}};
constexpr Idx16 kWidenLo = {{0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0}};
constexpr Idx16 kWidenHi = {{8, 0, 9, 0, 10, 0, 11, 0, 12, 0, 13, 0, 14, 0, 15, 0}};
constexpr __mmask16 kEven = 0x5555, kOdd = 0xAAAA;

inline R ld(const void* p) { return _mm512_loadu_si512(p); }
inline R idx(const int* p) { return _mm512_load_si512(p); }

// ---- arithmetic on 16 lanes
// Schedules: Harvey's lazy ranges (q < 2^30: values below 4q < 2^32), the lazier one for
// small q (below), and the full one for 2^30 <= q < 2^31 (values below 2q, sums and
// differences taken mod 2q with a compare).
constexpr int kHarvey = 0, kLazy = 1, kFull = 2;

// Lazy schedules (chosen per plan, see lazy_forward/lazy_inverse): with q small enough
// the forward skips the subtraction of 2q in every stage but the last (values grow by 2q
// per stage: below (2 log n - 1) q < 2^32 before the last one, which brings x below 2q
// with a chain of conditional subtractions of 2^j q, then below q), and the inverse skips it in the
// four small stages (sums double per stage: below 32 q < 2^32) and then keeps sums below
// 16 q instead of 2 q. Each saves two of the fifteen instructions of a butterfly.
struct Mod {
  R q, q2;
  R c;         // inverse: sums are brought below c = P q; differences get + c
  R chain[5];  // forward, last stage: subtract 2^j q for j = levels .. 1
  int levels = 0;
  Mod(u64 modulus, u64 p_mult, int chain_levels)
      : q(_mm512_set1_epi32(static_cast<int>(modulus))),
        q2(_mm512_set1_epi32(static_cast<int>(2 * modulus))),
        c(_mm512_set1_epi32(static_cast<int>(p_mult * modulus))),
        levels(chain_levels) {
    for (int j = 0; j < 5; ++j)
      chain[j] = j < levels ? _mm512_set1_epi32(static_cast<int>((u64{2} << (levels - 1 - j)) * modulus)) : q;
  }
};
// x - m when x >= m (x < 2m): the wrapped difference is larger than x otherwise.
inline R csub(R x, R m) { return _mm512_min_epu32(x, _mm512_sub_epi32(x, m)); }
// w*y mod q in [0, 2q) for y < 2^32. wso: ws's odd lanes moved to the even ones (equal to
// ws for a broadcast twiddle).
inline R mul_lazy(R y, R w, R ws, R wso, const Mod& m) {
  const R pe = _mm512_mul_epu32(y, ws);
  const R po = _mm512_mul_epu32(_mm512_shuffle_epi32(y, _MM_PERM_CDAB), wso);
  const R hi = _mm512_mask_shuffle_epi32(po, kEven, pe, _MM_PERM_CDAB);
  return _mm512_sub_epi32(_mm512_mullo_epi32(w, y), _mm512_mullo_epi32(hi, m.q));
}
// Sums and differences mod 2q of a, b < 2q without leaving 32 bits (the full schedule,
// 2^30 <= q < 2^31, where 4q does not fit): a compare picks the wrapped results.
inline R add_mod2q(R a, R b, const Mod& m) {
  const R c = _mm512_sub_epi32(m.q2, b);  // in (0, 2q]
  return _mm512_mask_add_epi32(_mm512_sub_epi32(a, c), _mm512_cmplt_epu32_mask(a, c), _mm512_sub_epi32(a, c), m.q2);
}
inline R sub_mod2q(R a, R b, const Mod& m) {
  const R d = _mm512_sub_epi32(a, b);
  return _mm512_mask_add_epi32(d, _mm512_cmplt_epu32_mask(a, b), d, m.q2);
}

// Cooley-Tukey. Harvey: [0, 4q) -> [0, 4q). Lazy: [0, k q) -> [0, (k + 2) q). Full: [0, 2q).
template <int M>
inline void ct(R& x, R& y, R w, R ws, R wso, const Mod& m) {
  const R v = mul_lazy(y, w, ws, wso, m);
  if constexpr (M == kFull) {
    y = sub_mod2q(x, v, m);
    x = add_mod2q(x, v, m);
  } else {
    const R u = M == kLazy ? x : csub(x, m.q2);
    x = _mm512_add_epi32(u, v);
    y = _mm512_add_epi32(_mm512_sub_epi32(u, v), m.q2);
  }
}
// Gentleman-Sande with sums reduced below c and differences offset by c (inputs < c):
// Harvey's [0, 2q) when c = 2q. Full: [0, 2q) with sums and differences mod 2q.
template <int M>
inline void gs(R& x, R& y, R w, R ws, R wso, const Mod& m) {
  if constexpr (M == kFull) {
    const R u = add_mod2q(x, y, m);
    y = mul_lazy(sub_mod2q(x, y, m), w, ws, wso, m);
    x = u;
  } else {
    const R u = csub(_mm512_add_epi32(x, y), m.c);
    y = mul_lazy(_mm512_add_epi32(_mm512_sub_epi32(x, y), m.c), w, ws, wso, m);
    x = u;
  }
}
// The growing stages of the lazy inverse: no reduction, inputs < b q, offset b q.
inline void gs_grow(R& x, R& y, R w, R ws, R wso, R bq, const Mod& m) {
  const R u = _mm512_add_epi32(x, y);
  y = mul_lazy(_mm512_add_epi32(_mm512_sub_epi32(x, y), bq), w, ws, wso, m);
  x = u;
}

// A broadcast twiddle: (w, ws) as two consecutive uint32 in the table.
struct Bc {
  R w, ws;
  explicit Bc(const u32* p) : w(_mm512_set1_epi32(static_cast<int>(p[0]))), ws(_mm512_set1_epi32(static_cast<int>(p[1]))) {}
};

// A small stage's per-lane twiddles (w or ws) from the forward table: the 32 / h distinct
// values of layout h, repeated across the lanes (h = 8, 4: one broadcast load).
constexpr int tw_lanes(int h) { return h >= 2 ? 32 / h : 16; }
inline R load_tw(int h, const u32* p) {
  if (h == 8) return _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  if (h == 4) return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  return ld(p);
}
// Forward table entries per 32 coefficients in the small-stage pass: (w, ws) for len 8, 4,
// 2, then (w, ws, wso) for len 1.
constexpr int kFwdSmallWords = 2 * (tw_lanes(8) + tw_lanes(4) + tw_lanes(2)) + 3 * 16;

// ---- memory forms: the caller's uint64 array, or the uint32 scratch
// 16 coefficients from uint64 memory (and the running maximum for the range check).
inline R load_narrow(const u64* p, R& mx) {
  const R a = ld(p), b = ld(p + 8);
  mx = _mm512_max_epu64(mx, _mm512_max_epu64(a, b));
  return _mm512_permutex2var_epi32(a, idx(kNarrow.v), b);
}
inline R load_w(const u64* p, R& mx) { return load_narrow(p, mx); }
inline R load_w(const u32* p, R&) { return ld(p); }
inline void store_wide(u64* p, R v) {
  _mm512_storeu_si512(p, _mm512_maskz_permutexvar_epi32(kEven, idx(kWidenLo.v), v));
  _mm512_storeu_si512(p + 8, _mm512_maskz_permutexvar_epi32(kEven, idx(kWidenHi.v), v));
}
inline void store_wide(u32* p, R v) { _mm512_storeu_si512(p, v); }

// Scratch: on the stack up to 4096 coefficients, else one growing buffer per thread.
constexpr std::size_t kStackWords = 4096;
u32* heap_scratch(std::size_t n) {
  thread_local std::vector<u32> s;
  if (s.size() < n) s.resize(n);
  return s.data();
}

// Plan::Prefetch over one transform: each loop iteration reports the coefficients it
// handled, and the cursor prefetches the range in proportion to the transform's progress
// (`work`: n times its passes), so the lines arrive spread over the passes instead of in a
// burst that would fill the core's miss buffers and stall the arithmetic. Into L2
// (_MM_HINT_T1): the caller reads the range after the transform, whose own data and tables
// keep L1. At most kMaxBytes of the range (more would not stay in L2 anyway).
class Ahead {
 public:
  static constexpr std::size_t kMaxBytes = std::size_t{1} << 20;
  Ahead(Plan::Prefetch p, std::size_t work) {
    if (p.data == nullptr || p.bytes == 0 || work == 0) return;
    const auto begin = reinterpret_cast<std::uintptr_t>(p.data);
    base_ = next_ = begin & ~std::uintptr_t{63};
    end_ = begin + std::min(p.bytes, kMaxBytes);
    rate_ = ((end_ - base_) << 16) / work + 1;  // bytes per coefficient, in 1/65536
  }
  void advance(std::size_t coeffs) {
    if (next_ >= end_) return;
    done_ += coeffs;
    const std::uintptr_t target = std::min(end_, base_ + ((done_ * rate_) >> 16));
    for (; next_ < target; next_ += 64) _mm_prefetch(reinterpret_cast<const char*>(next_), _MM_HINT_T1);
  }

 private:
  std::uintptr_t base_ = 0, next_ = 0, end_ = 0;
  std::size_t rate_ = 0, done_ = 0;
};
// The kernels without a prefetch range: a separate instantiation, so the plain transforms
// carry no check of it.
struct NoAhead {
  NoAhead(Plan::Prefetch, std::size_t) {}
  void advance(std::size_t) {}
};

// Twiddle table layout (Tables::kfwd32 / kinv32), written by prepare() in read order:
//   radix-8 pass, per block: (w, ws) of A, B0, B1, C0 .. C3; radix-4 pass, per block:
//   (wA, wsA, wB, wsB, wC, wsC); single stage (n = 32), per block: (w, ws);
//   small-stage pass, per 32 coefficients, per stage: w and ws (tw_lanes values each), and
//   for len 1 wso[16]; the inverse's small stages: w[16], ws[16] per stage, wso[16] for len 1;
//   inverse ends with (n^-1, its ws, inv[1] * n^-1, its ws).

// One forward radix-4 pass over stages len and len/2, from src (either form) into dst.
template <int M, class Src, class Pf>
void fwd_radix4(const Src* src, u32* dst, std::size_t n, std::size_t len, const u32*& tw, const Mod& m, R& mx,
                Pf& pf) {
  const std::size_t h = len / 2;
  for (std::size_t start = 0; start < n; start += 2 * len, tw += 6) {
    const Bc A(tw), B(tw + 2), C(tw + 4);
    const Src* s = src + start;
    u32* d = dst + start;
    for (std::size_t j = 0; j < h; j += 16) {
      pf.advance(64);
      R x0 = load_w(s + j, mx), x1 = load_w(s + j + h, mx), x2 = load_w(s + j + 2 * h, mx),
        x3 = load_w(s + j + 3 * h, mx);
      ct<M>(x0, x2, A.w, A.ws, A.ws, m);
      ct<M>(x1, x3, A.w, A.ws, A.ws, m);
      ct<M>(x0, x1, B.w, B.ws, B.ws, m);
      ct<M>(x2, x3, C.w, C.ws, C.ws, m);
      _mm512_storeu_si512(d + j, x0);
      _mm512_storeu_si512(d + j + h, x1);
      _mm512_storeu_si512(d + j + 2 * h, x2);
      _mm512_storeu_si512(d + j + 3 * h, x3);
    }
  }
}

// One forward radix-8 pass over stages len, len/2 and len/4, from src (either form) into
// dst: eight registers e = len/4 apart, seven broadcast twiddles per block of 2 len
// (table: A; B0, B1; C0 .. C3, each (w, ws)), one load and one store per coefficient for
// three stages.
template <int M, class Src, class Pf>
void fwd_radix8(const Src* src, u32* dst, std::size_t n, std::size_t len, const u32*& tw, const Mod& m, R& mx,
                Pf& pf) {
  const std::size_t e = len / 4;
  for (std::size_t start = 0; start < n; start += 2 * len, tw += 14) {
    const Bc A(tw), B0(tw + 2), B1(tw + 4), C0(tw + 6), C1(tw + 8), C2(tw + 10), C3(tw + 12);
    const Src* s = src + start;
    u32* d = dst + start;
    for (std::size_t j = 0; j < e; j += 16) {
      pf.advance(128);
      R x[8];
      for (int k = 0; k < 8; ++k) x[k] = load_w(s + j + static_cast<std::size_t>(k) * e, mx);
      for (int k = 0; k < 4; ++k) ct<M>(x[k], x[k + 4], A.w, A.ws, A.ws, m);
      ct<M>(x[0], x[2], B0.w, B0.ws, B0.ws, m);
      ct<M>(x[1], x[3], B0.w, B0.ws, B0.ws, m);
      ct<M>(x[4], x[6], B1.w, B1.ws, B1.ws, m);
      ct<M>(x[5], x[7], B1.w, B1.ws, B1.ws, m);
      ct<M>(x[0], x[1], C0.w, C0.ws, C0.ws, m);
      ct<M>(x[2], x[3], C1.w, C1.ws, C1.ws, m);
      ct<M>(x[4], x[5], C2.w, C2.ws, C2.ws, m);
      ct<M>(x[6], x[7], C3.w, C3.ws, C3.ws, m);
      for (int k = 0; k < 8; ++k) _mm512_storeu_si512(d + j + static_cast<std::size_t>(k) * e, x[k]);
    }
  }
}

template <int M, class Src, class Pf>
void fwd_single(const Src* src, u32* dst, std::size_t n, std::size_t len, const u32*& tw, const Mod& m, R& mx,
                Pf& pf) {
  for (std::size_t start = 0; start < n; start += 2 * len, tw += 2) {
    const Bc W(tw);
    for (std::size_t j = start; j < start + len; j += 16) {
      pf.advance(32);
      R x = load_w(src + j, mx), y = load_w(src + j + len, mx);
      ct<M>(x, y, W.w, W.ws, W.ws, m);
      _mm512_storeu_si512(dst + j, x);
      _mm512_storeu_si512(dst + j + len, y);
    }
  }
}

inline void permute(R& x, R& y, const Perm& p) {
  const R nx = _mm512_permutex2var_epi32(x, idx(p.x), y);
  y = _mm512_permutex2var_epi32(x, idx(p.y), y);
  x = nx;
}

// The last stage of the lazy schedule and the reduction to [0, q): x (below 32q) brought
// below q by the chain and one more step, the product v below q, so that x + v needs one
// conditional subtraction and x - v one conditional addition.
template <int Levels>
inline void ct_last_reduced(R& x, R& y, R w, R ws, R wso, const Mod& m) {
  for (int j = 0; j < Levels; ++j) x = csub(x, m.chain[j]);
  x = csub(x, m.q);
  const R v = csub(mul_lazy(y, w, ws, wso, m), m.q);
  const R d = _mm512_sub_epi32(x, v);  // x - v, or x - v + 2^32 when negative
  y = _mm512_min_epu32(d, _mm512_add_epi32(d, m.q));
  x = csub(_mm512_add_epi32(x, v), m.q);
}

// The stages len = 8, 4, 2, 1 per 32-coefficient block, then the reduction to [0, q) and
// the widening store into the caller's array. K blocks at a time: the stages of one block
// form a long dependency chain. Levels: the lazy schedule's chain (see Mod).
template <int M, int K, int Levels, class W, class Pf>
void fwd_small(const u32* s, W* a, std::size_t n, const u32* tw, const Mod& m, Pf& pf) {
  constexpr int hs[3] = {8, 4, 2};
  constexpr int words = kFwdSmallWords;
  for (std::size_t j = 0; j < n; j += 32 * K, tw += K * words) {
    pf.advance(32 * K);
    R x[K], y[K];
    for (int k = 0; k < K; ++k) x[k] = ld(s + j + 32 * k), y[k] = ld(s + j + 32 * k + 16);
    int off = 0;
    for (int st = 0; st < 3; ++st) {  // len 8, 4, 2: lane pairs share a twiddle
      const int h = hs[st];
      for (int k = 0; k < K; ++k) permute(x[k], y[k], kFwdPerm[st]);
      for (int k = 0; k < K; ++k) {
        const u32* t = tw + k * words + off;
        const R ws = load_tw(h, t + tw_lanes(h));
        ct<M>(x[k], y[k], load_tw(h, t), ws, ws, m);
      }
      off += 2 * tw_lanes(h);
    }
    for (int k = 0; k < K; ++k) permute(x[k], y[k], kFwdPerm[3]);
    for (int k = 0; k < K; ++k) {
      const u32* t = tw + k * words + off;
      if constexpr (M == kLazy) {
        ct_last_reduced<Levels>(x[k], y[k], ld(t), ld(t + 16), ld(t + 32), m);
      } else {
        ct<M>(x[k], y[k], ld(t), ld(t + 16), ld(t + 32), m);
        if constexpr (M != kFull) x[k] = csub(x[k], m.q2), y[k] = csub(y[k], m.q2);
        x[k] = csub(x[k], m.q);
        y[k] = csub(y[k], m.q);
      }
      if constexpr (sizeof(W) == 8) {
        for (int r = 0; r < 4; ++r)
          _mm512_storeu_si512(a + j + 32 * k + 8 * r, _mm512_maskz_permutex2var_epi32(kEven, x[k], idx(kFwdWiden.r[r]), y[k]));
      } else {
        permute(x[k], y[k], kFwdNatural);
        _mm512_storeu_si512(a + j + 32 * k, x[k]);
        _mm512_storeu_si512(a + j + 32 * k + 16, y[k]);
      }
    }
  }
}
template <int M, int Levels, class W, class Pf>
void fwd_small_any(const u32* s, W* a, std::size_t n, const u32* tw, const Mod& m, Pf& pf) {
  if (n >= 128) fwd_small<M, 4, Levels>(s, a, n, tw, m, pf);
  else if (n >= 64) fwd_small<M, 2, Levels>(s, a, n, tw, m, pf);
  else fwd_small<M, 1, Levels>(s, a, n, tw, m, pf);
}
// Whether the inverse's small-stage pass also runs the stage len = 16 (inv_small's Lone):
// an odd count of stages with len >= 16, more than one.
bool lone_in_small(unsigned log_n) { return log_n >= 7 && (log_n - 4) % 2 == 1; }

// The forward's passes over the stages with len >= 16: an odd count starts with one radix-8
// pass and the rest run as radix-4 passes; a single stage alone (n = 32) is a pass of its
// own. n = 1024 (six stages) runs two radix-8 passes instead of three radix-4 ones: on the
// device host's Xeon its forward is 11% faster so (one memory pass fewer), on an AMD EPYC
// within 3% either way. Other sizes keep radix 4 (not measured with radix 8 on the Xeon).
struct FwdPasses {
  unsigned r8, r4;
  bool single;
};
FwdPasses fwd_passes(unsigned log_n) {
  const unsigned large = log_n - 4;
  if (large < 2) return {0, 0, large == 1};
  if (large == 6) return {2, 0, false};
  if (large % 2 == 1) return {1, (large - 3) / 2, false};
  return {0, large / 2, false};
}

bool out_of_range(R mx, u64 q) { return _mm512_cmpge_epu64_mask(mx, _mm512_set1_epi64(static_cast<long long>(q))) != 0; }

// Lazy forward: values stay below (2 log n - 1) q before the last stage, 2^32 at most.
bool lazy_forward(const Tables& t) { return (2 * u64{t.log_n} + 1) * t.q < (u64{1} << 32); }
int chain_levels(const Tables& t) {  // 2^levels >= (2 log n - 1) / 2 > 2^(levels - 1)
  int levels = 0;
  while ((u64{2} << levels) < 2 * u64{t.log_n} - 1) ++levels;
  return levels;
}

// Scratch for a caller's array of W: the array itself when it holds uint32.
template <class W>
u32* scratch_for(W* a, u32* stack, std::size_t n) {
  if constexpr (sizeof(W) == 4) return a;
  else return n <= kStackWords ? stack : heap_scratch(n);
}
template <class W>
void wipe_scratch(u32* s, std::size_t n) {
  if constexpr (sizeof(W) == 8) tempo::secure_zero(s, n * sizeof(u32));
}

template <int M, class Pf, class W>
bool forward_impl(const Tables& t, W* a, bool check, Plan::Prefetch ahead = {}) {
  const std::size_t n = t.n;
  alignas(64) u32 stack[sizeof(W) == 8 ? kStackWords : 1];
  u32* s = scratch_for(a, stack, n);
  const Mod m(t.q, 2, M == kLazy ? chain_levels(t) : 0);
  const u32* tw = t.kfwd32.data();
  R mx = _mm512_setzero_si512();
  const FwdPasses fp = fwd_passes(t.log_n);
  unsigned r8 = fp.r8, r4 = fp.r4;
  Pf pf(ahead, n * (r8 + r4 + (fp.single ? 1 : 0) + 1));
  std::size_t len = n / 2;
  // The first pass reads (and range-checks) the caller's array.
  if (r8 > 0) fwd_radix8<M>(a, s, n, len, tw, m, mx, pf), len >>= 3, --r8;
  else if (r4 > 0) fwd_radix4<M>(a, s, n, len, tw, m, mx, pf), len >>= 2, --r4;
  else fwd_single<M>(a, s, n, len, tw, m, mx, pf), len >>= 1;
  if (check && out_of_range(mx, t.q)) {
    wipe_scratch<W>(s, n);
    return false;
  }
  for (; r8 > 0; --r8, len >>= 3) fwd_radix8<M>(s, s, n, len, tw, m, mx, pf);
  for (; r4 > 0; --r4, len >>= 2) fwd_radix4<M>(s, s, n, len, tw, m, mx, pf);
  if (m.levels == 4) fwd_small_any<M, 4>(s, a, n, tw, m, pf);
  else fwd_small_any<M, 3>(s, a, n, tw, m, pf);
  wipe_scratch<W>(s, n);
  return true;
}

// ---- inverse
// Inverse table entries per 32 coefficients in the small-stage pass: (w, ws, wso) for
// len 1, then (w, ws) for len 2, 4, 8, 16 lanes each.
constexpr int kInvSmallWords = 48 + 3 * 32;

// The stages len = 1, 2, 4, 8 per 32-coefficient block, narrowing from the caller's array,
// K blocks at a time. Lone: also the stage len = 16 (see lone_in_small; its pairs are x and
// y in the natural layout), with its (w, ws) after the block's other twiddles, so that it
// needs no pass of its own.
template <int M, int K, bool Lone, class W, class Pf>
void inv_small(const W* a, u32* s, std::size_t n, const u32*& tw, const Mod& m, R& mx, Pf& pf) {
  const R q4 = _mm512_add_epi32(m.q2, m.q2);
  const R bq[4] = {m.q, m.q2, q4, _mm512_add_epi32(q4, q4)};  // q, 2q, 4q, 8q
  constexpr int words = kInvSmallWords + (Lone ? 2 : 0);
  for (std::size_t j = 0; j < n; j += 32 * K, tw += K * words) {
    pf.advance(32 * K);
    R x[K], y[K];
    for (int k = 0; k < K; ++k) x[k] = load_w(a + j + 32 * k, mx), y[k] = load_w(a + j + 32 * k + 16, mx);
    int off = 0;
    for (int st = 0; st < 4; off += st == 0 ? 48 : 32, ++st) {  // len 1 has a third row (wso)
      for (int k = 0; k < K; ++k) permute(x[k], y[k], kInvPerm[st]);
      for (int k = 0; k < K; ++k) {
        const u32* w = tw + k * words + off;
        const R ws = ld(w + 16), wso = st == 0 ? ld(w + 32) : ws;
        if constexpr (M == kLazy) gs_grow(x[k], y[k], ld(w), ws, wso, bq[st], m);
        else gs<M>(x[k], y[k], ld(w), ws, wso, m);
      }
    }
    for (int k = 0; k < K; ++k) {
      permute(x[k], y[k], kInvLast);
      if constexpr (Lone) {  // inputs below 16 q under the lazy schedule: gs's c = 16 q applies
        const Bc w16(tw + k * words + kInvSmallWords);
        gs<M>(x[k], y[k], w16.w, w16.ws, w16.ws, m);
      }
      _mm512_storeu_si512(s + j + 32 * k, x[k]);
      _mm512_storeu_si512(s + j + 32 * k + 16, y[k]);
    }
  }
}

// The inverse's radix-4 group: stages len (pairs x0,x1 and x2,x3) and 2 len (x0,x2 and
// x1,x3). x1 and x3 are products (< 2q) when the second stage meets them, so their sum
// never needs reducing (< 4q); under the lazy schedule the others need it only when the
// group's inputs may reach 16q (Reduce), see inv_radix4.
template <int M, bool Reduce>
inline void inv_group(R& x0, R& x1, R& x2, R& x3, const Bc& A, const Bc& B, const Bc& C, const Mod& m) {
  if constexpr (M != kLazy || Reduce) {
    gs<M>(x0, x1, A.w, A.ws, A.ws, m);
    gs<M>(x2, x3, B.w, B.ws, B.ws, m);
    gs<M>(x0, x2, C.w, C.ws, C.ws, m);
  } else {
    gs_grow(x0, x1, A.w, A.ws, A.ws, m.c, m);
    gs_grow(x2, x3, B.w, B.ws, B.ws, m.c, m);
    gs_grow(x0, x2, C.w, C.ws, C.ws, m.c, m);
  }
  if constexpr (M == kLazy) gs_grow(x1, x3, C.w, C.ws, C.ws, m.c, m);
  else gs<M>(x1, x3, C.w, C.ws, C.ws, m);
}

// Bounds under the lazy schedule (c = 16q). A radix-4 pass leaves x0 (a sum of sums,
// reduced) below 16q, x1 (a sum of two products) below 4q, x2 and x3 (products) below
// 2q. The next radix-4 pass (len = 4 len') groups coefficients of one such class: class
// k = j / len' for the group at offset j. Only class 0 can reach 16q; the others stay
// below 4q, so their sums (< 8q, then < 16q) need no reduction. `classes`: the previous
// pass was a radix-4 pass (else every group reduces).
template <int M, class Pf>
void inv_radix4_groups(u32* p, std::size_t len, std::size_t j0, std::size_t j1, bool reduce, const Bc& A, const Bc& B,
                       const Bc& C, const Mod& m, Pf& pf) {
  for (std::size_t j = j0; j < j1; j += 16) {
    pf.advance(64);
    R x0 = ld(p + j), x1 = ld(p + j + len), x2 = ld(p + j + 2 * len), x3 = ld(p + j + 3 * len);
    if (reduce) inv_group<M, true>(x0, x1, x2, x3, A, B, C, m);
    else inv_group<M, false>(x0, x1, x2, x3, A, B, C, m);
    _mm512_storeu_si512(p + j, x0);
    _mm512_storeu_si512(p + j + len, x1);
    _mm512_storeu_si512(p + j + 2 * len, x2);
    _mm512_storeu_si512(p + j + 3 * len, x3);
  }
}

template <int M, class Pf>
void inv_radix4(u32* s, std::size_t n, std::size_t len, const u32*& tw, const Mod& m, bool classes, Pf& pf) {
  const std::size_t split = M == kLazy && classes ? len / 4 : len;  // groups below `split` reduce
  for (std::size_t start = 0; start < n; start += 4 * len, tw += 6) {
    const Bc A(tw), B(tw + 2), C(tw + 4);
    inv_radix4_groups<M>(s + start, len, 0, split, true, A, B, C, m, pf);
    inv_radix4_groups<M>(s + start, len, split, len, false, A, B, C, m, pf);
  }
}

// The last stage (len = n/2) with 1/n folded in (inv[1] is stored times 1/n), fully
// reduced, widened into the caller's array.
template <int M>
inline void last_pair(R& x, R& y, const Bc& ni, const Bc& w1, const Mod& m) {
  const R sum = M == kFull ? add_mod2q(x, y, m) : _mm512_add_epi32(x, y);
  const R dif = M == kFull ? sub_mod2q(x, y, m) : _mm512_add_epi32(_mm512_sub_epi32(x, y), m.c);
  x = csub(mul_lazy(sum, ni.w, ni.ws, ni.ws, m), m.q);
  y = csub(mul_lazy(dif, w1.w, w1.ws, w1.ws, m), m.q);
}

// Stages n/4 and n/2 (the last, with 1/n) in one pass. The last stage's sums go to the
// multiplication by 1/n unreduced (any value below 2^32 is fine there).
template <int M, class W, class Pf>
void inv_final_radix4(const u32* s, W* a, std::size_t n, const u32* tw, const Mod& m, bool classes, Pf& pf) {
  const std::size_t len = n / 4, split = M == kLazy && classes ? len / 4 : len;
  const Bc A(tw), B(tw + 2), ni(tw + 6), w1(tw + 8);  // tw + 4: unused C slot
  for (std::size_t j = 0; j < len; j += 16) {
    pf.advance(64);
    R x0 = ld(s + j), x1 = ld(s + j + len), x2 = ld(s + j + 2 * len), x3 = ld(s + j + 3 * len);
    if (M != kLazy || j < split) {
      gs<M>(x0, x1, A.w, A.ws, A.ws, m);
      gs<M>(x2, x3, B.w, B.ws, B.ws, m);
    } else {
      gs_grow(x0, x1, A.w, A.ws, A.ws, m.c, m);
      gs_grow(x2, x3, B.w, B.ws, B.ws, m.c, m);
    }
    last_pair<M>(x0, x2, ni, w1, m);
    last_pair<M>(x1, x3, ni, w1, m);
    store_wide(a + j, x0);
    store_wide(a + j + len, x1);
    store_wide(a + j + 2 * len, x2);
    store_wide(a + j + 3 * len, x3);
  }
}

template <int M, class W, class Pf>
void inv_final_single(const u32* s, W* a, std::size_t n, const u32* tw, const Mod& m, Pf& pf) {
  const std::size_t h = n / 2;
  const Bc ni(tw), w1(tw + 2);
  for (std::size_t j = 0; j < h; j += 16) {
    pf.advance(32);
    R x = ld(s + j), y = ld(s + j + h);
    last_pair<M>(x, y, ni, w1, m);
    store_wide(a + j, x);
    store_wide(a + j + h, y);
  }
}

// Four blocks at a time where there are four (else two, or one): their stages interleave,
// since one block's chain of stages is long (each butterfly waits on two multiplies); four
// measured 4-10% faster than two at n = 1024 and 2048.
template <int M, bool Lone, class W, class Pf>
void inv_small_any(const W* a, u32* s, std::size_t n, const u32*& tw, const Mod& m, R& mx, Pf& pf) {
  if (n >= 128) inv_small<M, 4, Lone>(a, s, n, tw, m, mx, pf);
  else if (n >= 64) inv_small<M, 2, Lone>(a, s, n, tw, m, mx, pf);
  else inv_small<M, 1, Lone>(a, s, n, tw, m, mx, pf);
}

// Lazy inverse: sums below 32 q < 2^32.
bool lazy_inverse(const Tables& t) { return t.q < (u64{1} << 27); }

template <int M, class Pf, class W>
bool inverse_impl(const Tables& t, W* a, bool check, Plan::Prefetch ahead = {}) {
  const std::size_t n = t.n;
  alignas(64) u32 stack[sizeof(W) == 8 ? kStackWords : 1];
  u32* s = scratch_for(a, stack, n);
  const Mod m(t.q, M == kLazy ? 16 : 2, 0);
  const u32* tw = t.kinv32.data();
  R mx = _mm512_setzero_si512();
  const unsigned large = t.log_n - 4;  // stages len = 16 .. n/2; the last one is final
  std::size_t len = 16;
  unsigned left = large;
  const bool lone = lone_in_small(t.log_n);
  // Passes: the small stages, a radix-4 pass per two stages between, the final pass.
  Pf pf(ahead, n * (2 + ((lone ? left - 1 : left) - 1) / 2));
  if (lone) inv_small_any<M, true>(a, s, n, tw, m, mx, pf), len <<= 1, --left;
  else inv_small_any<M, false>(a, s, n, tw, m, mx, pf);
  if (check && out_of_range(mx, t.q)) {
    wipe_scratch<W>(s, n);
    return false;
  }
  bool classes = false;  // whether the previous pass was a radix-4 pass (inv_radix4)
  for (; left > 2; left -= 2, len <<= 2, classes = true) inv_radix4<M>(s, n, len, tw, m, classes, pf);
  if (left == 2) inv_final_radix4<M>(s, a, n, tw, m, classes, pf);
  else inv_final_single<M>(s, a, n, tw, m, pf);
  wipe_scratch<W>(s, n);
  return true;
}

// ---- tables
inline u32 shoup32(u64 w, u64 q) { return static_cast<u32>((w << 32) / q); }
void push_bc(std::vector<u32>& v, u64 w, u64 q) {
  v.push_back(static_cast<u32>(w));
  v.push_back(shoup32(w, q));
}
// 16 per-lane twiddles: w, ws, and ws's odd lanes moved to the even ones.
// wso only for len 1: for len >= 2 the lanes 2i and 2i + 1 hold the coefficients c and
// c + 1 of one block, so they share a twiddle and wso would equal ws.
void push_lanes(std::vector<u32>& v, const u64 (&w)[16], u64 q, bool with_odd, int lanes = 16) {
  for (int k = 0; k < lanes; ++k) v.push_back(static_cast<u32>(w[k]));
  for (int k = 0; k < lanes; ++k) v.push_back(shoup32(w[k], q));
  if (with_odd)
    for (int k = 0; k < 16; ++k) v.push_back(k % 2 == 0 ? shoup32(w[k + 1], q) : 0);
}

void prepare(Tables& t) {
  const std::size_t n = t.n;
  const u64 q = t.q;
  auto& f = t.kfwd32;
  f.clear();
  const unsigned large = t.log_n - 4;
  // Forward: the same pass order as forward_impl (fwd_passes: radix 8, then radix 4).
  const FwdPasses fp = fwd_passes(t.log_n);
  std::size_t len = n / 2;
  for (unsigned k = 0; k < fp.r8; ++k, len >>= 3)
    for (std::size_t b = 0; b < n / (2 * len); ++b) {
      push_bc(f, t.fwd[n / (2 * len) + b], q);
      for (std::size_t c = 0; c < 2; ++c) push_bc(f, t.fwd[n / len + 2 * b + c], q);
      for (std::size_t c = 0; c < 4; ++c) push_bc(f, t.fwd[2 * n / len + 4 * b + c], q);
    }
  for (unsigned k = 0; k < fp.r4; ++k, len >>= 2)
    for (std::size_t b = 0; b < n / (2 * len); ++b) {
      push_bc(f, t.fwd[n / (2 * len) + b], q);
      push_bc(f, t.fwd[n / len + 2 * b], q);
      push_bc(f, t.fwd[n / len + 2 * b + 1], q);
    }
  if (fp.single)
    for (std::size_t b = 0; b < n / (2 * len); ++b) push_bc(f, t.fwd[n / (2 * len) + b], q);
  for (std::size_t j = 0; j < n; j += 32) {
    for (int h = 8; h >= 1; h >>= 1) {  // lane k of x holds coefficient j + layout(h)[k]
      const auto l = layout(h);
      u64 w[16];
      for (int k = 0; k < 16; ++k)
        w[k] = t.fwd[n / (2 * static_cast<std::size_t>(h)) + (j + static_cast<std::size_t>(l[static_cast<std::size_t>(k)])) / (2 * static_cast<std::size_t>(h))];
      push_lanes(f, w, q, h == 1, tw_lanes(h));  // the lanes repeat after tw_lanes(h)
    }
  }
  // Inverse: stage len, block b uses inv[n/len - 1 - b] (FIPS 204 Algorithm 42's order).
  auto& v = t.kinv32;
  v.clear();
  const bool inv_lone = lone_in_small(t.log_n);
  for (std::size_t j = 0; j < n; j += 32) {
    for (int h = 1; h <= 8; h <<= 1) {
      const auto l = layout(h);
      u64 w[16];
      for (int k = 0; k < 16; ++k)
        w[k] = t.inv[n / static_cast<std::size_t>(h) - 1 - (j + static_cast<std::size_t>(l[static_cast<std::size_t>(k)])) / (2 * static_cast<std::size_t>(h))];
      push_lanes(v, w, q, h == 1);
    }
    if (inv_lone) push_bc(v, t.inv[n / 16 - 1 - j / 32], q);  // stage len = 16, block j / 32
  }
  std::size_t ilen = inv_lone ? 32 : 16;
  unsigned left = inv_lone ? large - 1 : large;
  for (; left > 2; left -= 2, ilen <<= 2)
    for (std::size_t b = 0; b < n / (4 * ilen); ++b) {
      push_bc(v, t.inv[n / ilen - 1 - 2 * b], q);
      push_bc(v, t.inv[n / ilen - 2 - 2 * b], q);
      push_bc(v, t.inv[n / (2 * ilen) - 1 - b], q);
    }
  if (left == 2) {  // stage n/4 (two blocks), an unused slot, then the last stage's pair
    push_bc(v, t.inv[3], q);
    push_bc(v, t.inv[2], q);
    push_bc(v, 0, q);
  }
  push_bc(v, t.n_inv, q);
  push_bc(v, t.inv[1], q);  // already times 1/n
}

template <class Pf = NoAhead, class W>
bool fwd_dispatch(const Tables& t, W* a, bool check, Plan::Prefetch ahead = {}) {
  if (lazy_forward(t)) return forward_impl<kLazy, Pf>(t, a, check, ahead);
  return t.q < (u64{1} << 30) ? forward_impl<kHarvey, Pf>(t, a, check, ahead) : forward_impl<kFull, Pf>(t, a, check, ahead);
}
template <class Pf = NoAhead, class W>
bool inv_dispatch(const Tables& t, W* a, bool check, Plan::Prefetch ahead = {}) {
  if (lazy_inverse(t)) return inverse_impl<kLazy, Pf>(t, a, check, ahead);
  return t.q < (u64{1} << 30) ? inverse_impl<kHarvey, Pf>(t, a, check, ahead) : inverse_impl<kFull, Pf>(t, a, check, ahead);
}
// uint32 arrays in place, no range check (Plan's checked forms scan first).
void fwd_u32(const Tables& t, u32* a, Plan::Prefetch ahead) {
  if (ahead.bytes > 0) fwd_dispatch<Ahead>(t, a, false, ahead);
  else fwd_dispatch(t, a, false);
}
void inv_u32(const Tables& t, u32* a, Plan::Prefetch ahead) {
  if (ahead.bytes > 0) inv_dispatch<Ahead>(t, a, false, ahead);
  else inv_dispatch(t, a, false);
}

}  // namespace

// Out-of-line entry points; n >= 32 (the Kernels wrapper sends n = 16 to the portable path).
bool w32_forward(const Tables& t, u64* a, bool check) { return fwd_dispatch(t, a, check); }
bool w32_inverse(const Tables& t, u64* a, bool check) { return inv_dispatch(t, a, check); }
void w32_prepare(Tables& t) {
  if (t.n < 32) return;
  prepare(t);
  t.forward_u32 = fwd_u32;
  t.inverse_u32 = inv_u32;
}

}  // namespace tempo::ntt::detail
