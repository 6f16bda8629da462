// The NTT kernels' per-thread code and geometry, compilable both by nvcc (device) and by
// the host compiler: detail::device_table_bytes lays the twiddles out with the geometry
// below, and tests/workloads/ntt/test_cuda_emulated.cpp runs the per-thread code on the
// CPU, all threads of a polynomial step by step (a barrier is a step boundary), to check
// the index logic and the table layout without a GPU. No CUDA runtime calls here.
//
// Scheme. Harvey butterflies with Shoup twiddles, as on the CPU: 32-bit words when
// q < 2^31 (values lazily in [0, 4q) when q < 2^30, fully reduced in [0, q) otherwise, so
// that every sum fits 32 bits), 64-bit words otherwise (lazy, q < 2^62). A polynomial of
// n = 2^L <= 2^kMaxLogC coefficients is transformed by T = n / R threads of one block, each
// holding R = 2^r coefficients (r = 5) in registers: it loads them once from global
// memory, runs the log n stages in phases of up to r stages in registers, exchanging
// coefficients between phases through shared memory, and writes them back once. Larger n:
// a column pass (the top log n - kMaxLogC stages, one thread per column of n / 2^kMaxLogC
// coefficients) and a chunk pass (the rest: chunks of 2^kMaxLogC coefficients transformed
// like polynomials, each with its own twiddle table).
//
// Index bits. Coefficient j of a polynomial: the stage with butterfly span 2^b ("stage
// bit" b; forward stages go b = L-1 down to 0, inverse ones up) pairs j and j + 2^b. In a
// phase the thread's R coefficients are those whose bits [a, a + r) (the phase's
// "window", which holds the phase's stage bits) vary; thread t supplies the other bits:
// its low a bits go to bits [0, a), the rest above the window (spread()). Window L - r
// makes thread t hold t + m * T (m < R): coalesced global loads and stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <tempo/ntt/detail/kernels.hpp>

#if defined(__CUDACC__)
#define TEMPO_NTT_HD __host__ __device__ __forceinline__
#define TEMPO_NTT_CHD __host__ __device__ constexpr
#else
#define TEMPO_NTT_HD inline
#define TEMPO_NTT_CHD constexpr
#endif
#if defined(__CUDA_ARCH__)
#define TEMPO_NTT_UNROLL _Pragma("unroll")
#else
#define TEMPO_NTT_UNROLL
#endif

