// The 18 PERK v2.1.0 parameter sets and the sizes derived from them, as the package's
// src/config.h and src/parameters.h define them (Reference_Implementation/<sym>/perk-<L>-<mode>).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include <tempo/perk.hpp>
#include <tempo/secure_zero.hpp>

namespace tempo::perk::detail {

inline constexpr unsigned q_bits = 11;       // GF(2^11), x^11 + x^2 + 1
inline constexpr unsigned max_lambda_bytes = 32;

// Domain separators (parameters.h).
inline constexpr std::uint8_t dom_h0_0 = 0x00, dom_h0_1 = 0x10, dom_h0_2 = 0x20, dom_h1 = 0x01, dom_h2_1 = 0x12,
                              dom_h2_2 = 0x22, dom_h2_3 = 0x32, dom_h3 = 0x03, dom_h4 = 0x04, dom_prg1 = 0x05,
                              dom_prg2 = 0x06, dom_com1 = 0x07, dom_com2_0 = 0x08, dom_com2_1 = 0x18;

struct ParamSet {
  Params id;
  const char* name;
  unsigned level;         // 1, 3, 5
  unsigned lambda_bytes;  // 16, 24, 32
  unsigned ext;           // tower degree over GF(2^11): 12, 18, 24
  unsigned n, m;
  unsigned tau1, kappa1, tau2, kappa2, mu1, mu2, tau_prime;
  unsigned d;             // share degree: 3 (level 1) or 4
  unsigned c;             // elementary-vector checks per row: 6 or 7
  unsigned w;             // proof-of-work bits
  unsigned t_open;
  bool aes_prg;           // seed expansion and ConvertToVOLE's PRG with AES (else SHA3/SHAKE)
  bool aes_commit;        // leaf commitments with AES (else SHA3)

