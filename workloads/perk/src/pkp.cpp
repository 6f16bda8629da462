// The PKP proof on the VOLE correlations (prove_pkp.c, ev_expand.c, verify_pkp.c,
// verify_ev_expand.c). A prover's share of degree g is a polynomial in X whose X^g coefficient
// is a bit (the witness value) and whose lower coefficients are tower elements; the verifier
// holds the same polynomial evaluated at X = Delta. Each row of the permutation matrix is the
// tensor product of d one-hot digit vectors (base 4; the fourth digit binary at levels 3, 5).
// The products are computed in a different order than the package's code, but they are the
// same polynomials over the same field, so every coefficient, and every byte, is the same.
//
// Constant time: the secret bits (the permutation's digits) only enter masks and shift
// counts; GF(2^11) and tower products are carry-less, without tables.
#include <array>
#include <cstring>
#include <vector>

#include <tempo/secure_zero.hpp>

#include "field.hpp"
#include "scheme.hpp"
#include "sponge.hpp"
#include "tower.hpp"

namespace tempo::perk::detail {
namespace {

inline unsigned vbit(const std::uint8_t* row, unsigned idx) { return (row[idx / 8] >> (idx % 8)) & 1u; }
inline std::uint16_t mask16(unsigned bit) { return static_cast<std::uint16_t>(0u - bit); }

template <unsigned E, unsigned D>
struct Pkp {
  using T = std::array<std::uint16_t, E>;
  // b X^G + c[G-1] X^(G-1) + ... + c[0], b a bit.
  template <unsigned G>
  struct Sh {
    std::uint16_t b = 0;
    T c[G] = {};
  };
  using S1 = Sh<1>;

  const ParamSet& p;
  TowerMul mulp;

  Pkp(const ParamSet& ps, const Kernels& k) : p(ps), mulp(pick(k)) {}

  // The kernel table's product, or the AVX-512 one where the CPU has it and the table is not
  // the portable one (which TEMPO_PERK_ISA=portable asks for).
  static TowerMul pick(const Kernels& k) {
    const TowerMuls* wide = &k == &portable_kernels() ? nullptr : avx512_tower_muls();
    if (wide) return E == 12 ? wide->mul12 : E == 18 ? wide->mul18 : wide->mul24;
    return E == 12 ? k.tower_mul12 : E == 18 ? k.tower_mul18 : k.tower_mul24;
  }

  static constexpr unsigned n_checks() { return D == 3 ? 6 : 7; }

  T mul(const T& a, const T& b) const {
    T r;
    mulp(r.data(), a.data(), b.data());
    return r;
  }
  static void add_to(T& a, const T& b) {
    for (unsigned i = 0; i < E; ++i) a[i] ^= b[i];
  }
  static T masked(const T& a, std::uint16_t m) {
    T r;
    for (unsigned i = 0; i < E; ++i) r[i] = a[i] & m;
    return r;
  }
  static T scal(const T& a, std::uint16_t s) {
    T r;
    for (unsigned i = 0; i < E; ++i) r[i] = gf11_mul(a[i], s);
    return r;
  }
  template <unsigned G>
  static void add_to(Sh<G>& a, const Sh<G>& b) {
    a.b ^= b.b;
    for (unsigned k = 0; k < G; ++k) add_to(a.c[k], b.c[k]);
  }
  // s * (f.b X + f.v): G tower products.
  template <unsigned G>
  Sh<G + 1> mul1(const Sh<G>& s, const S1& f) const {
    Sh<G + 1> r;
    const std::uint16_t mb = mask16(f.b);
    r.b = s.b & f.b;
    r.c[G] = masked(f.c[0], mask16(s.b));
    add_to(r.c[G], masked(s.c[G - 1], mb));
    for (unsigned k = G - 1; k >= 1; --k) {
      r.c[k] = mul(s.c[k], f.c[0]);
      add_to(r.c[k], masked(s.c[k - 1], mb));
    }
    r.c[0] = mul(s.c[0], f.c[0]);
    return r;
  }
  // X * s
  template <unsigned G>
  static Sh<G + 1> times_x(const Sh<G>& s) {
    Sh<G + 1> r;
    r.b = s.b;
    for (unsigned k = 0; k < G; ++k) r.c[k + 1] = s.c[k];
    return r;
  }