namespace tempo::ntt::cuda::dev {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// ---- Geometry (the kernels, the launchers, the table builder and the emulator share it)

// One pass transforms up to 2^kMaxLogC coefficients per polynomial (or chunk).
inline constexpr int kMaxLogC = 12;
TEMPO_NTT_CHD int chunk_log(int log_n) { return log_n < kMaxLogC ? log_n : kMaxLogC; }

// log2 of the coefficients per thread.
TEMPO_NTT_CHD int log_r(int L) { return L < 5 ? L : 5; }
// Phases of a 2^L transform: the top r stage bits, then the rest in as few phases of at
// most 5 as possible, evenly split (with r = 5 this makes every exchange bank-conflict
// free with pad() below, multi-polynomial warps included).
TEMPO_NTT_CHD int phase_count(int L) { return L <= 5 ? 1 : 1 + (L - 1) / 5; }
TEMPO_NTT_CHD int phase_stages(int L, int p) {
  if (p == 0) return log_r(L);
  const int rest = L - 5, parts = phase_count(L) - 1;
  return rest / parts + (p - 1 < rest % parts ? 1 : 0);
}
// Phase p (forward order: phase 0 holds the top bits) covers stage bits [lo, hi].
TEMPO_NTT_CHD int phase_lo(int L, int p) {
  int lo = L;
  for (int i = 0; i <= p; ++i) lo -= phase_stages(L, i);
  return lo;
}
TEMPO_NTT_CHD int phase_hi(int L, int p) { return phase_lo(L, p) + phase_stages(L, p) - 1; }
TEMPO_NTT_CHD int window(int L, int p) {
  const int lo = phase_lo(L, p), top = L - log_r(L);
  return lo < top ? lo : top;
}
TEMPO_NTT_CHD int window_of_bit(int L, int b) {
  int p = 0;
  while (phase_lo(L, p) > b) ++p;
  return window(L, p);
}
// Thread t's part of a coefficient index in window a.
TEMPO_NTT_CHD u32 spread(u32 t, int a, int r) { return (t & ((1u << a) - 1)) | ((t >> a) << (a + r)); }

// Twiddle tables are arrays of Tw2 pairs: a chunk table of 2^L pairs per direction holds
// stage bit b's 2^(L-1-b) twiddles at [2^(L-1-b), 2^(L-b)), ordered so that the threads
// of a warp read consecutive pairs: the twiddle of the butterfly group G (the window bits
// above b, g = a + r - 1 - b of them) of the threads with t >> a = th sits at
// 2^(L-1-b) + G * (T >> a) + th. Its natural index within the stage is th * 2^g + G.
TEMPO_NTT_CHD u32 tw_pos(int L, int b, u32 G, u32 th) {
  const int a = window_of_bit(L, b);
  return (1u << (L - 1 - b)) + (G << (L - log_r(L) - a)) + th;
}
// The device table (detail::device_table_bytes), in pairs: for each chunk index c < n / C
// (C = 2^chunk_log(log n); one chunk when n <= C) C forward pairs then C inverse pairs;
// then, when n > C, the column pass's 2^(log n - log C) forward and inverse pairs in
// natural order (fwd[m], inv[m]).
TEMPO_NTT_CHD std::size_t chunk_table(std::size_t c, int log_c) { return (2 * c) << log_c; }
TEMPO_NTT_CHD std::size_t column_table(int log_n) { return std::size_t{2} << log_n; }
TEMPO_NTT_CHD std::size_t table_pairs(int log_n) {
  return column_table(log_n) + (log_n > kMaxLogC ? std::size_t{2} << (log_n - kMaxLogC) : 0);
}

// Shared memory exchange buffers: one word of padding per 32 (conflict-free exchanges for
// every window the phases use), and one more between the buffers of polynomials sharing
// a warp.
TEMPO_NTT_CHD u32 pad(u32 j) { return j + (j >> 5); }
TEMPO_NTT_CHD u32 buf_words(int L) { return pad((1u << L) - 1) + 1 + (L - log_r(L) < 5 ? 1 : 0); }

// ---- Arithmetic

TEMPO_NTT_HD u32 mulhi(u32 a, u32 b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return static_cast<u32>((static_cast<u64>(a) * b) >> 32);
#endif
}
TEMPO_NTT_HD u64 mulhi(u64 a, u64 b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<u64>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}
// x mod m for x < 2m without a branch. 32-bit: x - m wraps above x when x < m (one min).
// 64-bit (m <= 2^63): x - m has its top bit set exactly when it wrapped.
TEMPO_NTT_HD u32 csub(u32 x, u32 m) {
  const u32 y = x - m;
  return y < x ? y : x;
}
TEMPO_NTT_HD u64 csub(u64 x, u64 m) {
  const u64 y = x - m;
  return static_cast<std::int64_t>(y) < 0 ? x : y;
}

// A twiddle and its Shoup companion floor(w * 2^bits / q), loaded together.
template <typename W>
struct alignas(2 * sizeof(W)) Tw2 {
  W w, ws;
};

// Butterflies. Strict (32-bit words, 2^30 <= q < 2^31): every value in [0, q). Otherwise
// Harvey's lazy ranges: forward values in [0, 4q), inverse ones in [0, 2q).
template <typename W, bool Strict>
struct Mod {
  W q, q2;  // q and 2q
  // w * y mod q up to one q, in [0, 2q), for any word y.
  TEMPO_NTT_HD W mul(W y, Tw2<W> w) const { return static_cast<W>(w.w * y - mulhi(w.ws, y) * q); }
  TEMPO_NTT_HD void ct(W& x, W& y, Tw2<W> w) const {  // Cooley-Tukey (forward)
    if constexpr (Strict) {
      const W v = csub(mul(y, w), q);
      const W u = x;
      x = csub(static_cast<W>(u + v), q);
      y = csub(static_cast<W>(u - v + q), q);
    } else {
      const W u = csub(x, q2), v = mul(y, w);
      x = static_cast<W>(u + v);
      y = static_cast<W>(u - v + q2);
    }
  }
  TEMPO_NTT_HD void gs(W& x, W& y, Tw2<W> w) const {  // Gentleman-Sande (inverse)
    const W m = Strict ? q : q2;
    const W u = csub(static_cast<W>(x + y), m);
    y = mul(static_cast<W>(x - y + m), w);
    if constexpr (Strict) y = csub(y, q);
    x = u;
  }
  // The inverse's last stage: applies 1/n (ninv = n^-1; w = inv[1] carries it) and
  // reduces to [0, q).
  TEMPO_NTT_HD void gs_last(W& x, W& y, Tw2<W> w, Tw2<W> ninv) const {
    const W s = static_cast<W>(x + y), d = static_cast<W>(x - y + (Strict ? q : q2));
    x = csub(mul(s, ninv), q);
    y = csub(mul(d, w), q);
  }
  // Forward output -> [0, q).
  TEMPO_NTT_HD W reduce(W x) const {
    if constexpr (Strict) return x;
    else return csub(csub(x, q2), q);
  }
};

// Barrett for a product of two residues (q < 2^62): the CPU's formula, in 64-bit halves.
TEMPO_NTT_HD u64 mul_mod(u64 x, u64 y, const Params& p) {
  const u64 q = p.q, lo = x * y, hi = mulhi(x, y);
  const u32 k = p.k;
  const u64 top = (hi << (65 - k)) | (lo >> (k - 1));  // x*y >> (k-1)
  const u64 qhat = (mulhi(top, p.mu) << (63 - k)) | ((top * p.mu) >> (k + 1));
  const u64 r = lo - qhat * q;  // < 3q
  return csub(csub(r, 2 * q), q);
}
// The same for q < 2^31 (k <= 31): x * y >> (k-1) and mu are below 2^32, so every product
// is one 32 x 32 -> 64-bit multiply.
TEMPO_NTT_HD u32 mul_mod(u32 x, u32 y, const Params& p) {
  const u64 xy = static_cast<u64>(x) * y;
  const u32 top = static_cast<u32>(xy >> (p.k - 1));
  const u32 qhat = static_cast<u32>((static_cast<u64>(top) * static_cast<u32>(p.mu)) >> (p.k + 1));
  const u64 r = xy - static_cast<u64>(qhat) * static_cast<u32>(p.q);  // < 3q
  return static_cast<u32>(csub(csub(r, 2 * p.q), p.q));
}

// ---- One thread's share of a polynomial (or chunk) of 2^L coefficients

template <typename W, int L, typename S = u64>
struct Lane {
  static constexpr int r = log_r(L), R = 1 << r;
  static constexpr u32 T = 1u << (L - r);  // threads per polynomial
  W x[R];
  u32 t = 0;            // thread within the polynomial
  bool active = false;  // false past the batch's end: no memory access, still at the barriers
  // The batch's input (multiply: first factor), second factor and output, and the item
  // (polynomial or chunk) at item * 2^L in them: kept apart, so that the kernel's bases
  // stay in constant memory and one 32-bit register, not three 64-bit pointers, lives
  // through the transforms (an item index fits 32 bits: 2^32 items of 16 coefficients
  // would be 512 GiB). S: the coefficients' word in memory (u64, or u32 for the 32-bit
  // layout of q < 2^31: half the bytes moved).
  const S* a = nullptr;
  const S* b = nullptr;
  S* out = nullptr;
  u32 item = 0;
  // Index of the thread's first coefficient (window L - r: m adds m * T) in the batch.
  TEMPO_NTT_HD std::size_t first() const { return (std::size_t{item} << L) + t; }
  W* buf = nullptr;        // the polynomial's exchange buffer (buf_words(L) words)
  W* stash = nullptr;      // multiply: where this thread parks a's transform,
  u32 stash_stride = 0;    // R words, stash_stride apart (park())
  const W* partner = nullptr;  // product, b's threads: a's exchange buffer
};

// Global memory <-> registers in window L - r: thread t holds t + m * T.
template <typename W, int L, typename S>
TEMPO_NTT_HD void load(Lane<W, L, S>& l, const S* base) {
  if (l.active) {
    const S* src = base + l.first();
    TEMPO_NTT_UNROLL
    for (int m = 0; m < Lane<W, L>::R; ++m) l.x[m] = static_cast<W>(src[m * Lane<W, L>::T]);
  } else {
    TEMPO_NTT_UNROLL
    for (int m = 0; m < Lane<W, L>::R; ++m) l.x[m] = 0;
  }
}
template <typename W, int L, typename S>
TEMPO_NTT_HD void store(const Lane<W, L, S>& l) {
  if (!l.active) return;
  S* dst = l.out + l.first();
  TEMPO_NTT_UNROLL
  for (int m = 0; m < Lane<W, L>::R; ++m) dst[m * Lane<W, L>::T] = static_cast<S>(l.x[m]);
}

// Registers <-> exchange buffer in window A.
template <int A, typename W, int L, typename S>
TEMPO_NTT_HD void put(const Lane<W, L, S>& l) {
  constexpr int r = Lane<W, L>::r;
  W* p = l.buf + pad(spread(l.t, A, r));  // pad() is additive over disjoint bits
  TEMPO_NTT_UNROLL
  for (int m = 0; m < Lane<W, L>::R; ++m) p[pad(static_cast<u32>(m) << A)] = l.x[m];
}
template <int A, typename W, int L, typename S>
TEMPO_NTT_HD void get(Lane<W, L, S>& l) {
  constexpr int r = Lane<W, L>::r;
  const W* p = l.buf + pad(spread(l.t, A, r));
  TEMPO_NTT_UNROLL
  for (int m = 0; m < Lane<W, L>::R; ++m) l.x[m] = p[pad(static_cast<u32>(m) << A)];
}

template <int I, int N, class F>
TEMPO_NTT_HD void static_for(F&& f) {
  if constexpr (I < N) {
    f(std::integral_constant<int, I>{});
    static_for<I + 1, N>(f);
  }
}

// One stage (bit b) on the thread's coefficients in window a: the twiddle of each group
// G (the window bits above b) once, then its 2^(b-a) butterflies. Compile-time b and a
// make every register index a constant. Last: the inverse's last stage (1/n, [0, q)).
template <int b, int a, bool Forward, bool Last, typename W, bool Strict, int L, typename S>
TEMPO_NTT_HD void stage(Lane<W, L, S>& l, const Tw2<W>* tw, const Mod<W, Strict>& mod, Tw2<W> ninv) {
  constexpr int r = log_r(L), s = b - a, g = a + r - 1 - b;  // local bit; group bits above it
  const Tw2<W>* row = tw + (1u << (L - 1 - b)) + (l.t >> a);
  TEMPO_NTT_UNROLL
  for (int G = 0; G < (1 << g); ++G) {
    const Tw2<W> w = row[static_cast<u32>(G) << (L - r - a)];
    TEMPO_NTT_UNROLL
    for (int low = 0; low < (1 << s); ++low) {
      const int m = (G << (s + 1)) | low;
      if constexpr (Forward) mod.ct(l.x[m], l.x[m + (1 << s)], w);
      else if constexpr (Last) mod.gs_last(l.x[m], l.x[m + (1 << s)], w, ninv);
      else mod.gs(l.x[m], l.x[m + (1 << s)], w);
    }
  }
}
// Forward phase p: stage bits hi down to lo.
template <int p, typename W, bool Strict, int L, typename S>
TEMPO_NTT_HD void fwd_phase(Lane<W, L, S>& l, const Tw2<W>* tw, const Mod<W, Strict>& mod) {
  constexpr int a = window(L, p), hi = phase_hi(L, p), lo = phase_lo(L, p);
  static_for<0, hi - lo + 1>([&](auto i) { stage<hi - decltype(i)::value, a, true, false>(l, tw, mod, Tw2<W>{}); });
}
// Inverse phase p: stage bits lo up to hi. Whole: this pass holds the transform's last
// stage (bit L-1).
template <int p, bool Whole, typename W, bool Strict, int L, typename S>
TEMPO_NTT_HD void inv_phase(Lane<W, L, S>& l, const Tw2<W>* tw, const Mod<W, Strict>& mod, Tw2<W> ninv) {
  constexpr int a = window(L, p), hi = phase_hi(L, p), lo = phase_lo(L, p);
  static_for<0, hi - lo + 1>([&](auto i) {
    constexpr int b = lo + decltype(i)::value;
    stage<b, a, false, Whole && b == L - 1>(l, tw, mod, ninv);
  });
}

// ---- Programs: what a polynomial's T threads run, as steps separated by barriers.
// each(f) runs f(lane) for every thread (on the device: this thread's own lane); sync()
// is the barrier among the polynomial's threads.

// Window A -> window B through the exchange buffer (nothing when they are the same).
// The first barrier keeps the buffer until every thread has read the previous exchange.
template <int A, int B, class Each, class Sync>
TEMPO_NTT_HD void exchange(Each& each, Sync& sync) {
  if constexpr (A != B) {
    sync();
    each([](auto& l) { put<A>(l); });
    sync();
    each([](auto& l) { get<B>(l); });
  }
}

template <typename W, bool Strict, int L, class Each, class Sync>
TEMPO_NTT_HD void forward_phases(Each& each, Sync& sync, const Tw2<W>* tw, const Mod<W, Strict>& mod) {
  static_for<0, phase_count(L)>([&](auto pc) {
    constexpr int p = decltype(pc)::value;
    if constexpr (p > 0) exchange<window(L, p - 1), window(L, p)>(each, sync);
    each([&](auto& l) { fwd_phase<p>(l, tw, mod); });
  });
}
// Starts in window(L, P-1) (the forward's last), ends in window(L, 0) = L - r.
template <bool Whole, typename W, bool Strict, int L, class Each, class Sync>
TEMPO_NTT_HD void inverse_phases(Each& each, Sync& sync, const Tw2<W>* tw, const Mod<W, Strict>& mod, Tw2<W> ninv) {
  constexpr int P = phase_count(L);
  static_for<0, P>([&](auto ic) {
    constexpr int p = P - 1 - decltype(ic)::value;
    if constexpr (p < P - 1) exchange<window(L, p + 1), window(L, p)>(each, sync);
    each([&](auto& l) { inv_phase<p, Whole>(l, tw, mod, ninv); });
  });
}

// multiply: the whole product in one pass (32-bit words). product: the pointwise
// product of the transforms, for an inverse pass to follow (64-bit words: a multiply
// kernel would hold three transforms' code, more than the instruction cache, and a's
// parked transform would cost the shared memory of half the blocks an SM holds).
enum class Pass { forward, inverse, inverse_part, multiply, product };

// multiply parks a's transform (reduced) in the thread's own shared-memory stash slots
// while it transforms b (no barrier: no other thread reads them).
template <typename W, bool Strict, int L, typename S>
TEMPO_NTT_HD void park(const Lane<W, L, S>& l, const Mod<W, Strict>& mod) {
  TEMPO_NTT_UNROLL
  for (int m = 0; m < Lane<W, L>::R; ++m) l.stash[m * l.stash_stride] = mod.reduce(l.x[m]);
}
// The thread's values times the same coefficients of another transform (in [0, q)),
// read at o[m * stride] (multiply's stash, or product's partner buffer), in [0, q).
template <typename W, bool Strict, int L, typename S>
TEMPO_NTT_HD void times(Lane<W, L, S>& l, const W* o, u32 stride, const Mod<W, Strict>& mod, const Params& p) {
  TEMPO_NTT_UNROLL
  for (int m = 0; m < Lane<W, L>::R; ++m) l.x[m] = mul_mod(mod.reduce(l.x[m]), o[m * stride], p);
}

// The whole of a pass for one polynomial (chunk). tw: the chunk's table for the pass's
// direction (multiply: forward, then inverse C pairs further), valid once ready() has
// run (the kernel stages it into shared memory while the first loads are in flight).
// forward: output in [0, q). inverse: output in [0, q), or (inverse_part, the chunk pass
// of a larger n) still lazy for the column pass. multiply: a's transform, b's, their
// product, its inverse, in [0, q). product: run by a pair of polynomials' threads side by
// side, a's (partner == nullptr) and b's (load() from l.a reads a or b): both transform,
// a's threads pass their values through their exchange buffer, b's multiply and store.
// sync_all: the barrier of the whole block (product's pairs may span warps).
template <Pass K, typename W, bool Strict, int L, class Each, class Sync, class SyncAll, class Ready>
TEMPO_NTT_HD void run(Each& each, Sync& sync, SyncAll& sync_all, Ready&& ready, const Tw2<W>* tw,
                      const Params& p) {
  constexpr int P = phase_count(L), top = L - log_r(L), last = window(L, P - 1);
  constexpr int R = Lane<W, L>::R;
  const Mod<W, Strict> mod{static_cast<W>(p.q), static_cast<W>(2 * p.q)};
  const Tw2<W> ninv{static_cast<W>(p.n_inv), static_cast<W>(p.n_inv_s)};
  const Tw2<W>* itw = K == Pass::multiply ? tw + (1u << L) : tw;
  auto reduce = [&](auto& l) {
    TEMPO_NTT_UNROLL
    for (int m = 0; m < R; ++m) l.x[m] = mod.reduce(l.x[m]);
  };
  each([](auto& l) { load(l, l.a); });
  ready();
  if constexpr (K == Pass::forward) {
    forward_phases<W, Strict, L>(each, sync, tw, mod);
    each(reduce);
    exchange<last, top>(each, sync);
    each([](auto& l) { store(l); });
  } else if constexpr (K == Pass::inverse || K == Pass::inverse_part) {
    exchange<top, last>(each, sync);
    inverse_phases<K == Pass::inverse, W, Strict, L>(each, sync, itw, mod, ninv);
    each([](auto& l) { store(l); });
  } else if constexpr (K == Pass::multiply) {
    // b's transform ends in the window where a's did and where the inverse starts. The
    // barriers keep the compiler from hoisting b's loads into a's transform, and the
    // stash's loads into b's (registers would run out).
    forward_phases<W, Strict, L>(each, sync, tw, mod);
    each([&](auto& l) { park(l, mod); });
    sync();
    each([](auto& l) { load(l, l.b); });
    forward_phases<W, Strict, L>(each, sync, tw, mod);
    sync();
    each([&](auto& l) { times(l, l.stash, l.stash_stride, mod, p); });
    inverse_phases<true, W, Strict, L>(each, sync, itw, mod, ninv);
    each([](auto& l) { store(l); });
  } else {
    forward_phases<W, Strict, L>(each, sync, tw, mod);
    each(reduce);
    sync_all();  // every exchange buffer is free
    each([](auto& l) {
      if (!l.partner) put<last>(l);
    });
    sync_all();
    static_assert(last == 0, "a's coefficient m sits at the thread's base + m");
    each([&](auto& l) {
      if (l.partner) times(l, l.partner + pad(spread(l.t, last, log_r(L))), 1, mod, p);
    });
    sync_all();  // a's buffers read
    exchange<last, top>(each, sync);
    each([](auto& l) {
      if (l.partner) store(l);
    });
  }
}

// ---- The column pass (n > 2^kMaxLogC): one thread per column c * C + i (c < 2^LA).
// tw: the column table (natural order). Forward: stage bits L-1 .. L-LA, output lazy
// for the chunk pass. Inverse: the last LA stages, the transform's last among them.
template <bool Forward, int LA, typename W, bool Strict>
TEMPO_NTT_HD void column(W (&x)[1 << LA], const Tw2<W>* tw, const Mod<W, Strict>& mod, Tw2<W> ninv) {
  if constexpr (Forward) {
    TEMPO_NTT_UNROLL
    for (int bb = LA - 1; bb >= 0; --bb) {
      TEMPO_NTT_UNROLL
      for (int c = 0; c < (1 << LA); ++c)
        if (!(c & (1 << bb))) mod.ct(x[c], x[c + (1 << bb)], tw[(1 << (LA - 1 - bb)) + (c >> (bb + 1))]);
    }
  } else {
    const Tw2<W>* itw = tw + (1 << LA);
    TEMPO_NTT_UNROLL
    for (int bb = 0; bb < LA; ++bb) {
      TEMPO_NTT_UNROLL
      for (int c = 0; c < (1 << LA); ++c) {
        if (c & (1 << bb)) continue;
        const Tw2<W> w = itw[(1 << (LA - bb)) - 1 - (c >> (bb + 1))];
        if (bb == LA - 1)
          mod.gs_last(x[c], x[c + (1 << bb)], w, ninv);
        else
          mod.gs(x[c], x[c + (1 << bb)], w);
      }
    }
  }
}

}  // namespace tempo::ntt::cuda::dev