  // ---- derived ------------------------------------------------------------------------------
  constexpr unsigned lambda() const { return 8 * lambda_bytes; }
  constexpr unsigned tau() const { return tau1 + tau2; }
  constexpr unsigned l_row() const { return d + 6; }
  constexpr unsigned rho() const { return q_bits * ext; }
  constexpr unsigned l() const { return n * l_row(); }
  constexpr unsigned l_bar() const { return (d - 1) * rho(); }
  constexpr unsigned l_vhm() const { return lambda() + 16; }
  constexpr unsigned l_prime() const { return l() + l_vhm(); }
  constexpr unsigned l_hat() const { return l_bar() + l_prime(); }
  constexpr unsigned vole_bytes() const { return (l_hat() + 7) / 8; }
  constexpr unsigned vole_hash_bytes() const { return lambda_bytes + 2; }
  constexpr unsigned seed_bytes() const { return lambda_bytes; }
  constexpr unsigned salt_bytes() const { return 2 * lambda_bytes; }
  constexpr unsigned hash_bytes() const { return 2 * lambda_bytes; }
  constexpr unsigned ch1_bytes() const { return 5 * lambda_bytes + 8; }
  constexpr unsigned chall_dec_bits() const { return kappa1 * tau1 + kappa2 * tau2; }
  constexpr unsigned ch3_bits() const { return chall_dec_bits() + w; }
  constexpr unsigned ch3_bytes() const { return (ch3_bits() + 7) / 8; }
  constexpr unsigned pk_bytes() const { return lambda_bytes + (q_bits * n + 7) / 8; }
  constexpr unsigned sk_bytes() const { return lambda_bytes + pk_bytes(); }
  constexpr unsigned sig_bits() const {
    return (vole_bytes() * (tau() - 1) + vole_hash_bytes() + lambda_bytes * t_open + hash_bytes() * tau() + 8 +
            salt_bytes()) * 8 +
           (q_bits * ext * d + l_row() * n + chall_dec_bits());
  }
  constexpr unsigned sig_bytes() const { return (sig_bits() + 7) / 8; }
  // The forest: tau subtrees (tau1 of 2^kappa1 leaves, tau2 of 2^kappa2) in one heap-ordered tree.
  constexpr unsigned leaves() const { return (tau1 << kappa1) + (tau2 << kappa2); }
  constexpr unsigned nodes() const { return 2 * leaves() - 1; }
  constexpr unsigned leaf_offset() const { return leaves() - 1; }
  constexpr unsigned k_of(unsigned e) const { return e < tau1 ? kappa1 : kappa2; }
  constexpr unsigned mu_of(unsigned e) const { return e < tau_prime ? mu1 : mu2; }
  // Heap index of leaf `leaf` of subtree `e` (ggm_tree.h ggm_tree_leaf_index).
  constexpr unsigned leaf_index(unsigned e, unsigned leaf) const {
    const unsigned l = leaf < (1u << kappa2) ? leaf * tau() + e
                                             : (1u << kappa2) * tau() + (leaf - (1u << kappa2)) * tau1 + e;
    return l + leaf_offset();
  }
  // The inverse: heap index -> (subtree, leaf).
  constexpr void subtree_and_leaf(unsigned index, unsigned& e, unsigned& leaf) const {
    index -= leaf_offset();
    if (index < (1u << kappa2) * tau()) {
      e = index % tau();
      leaf = index / tau();
    } else {
      index -= (1u << kappa2) * tau();
      e = index % tau1;
      leaf = index / tau1 + (1u << kappa2);
    }
  }
  // AES: the block of the PRG (16 bytes: AES-128; 32: Rijndael-256) and blocks per VOLE row.
  constexpr unsigned aes_block_bytes() const { return level == 1 ? 16 : 32; }
  constexpr unsigned prg2_blocks() const { return (vole_bytes() + lambda_bytes - 1) / lambda_bytes; }
  // Keccak: SHAKE128 / SHAKE256 for the PRGs, SHA3-256/384/512 for the hashes.
  constexpr unsigned shake_rate() const { return level == 1 ? 168 : 136; }
  constexpr unsigned sha3_rate() const { return 200 - 2 * hash_bytes(); }
  // Signature layout (parsing.c).
  constexpr std::size_t off_u_tilde() const { return std::size_t{vole_bytes()} * (tau() - 1); }
  constexpr std::size_t off_pdecom() const { return off_u_tilde() + vole_hash_bytes(); }
  constexpr std::size_t off_com() const { return off_pdecom() + std::size_t{lambda_bytes} * t_open; }
  constexpr std::size_t off_ctr() const { return off_com() + std::size_t{hash_bytes()} * tau(); }
  constexpr std::size_t off_salt() const { return off_ctr() + 8; }
  constexpr std::size_t off_bits() const { return off_salt() + salt_bytes(); }
};

#define TEMPO_PERK_SET(ID, NAME, LVL, LB, EXT, N, M, T1, K1, T2, K2, MU1, MU2, TP, D, C, W, TOPEN, APRG, ACOM) \
  ParamSet { Params::ID, NAME, LVL, LB, EXT, N, M, T1, K1, T2, K2, MU1, MU2, TP, D, C, W, TOPEN, APRG, ACOM }
#define TEMPO_PERK_LEVEL(L, MODE, ...)                                                                   \
  TEMPO_PERK_SET(perk_##L##_##MODE##_aes_aes, "perk-" #L "-" #MODE "-aes_aes", L, __VA_ARGS__, true, true), \
      TEMPO_PERK_SET(perk_##L##_##MODE##_aes_keccak, "perk-" #L "-" #MODE "-aes_keccak", L, __VA_ARGS__, true, false), \
      TEMPO_PERK_SET(perk_##L##_##MODE##_keccak_keccak, "perk-" #L "-" #MODE "-keccak_keccak", L, __VA_ARGS__, false, false)

// lambda_bytes, ext, n, m, tau1, kappa1, tau2, kappa2, mu1, mu2, tau', d, c, w, t_open (config.h).
inline constexpr ParamSet param_sets[18] = {
    TEMPO_PERK_LEVEL(1, fast, 16, 12, 64, 27, 9, 8, 7, 7, 9, 8, 4, 3, 6, 9, 110),
    TEMPO_PERK_LEVEL(1, short, 16, 12, 64, 27, 11, 11, 0, 0, 12, 0, 11, 3, 6, 9, 106),
    TEMPO_PERK_LEVEL(3, fast, 24, 18, 92, 43, 16, 8, 8, 7, 9, 8, 6, 4, 7, 10, 166),
    TEMPO_PERK_LEVEL(3, short, 24, 18, 92, 43, 8, 12, 8, 11, 13, 12, 6, 4, 7, 10, 166),
    TEMPO_PERK_LEVEL(5, fast, 32, 24, 118, 59, 26, 8, 6, 7, 9, 8, 8, 4, 7, 8, 220),
    TEMPO_PERK_LEVEL(5, short, 32, 24, 118, 59, 8, 12, 14, 11, 12, 0, 22, 4, 7, 8, 222),
};
#undef TEMPO_PERK_LEVEL
#undef TEMPO_PERK_SET

consteval bool check_param_sets() {
  const unsigned sig[6] = {4312, 3473, 10423, 8311, 18216, 14830};
  const unsigned pk[3] = {104, 151, 195}, sk[3] = {120, 175, 227};
  for (unsigned i = 0; i < 18; ++i) {
    const ParamSet& p = param_sets[i];
    if (static_cast<unsigned>(p.id) != i) return false;
    if (p.sig_bytes() != sig[i / 3] || p.pk_bytes() != pk[i / 6] || p.sk_bytes() != sk[i / 6]) return false;
    if (p.rho() != p.mu1 * p.tau_prime + p.mu2 * (p.tau() - p.tau_prime)) return false;  // parameters.h
    if (p.leaves() % 4 != 0 || p.kappa1 < p.kappa2 || p.leaves() > 0xFFFF) return false;  // ggm_tree.h
    if (p.ext * q_bits != p.rho() || p.d != (p.level == 1 ? 3u : 4u) || p.n > (p.d == 3 ? 64u : 128u)) return false;
    if (p.n <= 64 && p.d != 3) return false;
  }
  return true;
}
static_assert(check_param_sets());

const ParamSet& param_set(Params p);  // std::invalid_argument for an unknown value

// std::invalid_argument "tempo::perk: <what> must be <want> bytes, got <got>" unless equal.
void check_size(const char* what, std::size_t got, std::size_t want);

// Wipes a buffer when leaving the scope.
struct Wipe {
  void* p;
  std::size_t n;
  ~Wipe() { secure_zero(p, n); }
};

inline std::uint16_t get_le16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | p[1] << 8); }
inline std::uint64_t get_le64(const std::uint8_t* p) {
  std::uint64_t v;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, 8);
  } else {
    v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  }
  return v;
}
inline void put_le16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}
inline void put_le64(std::uint8_t* p, std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, 8);
  } else {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}

