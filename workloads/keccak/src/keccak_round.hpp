// One Keccak-p[1600] round body, written once and instantiated for scalar lanes
// (uint64_t) and for four interleaved states (__m256i). Internal header.
//
// Lanes live in 25 named locals (A<row><column>, rows b g k m s = y 0..4, columns
// a e i o u = x 0..4, lane index x + 5y) so the compiler keeps them in registers; two
// rounds per loop iteration ping-pong between the A and E sets. Theta, rho, pi, chi and
// iota are fused per output plane, as in the Keccak team's "opt64" formulation.
#pragma once

#include <cstdint>

namespace tempo::keccak::detail {
// Internal linkage on purpose: this header is compiled both with and without -mavx2, and
// an inline function with external linkage could be merged across those translation units,
// letting AVX2 code leak into the portable path.
namespace {

constexpr std::uint64_t kRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808AULL, 0x8000000080008000ULL,
    0x000000000000808BULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008AULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000AULL,
    0x000000008000808BULL, 0x800000000000008BULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800AULL, 0x800000008000000AULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

// Ops: type V; V x(V, V) (xor); V andn(V a, V b) = ~a & b; template <int n> V rol(V);
// V rc(std::uint64_t) (broadcast a round constant). Optional, where one instruction does
// it (AVX-512's vpternlogq): V chi(a, b, c) = a ^ (~b & c) and V x5(a, b, c, d, e), the
// xor of five; without them the round uses x and andn.
template <class Ops, class V>
inline V chi(V a, V b, V c) noexcept {
  if constexpr (requires { Ops::chi(a, b, c); }) return Ops::chi(a, b, c);
  else return Ops::x(a, Ops::andn(b, c));
}
template <class Ops, class V>
inline V x5(V a, V b, V c, V d, V e) noexcept {
  if constexpr (requires { Ops::x5(a, b, c, d, e); }) return Ops::x5(a, b, c, d, e);
  else return Ops::x(Ops::x(Ops::x(a, b), Ops::x(c, d)), e);
}

#define TEMPO_KECCAK_CHI(E, P)                          \
  E##P##a = chi<Ops>(B0, B1, B2);                       \
  E##P##e = chi<Ops>(B1, B2, B3);                       \
  E##P##i = chi<Ops>(B2, B3, B4);                       \
  E##P##o = chi<Ops>(B3, B4, B0);                       \
  E##P##u = chi<Ops>(B4, B0, B1);

#define TEMPO_KECCAK_ROUND(A, E, RC)                                                           \
  {                                                                                            \
    const V Ca = x5<Ops>(A##ba, A##ga, A##ka, A##ma, A##sa);            \
    const V Ce = x5<Ops>(A##be, A##ge, A##ke, A##me, A##se);            \
    const V Ci = x5<Ops>(A##bi, A##gi, A##ki, A##mi, A##si);            \
    const V Co = x5<Ops>(A##bo, A##go, A##ko, A##mo, A##so);            \
    const V Cu = x5<Ops>(A##bu, A##gu, A##ku, A##mu, A##su);            \
    const V Da = Ops::x(Cu, Ops::template rol<1>(Ce));                                         \
    const V De = Ops::x(Ca, Ops::template rol<1>(Ci));                                         \
    const V Di = Ops::x(Ce, Ops::template rol<1>(Co));                                         \
    const V Do = Ops::x(Ci, Ops::template rol<1>(Cu));                                         \
    const V Du = Ops::x(Co, Ops::template rol<1>(Ca));                                         \
    V B0, B1, B2, B3, B4;                                                                      \
    B0 = Ops::x(A##ba, Da);                                                                    \
    B1 = Ops::template rol<44>(Ops::x(A##ge, De));                                             \
    B2 = Ops::template rol<43>(Ops::x(A##ki, Di));                                             \
    B3 = Ops::template rol<21>(Ops::x(A##mo, Do));                                             \
    B4 = Ops::template rol<14>(Ops::x(A##su, Du));                                             \
    TEMPO_KECCAK_CHI(E, b)                                                                     \
    E##ba = Ops::x(E##ba, Ops::rc(RC));                                                        \
    B0 = Ops::template rol<28>(Ops::x(A##bo, Do));                                             \
    B1 = Ops::template rol<20>(Ops::x(A##gu, Du));                                             \
    B2 = Ops::template rol<3>(Ops::x(A##ka, Da));                                              \
    B3 = Ops::template rol<45>(Ops::x(A##me, De));                                             \
    B4 = Ops::template rol<61>(Ops::x(A##si, Di));                                             \
    TEMPO_KECCAK_CHI(E, g)                                                                     \
    B0 = Ops::template rol<1>(Ops::x(A##be, De));                                              \
    B1 = Ops::template rol<6>(Ops::x(A##gi, Di));                                              \
    B2 = Ops::template rol<25>(Ops::x(A##ko, Do));                                             \
    B3 = Ops::template rol<8>(Ops::x(A##mu, Du));                                              \
    B4 = Ops::template rol<18>(Ops::x(A##sa, Da));                                             \
    TEMPO_KECCAK_CHI(E, k)                                                                     \
    B0 = Ops::template rol<27>(Ops::x(A##bu, Du));                                             \
    B1 = Ops::template rol<36>(Ops::x(A##ga, Da));                                             \
    B2 = Ops::template rol<10>(Ops::x(A##ke, De));                                             \
    B3 = Ops::template rol<15>(Ops::x(A##mi, Di));                                             \
    B4 = Ops::template rol<56>(Ops::x(A##so, Do));                                             \
    TEMPO_KECCAK_CHI(E, m)                                                                     \
    B0 = Ops::template rol<62>(Ops::x(A##bi, Di));                                             \
    B1 = Ops::template rol<55>(Ops::x(A##go, Do));                                             \
    B2 = Ops::template rol<39>(Ops::x(A##ku, Du));                                             \
    B3 = Ops::template rol<41>(Ops::x(A##ma, Da));                                             \
    B4 = Ops::template rol<2>(Ops::x(A##se, De));                                              \
    TEMPO_KECCAK_CHI(E, s)                                                                     \
  }

#define TEMPO_KECCAK_LANES(M, P) M(P, b, a, 0) M(P, b, e, 1) M(P, b, i, 2) M(P, b, o, 3) M(P, b, u, 4) \
  M(P, g, a, 5) M(P, g, e, 6) M(P, g, i, 7) M(P, g, o, 8) M(P, g, u, 9)                                \
  M(P, k, a, 10) M(P, k, e, 11) M(P, k, i, 12) M(P, k, o, 13) M(P, k, u, 14)                           \
  M(P, m, a, 15) M(P, m, e, 16) M(P, m, i, 17) M(P, m, o, 18) M(P, m, u, 19)                           \
  M(P, s, a, 20) M(P, s, e, 21) M(P, s, i, 22) M(P, s, o, 23) M(P, s, u, 24)
#define TEMPO_KECCAK_LOAD(P, R, C, I) V P##R##C = Ops::load(s, I);
#define TEMPO_KECCAK_DECL(P, R, C, I) V P##R##C;
#define TEMPO_KECCAK_STORE(P, R, C, I) Ops::store(s, I, P##R##C);

// Applies rounds first_round..23 of Keccak-p[1600] (first_round 0: Keccak-f, 12: the
// TurboSHAKE/KT permutation). 24 - first_round must be even. s is whatever Ops::load/store
// index into (25 scalars, or 100 interleaved scalars for the 4-way version).
template <class Ops, class S>
inline void keccak_rounds(S* s, int first_round) noexcept {
  using V = typename Ops::V;
  TEMPO_KECCAK_LANES(TEMPO_KECCAK_LOAD, A)
  TEMPO_KECCAK_LANES(TEMPO_KECCAK_DECL, E)
  for (int r = first_round; r < 24; r += 2) {
    TEMPO_KECCAK_ROUND(A, E, kRoundConstants[r])
    TEMPO_KECCAK_ROUND(E, A, kRoundConstants[r + 1])
  }
  TEMPO_KECCAK_LANES(TEMPO_KECCAK_STORE, A)
}

#undef TEMPO_KECCAK_LOAD
#undef TEMPO_KECCAK_DECL
#undef TEMPO_KECCAK_STORE
#undef TEMPO_KECCAK_LANES
#undef TEMPO_KECCAK_ROUND
#undef TEMPO_KECCAK_CHI

}  // namespace
}  // namespace tempo::keccak::detail
