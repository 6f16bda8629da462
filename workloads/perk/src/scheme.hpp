// The VOLE-in-the-head machinery of PERK v2.1.0: the GGM forest (one heap-ordered tree of
// all tau subtrees' leaves), leaf commitments, ConvertToVOLE, the opening, VOLEHash
// (ggm_tree.c, voles.c, vole_prg2_*.h, leaf_commit_*.h, expand_seed_*.h of the package), and
// the PKP proof (prove_pkp.c, ev_expand.c, verify_pkp.c, verify_ev_expand.c).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels.hpp"
#include "params.hpp"
#include "sponge.hpp"

namespace tempo {
class Task;  // <tempo/tempo.hpp>
}

namespace tempo::perk::detail {

// ---- the forest -----------------------------------------------------------------------------
// The whole tree from tree[0] (the root seed), level by level (tempo::voleith::expand_tree);
// skip: nodes not to expand (bit per node) or null. t (not null): each level's chunks fork.
void expand_tree(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, std::uint8_t* tree,
                 tempo::Task* t = nullptr, const std::uint8_t* skip = nullptr);
// The nodes whose seeds open every leaf but the hidden ones (ggm_tree.c compute_s_indexes:
// the co-path), ascending; always true (the co-path of distinct leaves never exceeds the
// reference's bound), the caller checks the size against t_open.
bool open_indexes(const ParamSet& p, const std::uint32_t* i_vect, std::vector<std::uint32_t>& s_indexes);
// ch3's first kappa1*tau1 + kappa2*tau2 bits -> the heap indices of the hidden leaves.
void decode_challenge(const ParamSet& p, const std::uint8_t* ch3, std::uint32_t* i_vect);
// The verifier's tree: the opened seeds at s_indexes and everything below them (the rest,
// the hidden leaves among it, zero).
void expand_partial_tree(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, std::uint8_t* tree,
                         const std::vector<std::uint32_t>& s_indexes, const std::uint8_t* pdecom,
                         tempo::Task* t = nullptr);

// ---- VOLEs ----------------------------------------------------------------------------------
// The bytes of one PRG2 row in a scratch buffer (the AES PRG writes whole blocks).
inline std::size_t row_stride(const ParamSet& p) {
  const std::size_t r = std::size_t{p.prg2_blocks()} * p.lambda_bytes;
  return r > p.vole_bytes() ? r : p.vole_bytes();
}
// Subtree e: the leaf commitments (into cmt_array, by heap position) and the VOLE rows of
// ConvertToVOLE with the leaves permuted by delta (0 for the prover): rows k_e rows of
// vole_bytes() to v, and (u != nullptr) the sum of all leaves' PRG outputs to u. scratch:
// subtree_scratch_bytes(p) bytes (O(kappa) rows: the leaves are taken 16 at a time).
void subtree_voles(const ParamSet& p, const Kernels& k, const std::uint8_t* salt, const std::uint8_t* tree, unsigned e,
                   unsigned delta, std::uint8_t* cmt_array, std::uint8_t* v, std::uint8_t* u, std::uint8_t* scratch);
std::size_t subtree_scratch_bytes(const ParamSet& p);
// h_com = Com2_0(salt, Com2_1(salt, quarter_q of cmt_array) for q = 0..3) (voles.c, xkcp4x).
void hash_commitments(const ParamSet& p, const std::uint8_t* salt, const std::uint8_t* cmt_array, std::uint8_t* h_com);
// VOLEHash(ch1, x): vole_hash_bytes() bytes (voles.c sig_perk_vole_hash).
void vole_hash(const ParamSet& p, const Kernels& k, const std::uint8_t* ch1, const std::uint8_t* x, std::uint8_t* out);

// ---- the PKP proof --------------------------------------------------------------------------
// Inputs that v2.1.0's sign and verify take from the key structures. perm: the secret
// permutation (n bytes); h: the m x n matrix, row-major, or nullptr for the zero matrix; x:
// the public vector (n values).
struct PkpKey {
  const std::uint8_t* perm;
  const std::uint16_t* h;
  const std::uint16_t* x;
};
// Prover: t (n values of l_row bits) from u and the rho rows v, then ch2 = make_ch2(t), then
// a ((d + 1) * ext coefficients: X^d's, then X^0 .. X^(d-1)'s).
void prove_pkp(const ParamSet& p, const Kernels& k, const PkpKey& key, const std::uint8_t* u,
               const std::uint8_t* const* v, std::uint16_t* t,
               const std::function<void(const std::uint16_t* t, std::uint8_t* ch2)>& make_ch2, std::uint8_t* ch2,
               std::uint16_t* a);
// Verifier: the rho corrected rows q, delta (the hidden leaves' bits as a tower element), t,
// a (with X^d's coefficients zero), ch2.
bool verify_pkp(const ParamSet& p, const Kernels& k, const PkpKey& key, const std::uint8_t* const* q,
                const std::uint16_t* delta, const std::uint16_t* t, const std::uint16_t* a, const std::uint8_t* ch2);

// ---- the hashes of Sign and Verify (sign.cpp; the GPU path's host halves call them too) ------
// mu = H1(pk || msg)
void message_digest(const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t len,
                    std::uint8_t* mu);
// ch1 = H2_1(salt, mu, h_com, c)
void first_challenge(const ParamSet& p, const std::uint8_t* salt, const std::uint8_t* mu, const std::uint8_t* h_com,
                     const std::uint8_t* c, std::uint8_t* ch1);
// ch2 = H2_2(ch1, u_tilde, h_V, t), t as 16-bit little-endian values.
void second_challenge(const ParamSet& p, const std::uint8_t* ch1, const std::uint8_t* u_tilde, const std::uint8_t* h_v,
                      const std::uint16_t* t, std::uint8_t* ch2);
// The third challenge's sponge after ch2 and a; ch3 = H2_3(ch2, a, ctr) from it, the unused
// bits of its last byte cleared.
Sponge third_prefix(const ParamSet& p, const std::uint8_t* ch2, const std::uint16_t* a);
void clear_ch3_padding(const ParamSet& p, std::uint8_t* ch3);
void third_challenge(const ParamSet& p, const Sponge& prefix, std::uint64_t ctr, std::uint8_t* ch3);

}  // namespace tempo::perk::detail