// A little-endian bit stream (parsing.h sig_perk_read_n_bits_from_bytearray / store_n_bits).
// nbits <= 32; only the bytes holding the bits are touched.
struct BitReader {
  const std::uint8_t* p;
  std::size_t bit = 0;
  std::uint32_t read(unsigned nbits) {
    const unsigned shift = bit % 8, nbytes = (shift + nbits + 7) / 8;
    std::uint64_t w = 0;
    for (unsigned i = 0; i < nbytes; ++i) w |= std::uint64_t{p[bit / 8 + i]} << (8 * i);
    bit += nbits;
    return static_cast<std::uint32_t>((w >> shift) & ((std::uint64_t{1} << nbits) - 1));
  }
};
struct BitWriter {
  std::uint8_t* p;  // zeroed by the caller
  std::size_t bit = 0;
  void write(std::uint32_t v, unsigned nbits) {
    const unsigned shift = bit % 8, nbytes = (shift + nbits + 7) / 8;
    const std::uint64_t w = (std::uint64_t{v} & ((std::uint64_t{1} << nbits) - 1)) << shift;
    for (unsigned i = 0; i < nbytes; ++i) p[bit / 8 + i] = static_cast<std::uint8_t>(p[bit / 8 + i] | (w >> (8 * i)));
    bit += nbits;
  }
};

}  // namespace tempo::perk::detail
