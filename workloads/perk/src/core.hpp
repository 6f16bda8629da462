// Key generation, signing and verification of one parameter set (keygen.c, signature.c,
// verify.c, sign.c, parsing.c), shared by the public API and the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels.hpp"
#include "params.hpp"
#include "scheme.hpp"

namespace tempo::perk::detail {

// Everything keygen derives from its three seeds.
struct ExpandedKey {
  std::vector<std::uint16_t> h;     // m x n, row-major, [I_m | random] (RREF)
  std::vector<std::uint8_t> perm;   // pi (secret)
  std::vector<std::uint16_t> x;     // public: x[j] = x'[pi[j]], x' in the right kernel of H
  std::vector<std::uint8_t> pk, sk;
  ~ExpandedKey();
};
// seed = H_seed || perm_seed || kernel seed (3 * lambda/8 bytes).
void expand_key(const ParamSet& p, const std::uint8_t* seed, ExpandedKey& out);
// H from H_seed (keygen.c sig_perk_mat_set_random_rref).
std::vector<std::uint16_t> matrix_h(const ParamSet& p, const std::uint8_t* h_seed);

// The PKP inputs of signing and verifying. v2.1.0's sign takes the permutation and H from key
// structures that it never fills (sign.c: sig_perk_private_key_from_bytes copies perm_seed
// only, sig_perk_public_key_from_bytes copies H_seed and x only), so it proves with pi = 0
// and H = 0, and its verify checks with H = 0: what the known answers hold. override_key
// (tests only) proves and checks the real relation instead.
struct SignOptions {
  const PkpKey* override_key = nullptr;
  tempo::Task* task = nullptr;  // not null: the tree levels, subtrees and row hashes fork
};
void sign_core(const ParamSet& p, const Kernels& k, const std::uint8_t* sk, const std::uint8_t* msg, std::size_t msg_len,
               const std::uint8_t* rand, std::size_t rand_len, std::uint8_t* sig, const SignOptions& opt = {});
// Malformed public keys (padding bits) and signatures verify false. task: as SignOptions::task.
bool verify_core(const ParamSet& p, const Kernels& k, const std::uint8_t* pk, const std::uint8_t* msg,
                 std::size_t msg_len, const std::uint8_t* sig, const std::uint16_t* override_h = nullptr,
                 tempo::Task* task = nullptr);

// The public key's padding bits are zero and x unpacks.
bool unpack_pk(const ParamSet& p, const std::uint8_t* pk, std::uint16_t* x);

}  // namespace tempo::perk::detail
