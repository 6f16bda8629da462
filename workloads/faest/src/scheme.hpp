// FAEST.Sign and FAEST.Verify (FAEST v2 Section 7; faest-ref faest_impl.c), templated on
// the backend B; instantiated once per instruction set (backend_ni.cpp, backend_portable.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <tempo/voleith/grind.hpp>

#include "common.hpp"
#include "owf.hpp"
#include "shake.hpp"
#include "stages.hpp"
#include "vc.hpp"

namespace tempo::faest::detail {

inline void hash_mu(std::uint8_t mu[32], const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len) {
  RandomOracle h;
  h.absorb(pk, 32);  // owf input || owf output
  h.absorb(msg, msg_len);
  h.final(dom_h2_0);
  h.squeeze(mu, 32);
}

inline void hash_chall1(std::uint8_t chall1[chall1_bytes], const ParamSet& p, const std::uint8_t mu[32],
                        const std::uint8_t hcom[32], const std::uint8_t* c, const std::uint8_t iv[16]) {
  RandomOracle h;
  h.absorb(mu, 32);
  h.absorb(hcom, 32);
  h.absorb(c, std::size_t(p.tau - 1) * ell_hat_bytes);
  h.absorb(iv, 16);
  h.final(dom_h2_1);
  h.squeeze(chall1, chall1_bytes);
}

// chall2 = H2_2(chall1 || u_tilde || V_tilde columns || d); the column hashes run in parallel.
template <class B>
void hash_chall2(tempo::Task* t, std::uint8_t chall2[chall2_bytes], const std::uint8_t* chall1,
                 const std::uint8_t* u_tilde, const std::uint8_t* cols, const std::uint8_t* d,
                 const std::uint8_t* chall3 /* verifier: add u_tilde where delta's bit is set */) {
  std::vector<std::uint8_t> vt(std::size_t(lambda) * utilde_bytes);
  constexpr unsigned ways = 4;
  par_for(t, lambda / 16, [&](std::size_t g) {
    for (std::size_t i0 = 16 * g; i0 < 16 * g + 16; i0 += ways) {
      std::uint8_t* o[ways];
      const std::uint8_t* in[ways];
      for (unsigned k = 0; k < ways; ++k) {
        o[k] = vt.data() + (i0 + k) * utilde_bytes;
        in[k] = cols + (i0 + k) * ell_hat_bytes;
      }
      if constexpr (requires { B::vole_hash4(o, chall1, in); }) {
        if (B::fused()) {  // AVX-512: the four columns in the lanes of one register
          B::vole_hash4(o, chall1, in);
          continue;
        }
      }
      vole_hash_n<B, ways>(o, chall1, in);
    }
    if (chall3)  // public: the verifier's challenge
      for (std::size_t i = 16 * g; i < 16 * g + 16; ++i)
        if (get_bit(chall3, i))
          for (unsigned b = 0; b < utilde_bytes; ++b) vt[i * utilde_bytes + b] ^= u_tilde[b];
  });
  RandomOracle h;
  h.absorb(chall1, chall1_bytes);
  h.absorb(u_tilde, utilde_bytes);
  h.absorb(vt.data(), vt.size());
  h.absorb(d, ell_bytes);
  h.final(dom_h2_2);
  h.squeeze(chall2, chall2_bytes);
}

// QuickSilver prover and verifier (owf.hpp: aes_prove_core, aes_verify_core) with their
// scratch on the heap.
template <class B>
void aes_prove(const std::uint8_t* w, const std::uint8_t* u_star, const std::uint8_t* cols, const std::uint8_t* pk,
               const std::uint8_t* chall2, std::uint8_t a0[16], std::uint8_t a1[16], std::uint8_t a2[16]) {
  SecretBuffer<gf128> scratch(qs_scratch_gf);
  aes_prove_core<B>(w, u_star, cols, pk, chall2, a0, a1, a2, scratch.data());
}
template <class B>
void aes_verify(const std::uint8_t* d, const std::uint8_t* qcols, const std::uint8_t* pk, const std::uint8_t* chall2,
                const std::uint8_t* chall3, const std::uint8_t* a1, const std::uint8_t* a2, std::uint8_t a0[16]) {
  std::vector<gf128> scratch(qs_scratch_gf);
  aes_verify_core<B>(d, qcols, pk, chall2, chall3, a1, a2, a0, scratch.data());
}

inline bool grinding_ok(const ParamSet& p, const std::uint8_t chall3[16]) {
  for (unsigned b = lambda - p.w_grind; b < lambda; ++b)
    if (get_bit(chall3, b)) return false;
  return true;
}

// FAEST.Sign before the VOLE commitment: mu, the GGM root, iv_pre (into the signature), iv.
inline void sign_front(const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key, const std::uint8_t* msg,
                       std::size_t msg_len, const std::uint8_t* rho, std::size_t rho_len, std::uint8_t* sig,
                       std::uint8_t mu[32], std::uint8_t root[16], std::uint8_t iv[16]) {
  hash_mu(mu, pk, msg, msg_len);
  RandomOracle h3;
  h3.absorb(key, 16);
  h3.absorb(mu, 32);
  h3.absorb(rho, rho_len);
  h3.final(dom_h3);
  h3.squeeze(root, 16);
  h3.squeeze(sig + p.off_iv_pre(), 16);
  h3.wipe();
  hash_iv(iv, sig + p.off_iv_pre());
}

// FAEST.Sign after the VOLE commitment: hcom, the u_i of every instance (tau x ell_hat
// bytes) and the 128 columns; open(delta, decom) is BAVC.Open (false: grind on). The CPU
// and GPU paths share it, so their signatures agree by construction.
template <class B, class Open>
void sign_back(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* w,
               const std::uint8_t mu[32], const std::uint8_t iv[16], const std::uint8_t hcom[32],
               const std::uint8_t* us, const std::uint8_t* cols, Open&& open, std::uint8_t* sig) {
  // c_i = u_0 ^ u_i goes into the signature.
  const std::uint8_t* u = us;
  for (unsigned i = 1; i < p.tau; ++i)
    xor_bytes(sig + std::size_t(i - 1) * ell_hat_bytes, u, us + std::size_t(i) * ell_hat_bytes, ell_hat_bytes);

  std::uint8_t chall1[chall1_bytes], chall2[chall2_bytes];
  hash_chall1(chall1, p, mu, hcom, sig, iv);
  vole_hash<B>(sig + p.off_u_tilde(), chall1, u);
  xor_bytes(sig + p.off_d(), w, u, ell_bytes);
  hash_chall2<B>(t, chall2, chall1, sig + p.off_u_tilde(), cols, sig + p.off_d(), nullptr);
  stage_mark(Stage::vole_hash);

  std::uint8_t a0[16];
  aes_prove<B>(w, u + ell_bytes, cols, pk, chall2, a0, sig + p.off_a1(), sig + p.off_a2());
  stage_mark(Stage::quicksilver);

  // Grinding: the first counter whose challenge has w_grind zero top bits and opens in T_open.
  RandomOracle h2;
  h2.absorb(chall2, chall2_bytes);
  h2.absorb(a0, 16);
  h2.absorb(sig + p.off_a1(), 32);
  std::uint8_t* chall3 = sig + p.off_chall3();
  const std::uint64_t ctr = voleith::grind(h2, 4, dom_h2_3, chall3, 16, [&](const std::uint8_t* c) {
    if (!grinding_ok(p, c)) return false;
    std::uint16_t delta[max_tau];
    decode_chall3(p, c, delta);
    return open(static_cast<const std::uint16_t*>(delta), sig + p.off_decom());
  });
  put_le32(sig + p.off_ctr(), std::uint32_t(ctr));
  stage_mark(Stage::grind_open);
}

// The lambda VOLE columns from the scratch: the instances' (sum of their depths, written by
// ConvertToVOLE) and the rest, zero.
inline std::uint8_t* vole_columns(const ParamSet& p, Scratch& scratch, bool secret) {
  std::uint8_t* const cols = scratch.get(slot_cols, std::size_t(lambda) * ell_hat_bytes, secret);
  unsigned used = 0;
  for (unsigned i = 0; i < p.tau; ++i) used += p.depth(i);
  std::memset(cols + std::size_t(used) * ell_hat_bytes, 0, std::size_t(lambda - used) * ell_hat_bytes);
  return cols;
}

// sig: sig_size bytes. pk: owf input || owf output; key: the AES key; w: the witness (160 B).
template <class B>
void sign_core(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key,
               const std::uint8_t* w, const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho,
               std::size_t rho_len, std::uint8_t* sig) {
  const StageScope timing(TimedOp::sign, &p == &params_128f);
  std::uint8_t mu[32], root[16], iv[16];
  sign_front(p, pk, key, msg, msg_len, rho, rho_len, sig, mu, root, iv);
  stage_mark(Stage::front);

  Scratch scratch;
  Bavc vc;
  bavc_commit<B>(t, p, root, iv, vc, scratch);
  secure_zero(root, sizeof root);

  // VOLE: u_i and the columns of every instance.
  // ConvertToVOLE writes us and the instances' columns; the scratch wipes them when it goes.
  std::uint8_t* const us = scratch.get(slot_us, std::size_t(p.tau) * ell_hat_bytes, true);
  std::uint8_t* const cols = vole_columns(p, scratch, true);
  par_for(t, p.tau, [&](std::size_t i) {
    unsigned col = 0;
    for (unsigned q = 0; q < i; ++q) col += p.depth(q);
    convert_to_vole<B>(p, unsigned(i), vc.sd + 16 * std::size_t(first_leaf(p, unsigned(i))), false, iv,
                       us + i * ell_hat_bytes, cols + std::size_t(col) * ell_hat_bytes);
  });
  stage_mark(Stage::vole);
  sign_back<B>(t, p, pk, w, mu, iv, vc.h, us, cols,
               [&](const std::uint16_t* delta, std::uint8_t* decom) { return bavc_open(p, vc, delta, decom); }, sig);
}

// FAEST.Verify before the reconstruction: false when grinding fails; else mu, iv, delta.
inline bool verify_front(const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len,
                         const std::uint8_t* sig, std::uint8_t mu[32], std::uint8_t iv[16], std::uint16_t* delta) {
  const std::uint8_t* chall3 = sig + p.off_chall3();
  if (!grinding_ok(p, chall3)) return false;
  hash_mu(mu, pk, msg, msg_len);
  hash_iv(iv, sig + p.off_iv_pre());
  decode_chall3(p, chall3, delta);
  return true;
}

// FAEST.Verify after the reconstruction: hcom and the columns of v (tau instances,
// uncorrected; corrected here by the c_i of the signature); writes the chall3 that the
// signature's counter gives, which verifies when it equals the signature's. Shared by the CPU
// and GPU paths.
template <class B>
void verify_back_chall3(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t mu[32],
                        const std::uint8_t iv[16], const std::uint16_t* delta, const std::uint8_t* sig,
                        const std::uint8_t hcom[32], std::uint8_t* cols, std::uint8_t chk[16]) {
  const std::uint8_t* chall3 = sig + p.off_chall3();
  for (unsigned i = 1, col = p.depth(0); i < p.tau; col += p.depth(i), ++i) {
    const std::uint8_t* c = sig + (i - 1) * ell_hat_bytes;
    for (unsigned j = 0; j < p.depth(i); ++j)
      if ((delta[i] >> j) & 1) {
        std::uint8_t* q = cols + std::size_t(col + j) * ell_hat_bytes;
        xor_bytes(q, q, c, ell_hat_bytes);
      }
  }
  std::uint8_t chall1[chall1_bytes], chall2[chall2_bytes];
  hash_chall1(chall1, p, mu, hcom, sig, iv);
  hash_chall2<B>(t, chall2, chall1, sig + p.off_u_tilde(), cols, sig + p.off_d(), chall3);
  stage_mark(Stage::vole_hash);

  std::uint8_t a0b[16];
  aes_verify<B>(sig + p.off_d(), cols, pk, chall2, chall3, sig + p.off_a1(), sig + p.off_a2(), a0b);
  stage_mark(Stage::quicksilver);
  RandomOracle h;
  h.absorb(chall2, chall2_bytes);
  h.absorb(a0b, 16);
  h.absorb(sig + p.off_a1(), 32);
  voleith::grind_output(h, get_le32(sig + p.off_ctr()), 4, dom_h2_3, chk, 16);
  stage_mark(Stage::grind_open);
}

template <class B>
bool verify_core(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg,
                 std::size_t msg_len, const std::uint8_t* sig) {
  const StageScope timing(TimedOp::verify, &p == &params_128f);
  std::uint8_t mu[32], iv[16], hcom[32];
  std::uint16_t delta[max_tau];
  if (!verify_front(p, pk, msg, msg_len, sig, mu, iv, delta)) return false;
  stage_mark(Stage::front);
  Scratch scratch;
  const std::uint8_t* seeds = nullptr;
  if (!bavc_reconstruct<B>(t, p, sig + p.off_decom(), delta, iv, hcom, scratch, seeds)) return false;

  std::uint8_t* const cols = vole_columns(p, scratch, false);
  par_for(t, p.tau, [&](std::size_t i) {
    unsigned col = 0;
    for (unsigned q = 0; q < i; ++q) col += p.depth(q);
    reconstruct_vole<B>(p, unsigned(i), seeds, delta, iv, cols + std::size_t(col) * ell_hat_bytes);
  });
  stage_mark(Stage::vole);
  std::uint8_t chk[16];
  verify_back_chall3<B>(t, p, pk, mu, iv, delta, sig, hcom, cols, chk);
  return std::memcmp(chk, sig + p.off_chall3(), 16) == 0;
}

}  // namespace tempo::faest::detail