  // The tower element at position idx of rho VOLE rows: bit j of coefficient i from row 11i + j.
  static T at(const std::uint8_t* const* rows, unsigned idx) {
    T r{};
    for (unsigned i = 0; i < E; ++i) {
      std::uint16_t c = 0;
      for (unsigned j = 0; j < q_bits; ++j) c = static_cast<std::uint16_t>(c | vbit(rows[q_bits * i + j], idx) << j);
      r[i] = c;
    }
    return r;
  }
  // rho consecutive bits of u from idx as a tower element (voles.h sig_perk_u_to_tower_field).
  static T u_at(const std::uint8_t* u, unsigned idx) {
    T r{};
    for (unsigned i = 0; i < E; ++i) {
      std::uint16_t c = 0;
      for (unsigned j = 0; j < q_bits; ++j) c = static_cast<std::uint16_t>(c | vbit(u, idx + q_bits * i + j) << j);
      r[i] = c;
    }
    return r;
  }
  // The rho positions from idx combined with the weights x^j Y^i of position 11i + j
  // (voles.h sig_perk_check_zero_v_to_tower_field): the VOLE side of u_at.
  static T cz_at(const std::uint8_t* const* rows, unsigned idx) {
    std::uint32_t acc[2 * E - 1] = {};
    for (unsigned i = 0; i < E; ++i)
      for (unsigned j = 0; j < q_bits; ++j) {
        const T v = at(rows, idx + q_bits * i + j);
        for (unsigned e = 0; e < E; ++e) acc[i + e] ^= std::uint32_t{v[e]} << j;
      }
    T r;
    tower_reduce<E>(acc, r.data());
    return r;
  }

  // alpha_0 .. alpha_(n + c n + m - 1) = SHAKE(ch2 || H4) read 11 bits at a time.
  std::vector<T> alphas(const std::uint8_t* ch2) const {
    const std::size_t count = p.n + std::size_t{n_checks()} * p.n + p.m;
    const std::size_t bytes = (count * E * q_bits + 63) / 64 * 8;
    std::vector<std::uint8_t> buf(bytes);
    Sponge g = Sponge::prg(p);
    g.absorb(ch2, p.hash_bytes());
    g.finalize(dom_h4);
    g.squeeze(buf.data(), bytes);
    std::vector<T> a(count);
    BitReader r{buf.data()};
    for (auto& x : a)
      for (auto& c : x) c = static_cast<std::uint16_t>(r.read(q_bits));
    return a;
  }

