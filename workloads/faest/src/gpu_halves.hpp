// The host halves of the GPU batch path, per backend: what runs after the device's VOLE
// commitment (sign) or reconstruction (verify), and the op's CPU side (the same stage
// computed by the CPU code, for the engine's CPU share of a batch). Included by each
// backend's translation unit, which lists gpu_ops<B>() in its BackendOps.
#pragma once

#include <cstdint>
#include <cstring>

#include "backend.hpp"
#include "cuda/faest_device.hpp"
#include "scheme.hpp"

namespace tempo::faest::detail {

inline dev::Layout gpu_layout(const ParamSet& p, bool verifier) {
  return dev::Layout{dev::Shape{p.tau, p.k, p.tau1, p.L, p.t_open}, verifier};
}

// Sign after the device stage: `out` holds hcom, the u_i and the columns (dev::Layout).
template <class B>
void gpu_sign_back(const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* w, const std::uint8_t* mu,
                   const std::uint8_t* root, const std::uint8_t* in, const std::uint8_t* out, std::uint8_t* sig) {
  const dev::Layout lay = gpu_layout(p, false);
  const std::uint8_t* iv = in + lay.iv();
  const std::uint8_t* uhash = in + lay.uhash();
  Scratch scratch;
  sign_back<B>(nullptr, p, pk, w, mu, iv, out, out + lay.out_u(), out + lay.out_cols(),
               [&](const std::uint16_t* delta, std::uint8_t* decom) {
                 return bavc_open_from_root<B>(p, root, iv, uhash, delta, decom, scratch);
               },
               sig);
}

// Verify after the device stage: `out` holds hcom and the uncorrected columns (modified here).
template <class B>
bool gpu_verify_back(const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* mu, const std::uint8_t* in,
                     const std::uint16_t* delta, const std::uint8_t* sig, std::uint8_t* out) {
  const dev::Layout lay = gpu_layout(p, true);
  return verify_back<B>(nullptr, p, pk, mu, in + lay.iv(), delta, sig, out, out + lay.out_cols());
}

// The device stage of one signature on the CPU (same bytes as the kernels).
template <class B>
void gpu_stage_cpu(const ParamSet& p, bool verifier, const std::uint8_t* in, std::uint8_t* out) {
  const dev::Layout lay = gpu_layout(p, verifier);
  const std::uint8_t* iv = in + lay.iv();
  // The last w_grind columns belong to no instance: zero, as in the CPU path.
  const std::size_t used_cols = lay.s.first_col(p.tau);
  std::memset(out + lay.out_cols() + used_cols * ell_hat_bytes, 0, (lambda - used_cols) * ell_hat_bytes);
  Scratch scratch;
  if (!verifier) {
    Bavc vc;
    bavc_commit<B>(nullptr, p, in, iv, vc, scratch);
    std::memcpy(out, vc.h, 32);
    for (unsigned i = 0; i < p.tau; ++i)
      convert_to_vole<B>(p, i, vc.sd + 16 * std::size_t(first_leaf(p, i)), false, iv,
                         out + lay.out_u() + std::size_t(i) * ell_hat_bytes,
                         out + lay.out_cols() + std::size_t(lay.s.first_col(i)) * ell_hat_bytes);
    return;
  }
  std::uint16_t delta[max_tau];
  for (unsigned i = 0; i < p.tau; ++i) delta[i] = std::uint16_t(get_le32(in + lay.delta() + 4 * i) & (p.leaves(i) - 1));
  const std::uint8_t* seeds = nullptr;
  // The host checked the opening before making the item, so this succeeds.
  if (!bavc_reconstruct<B>(nullptr, p, in + lay.hidden_com(), delta, iv, out, scratch, seeds)) {
    std::memset(out, 0, lay.out_stride());
    return;
  }
  for (unsigned i = 0; i < p.tau; ++i)
    reconstruct_vole<B>(p, i, seeds, delta, iv, out + lay.out_cols() + std::size_t(lay.s.first_col(i)) * ell_hat_bytes);
}

template <class B>
const GpuOps& gpu_ops() {
  static const GpuOps ops{&gpu_sign_back<B>, &gpu_verify_back<B>, &gpu_stage_cpu<B>};
  return ops;
}

}  // namespace tempo::faest::detail