  // ---- prover -----------------------------------------------------------------------------
  void prove(const PkpKey& key, const std::uint8_t* u, const std::uint8_t* const* v, std::uint16_t* t,
             const std::function<void(const std::uint16_t*, std::uint8_t*)>& make_ch2, std::uint8_t* ch2,
             std::uint16_t* a_out) const {
    const unsigned n = p.n, lrow = p.l_row(), w0 = p.l_vhm();
    std::vector<Sh<D>> col(n);                                  // row sums (+ X^d)
    std::vector<Sh<2>> elt(std::size_t{n} * n_checks());       // elementary-vector checks
    struct XS {
      std::uint16_t top = 0;
      T c[D] = {};
    };
    std::vector<XS> xp(key.h ? n : 0);  // x' = sum_j z[j] x[j] (only when H is nonzero)
    for (unsigned i = 0; i < n; ++i) {
      // EncodeNum / PosToWitness / CompWit (Alg. 3.21-3.26): base-4 digits, one-hot bits.
      const unsigned pos = key.perm[i];
      unsigned digit[4] = {pos & 3u, (pos >> 2) & 3u, (pos >> 4) & 3u, (pos >> 6) & 1u};
      unsigned wbits = 0;
      for (unsigned kk = 0; kk < 3; ++kk) wbits |= ((1u << digit[kk]) & 7u) << (3 * kk);
      if constexpr (D == 4) wbits |= (((1u << digit[3]) & 1u)) << 9;
      unsigned ubits = 0;
      for (unsigned j = 0; j < lrow; ++j) ubits |= vbit(u, w0 + i * lrow + j) << j;
      t[i] = static_cast<std::uint16_t>(wbits ^ ubits);
      // EmbedWitness: beta[kk][j] = w'_(kk,j) X + v, the fourth of each block X + sum of three.
      S1 beta[4][4];
      for (unsigned kk = 0; kk < 3; ++kk) {
        S1 sum;
        sum.b = 1;
        for (unsigned j = 0; j < 3; ++j) {
          beta[kk][j].b = static_cast<std::uint16_t>((wbits >> (3 * kk + j)) & 1u);
          beta[kk][j].c[0] = at(v, w0 + i * lrow + 3 * kk + j);
          add_to(sum, beta[kk][j]);
        }
        beta[kk][3] = sum;
      }
      if constexpr (D == 4) {
        beta[3][0].b = static_cast<std::uint16_t>((wbits >> 9) & 1u);
        beta[3][0].c[0] = at(v, w0 + i * lrow + 9);
        beta[3][1] = beta[3][0];
        beta[3][1].b ^= 1;
      }
      // Check-ElementaryVector: products of pairs within each block (zero for one-hot).
      Sh<2>* ec = elt.data() + std::size_t{i} * n_checks();
      for (unsigned kk = 0; kk < 3; ++kk) {
        ec[2 * kk] = mul1(beta[kk][0], beta[kk][1]);
        ec[2 * kk + 1] = mul1(beta[kk][2], beta[kk][3]);
      }
      if constexpr (D == 4) ec[6] = mul1(beta[3][0], beta[3][1]);
      // TensorProduct: z[d0 + 4 d1 + 16 d2 (+ 64 d3)] = prod beta[k][d_k].
      Sh<2> p01[16];
      for (unsigned a = 0; a < 3; ++a) {
        Sh<2> sum = times_x(beta[1][a]);
        for (unsigned b = 0; b < 3; ++b) {
          p01[4 * a + b] = mul1(beta[1][a], beta[0][b]);
          add_to(sum, p01[4 * a + b]);
        }
        p01[4 * a + 3] = sum;  // beta1[a] (X + sum beta0[b])
      }
      for (unsigned b = 0; b < 4; ++b) {
        Sh<2> sum = times_x(beta[0][b]);
        for (unsigned a = 0; a < 3; ++a) add_to(sum, p01[4 * a + b]);
        p01[12 + b] = sum;  // (X + sum beta1[a]) beta0[b]
      }
      Sh<3> p012[64];
      for (unsigned ab = 0; ab < 16; ++ab) {
        Sh<3> sum = times_x(p01[ab]);
        for (unsigned c = 0; c < 3; ++c) {
          p012[16 * c + ab] = mul1(p01[ab], beta[2][c]);
          add_to(sum, p012[16 * c + ab]);
        }
        p012[48 + ab] = sum;
      }
      Sh<D> rowsum;
      auto take = [&](unsigned j, const Sh<D>& z) {
        add_to(rowsum, z);
        if (!key.h) return;
        XS& x = xp[j];
        const std::uint16_t xi = key.x[i];
        x.top = static_cast<std::uint16_t>(x.top ^ (xi & mask16(z.b)));
        for (unsigned kk = 0; kk < D; ++kk) add_to(x.c[kk], scal(z.c[kk], xi));
      };
      if constexpr (D == 3) {
        for (unsigned j = 0; j < n; ++j) take(j, p012[j]);
      } else {
        for (unsigned j = 0; j < 64 && j < n; ++j) {
          const Sh<4> z0 = mul1(p012[j], beta[3][0]);
          take(j, z0);
          if (j + 64 < n) {
            Sh<4> z1 = times_x(p012[j]);  // beta3[1] = beta3[0] + X
            add_to(z1, z0);
            take(j + 64, z1);
          }
        }
      }
      rowsum.b ^= 1;
      col[i] = rowsum;
      secure_zero(beta, sizeof beta);
      secure_zero(p01, sizeof p01);
      secure_zero(p012, sizeof p012);
      secure_zero(digit, sizeof digit);
    }
    // y = H x'
    std::vector<XS> y(key.h ? p.m : 0);
    for (unsigned r = 0; r < y.size(); ++r)
      for (unsigned j = 0; j < n; ++j) {
        const std::uint16_t hv = key.h[std::size_t{r} * n + j];
        y[r].top ^= gf11_mul(xp[j].top, hv);
        for (unsigned kk = 0; kk < D; ++kk) add_to(y[r].c[kk], scal(xp[j].c[kk], hv));
      }

    make_ch2(t, ch2);
    const std::vector<T> al = alphas(ch2);
    // f = sum alpha col + sum alpha X^(d-2) elt + sum alpha y; top: X^d's coefficient.
    T ftop{}, fc[D] = {};
    for (unsigned i = 0; i < n; ++i) {
      add_to(ftop, masked(al[i], mask16(col[i].b)));
      for (unsigned kk = 0; kk < D; ++kk) add_to(fc[kk], mul(col[i].c[kk], al[i]));
    }
    for (std::size_t i = 0; i < elt.size(); ++i) {
      const T& a = al[n + i];
      add_to(ftop, masked(a, mask16(elt[i].b)));
      add_to(fc[D - 1], mul(elt[i].c[1], a));
      add_to(fc[D - 2], mul(elt[i].c[0], a));
    }
    for (unsigned r = 0; r < y.size(); ++r) {
      const T& a = al[n + std::size_t{n_checks()} * n + r];
      add_to(ftop, scal(a, y[r].top));
      for (unsigned kk = 0; kk < D; ++kk) add_to(fc[kk], mul(y[r].c[kk], a));
    }
    // CheckZero: mask = sum_i (u_i X + v_i) X^i over the d - 1 mask blocks.
    for (unsigned i = 0; i + 1 < D; ++i) {
      const unsigned idx = p.l_prime() + i * p.rho();
      add_to(fc[i], cz_at(v, idx));
      add_to(fc[i + 1], u_at(u, idx));
    }
    std::memcpy(a_out, ftop.data(), sizeof(T));
    for (unsigned kk = 0; kk < D; ++kk) std::memcpy(a_out + E * (kk + 1), fc[kk].data(), sizeof(T));
    secure_zero(col.data(), col.size() * sizeof(Sh<D>));
    secure_zero(elt.data(), elt.size() * sizeof(Sh<2>));
    secure_zero(xp.data(), xp.size() * sizeof(XS));
    secure_zero(y.data(), y.size() * sizeof(XS));
  }

  // ---- verifier ---------------------------------------------------------------------------
  bool verify(const PkpKey& key, const std::uint8_t* const* q, const std::uint16_t* delta_in, const std::uint16_t* t,
              const std::uint16_t* a, const std::uint8_t* ch2) const {
    const unsigned n = p.n, lrow = p.l_row(), w0 = p.l_vhm();
    T delta;
    std::memcpy(delta.data(), delta_in, sizeof(T));
    T dpow[D + 1];  // Delta^0 .. Delta^d
    dpow[0] = T{};
    dpow[0][0] = 1;
    for (unsigned i = 1; i <= D; ++i) dpow[i] = mul(dpow[i - 1], delta);
    const std::vector<T> al = alphas(ch2);
    T qf{};
    std::vector<T> xp(key.h ? n : 0);
    for (unsigned i = 0; i < n; ++i) {
      T qr[10];
      for (unsigned j = 0; j < lrow; ++j) qr[j] = at(q, w0 + i * lrow + j);
      // ExpandWitness / EmbedMaskedWitness: q + t' Delta.
      T qb[4][4];
      for (unsigned kk = 0; kk < 3; ++kk) {
        T sum{};
        unsigned bits = 1;
        for (unsigned j = 0; j < 3; ++j) {
          const unsigned bit = (t[i] >> (3 * kk + j)) & 1u;
          qb[kk][j] = qr[3 * kk + j];
          add_to(qb[kk][j], masked(delta, mask16(bit)));
          add_to(sum, qr[3 * kk + j]);
          bits ^= bit;
        }
        add_to(sum, masked(delta, mask16(bits)));
        qb[kk][3] = sum;
      }
      if constexpr (D == 4) {
        const unsigned bit = (t[i] >> 9) & 1u;
        qb[3][0] = qr[9];
        add_to(qb[3][0], masked(delta, mask16(bit)));
        qb[3][1] = qr[9];
        add_to(qb[3][1], masked(delta, mask16(bit ^ 1u)));
      }
      // Check-ElementaryVector, times Delta^(d-2).
      const T* ai = al.data() + n + std::size_t{i} * n_checks();
      for (unsigned kk = 0; kk < 3; ++kk) {
        add_to(qf, mul(mul(mul(qb[kk][0], qb[kk][1]), dpow[D - 2]), ai[2 * kk]));
        add_to(qf, mul(mul(mul(qb[kk][2], qb[kk][3]), dpow[D - 2]), ai[2 * kk + 1]));
      }
      if constexpr (D == 4) add_to(qf, mul(mul(mul(qb[3][0], qb[3][1]), dpow[2]), ai[6]));
      // TensorProduct
      T q01[16], q012[64];
      for (unsigned a1 = 0; a1 < 4; ++a1)
        for (unsigned b = 0; b < 4; ++b) q01[4 * a1 + b] = mul(qb[1][a1], qb[0][b]);
      for (unsigned c = 0; c < 4; ++c)
        for (unsigned ab = 0; ab < 16; ++ab) q012[16 * c + ab] = mul(q01[ab], qb[2][c]);
      T rowsum = dpow[D];
      auto take = [&](unsigned j, const T& z) {
        add_to(rowsum, z);
        if (key.h) add_to(xp[j], scal(z, key.x[i]));
      };
      if constexpr (D == 3) {
        for (unsigned j = 0; j < n; ++j) take(j, q012[j]);
      } else {
        for (unsigned j = 0; j < n; ++j) take(j, mul(q012[j % 64], qb[3][j / 64]));
      }
      add_to(qf, mul(rowsum, al[i]));
    }
    for (unsigned r = 0; key.h && r < p.m; ++r) {
      T y{};
      for (unsigned j = 0; j < n; ++j) add_to(y, scal(xp[j], key.h[std::size_t{r} * n + j]));
      add_to(qf, mul(y, al[n + std::size_t{n_checks()} * n + r]));
    }
    // CheckZero: q_f + sum_i q_u_i Delta^i == sum_i a_i Delta^i, and a's X^d coefficient zero.
    bool top_zero = true;
    for (unsigned e = 0; e < E; ++e) top_zero = top_zero && a[e] == 0;
    T lhs = qf, rhs{};
    for (unsigned i = 0; i + 1 < D; ++i) add_to(lhs, mul(cz_at(q, p.l_prime() + i * p.rho()), dpow[i]));
    for (unsigned i = 0; i < D; ++i) {
      T ai;
      std::memcpy(ai.data(), a + E * (i + 1), sizeof(T));
      add_to(rhs, mul(ai, dpow[i]));
    }
    return top_zero && lhs == rhs;
  }
};

template <class F>
auto by_level(const ParamSet& p, const Kernels& k, F&& f) {
  if (p.level == 1) return f(Pkp<12, 3>(p, k));
  if (p.level == 3) return f(Pkp<18, 4>(p, k));
  return f(Pkp<24, 4>(p, k));
}

}  // namespace

void prove_pkp(const ParamSet& p, const Kernels& k, const PkpKey& key, const std::uint8_t* u,
               const std::uint8_t* const* v, std::uint16_t* t,
               const std::function<void(const std::uint16_t* t, std::uint8_t* ch2)>& make_ch2, std::uint8_t* ch2,
               std::uint16_t* a) {
  by_level(p, k, [&](const auto& alg) {
    alg.prove(key, u, v, t, make_ch2, ch2, a);
    return 0;
  });
}

bool verify_pkp(const ParamSet& p, const Kernels& k, const PkpKey& key, const std::uint8_t* const* q,
                const std::uint16_t* delta, const std::uint16_t* t, const std::uint16_t* a, const std::uint8_t* ch2) {
  return by_level(p, k, [&](const auto& alg) { return alg.verify(key, q, delta, t, a, ch2); });
}

}  // namespace tempo::perk::detail
