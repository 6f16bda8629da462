// The GPU batch path's per-backend part: the op's CPU side (the device stage of one
// signature computed by the CPU code, for the engine's CPU share of a batch). Included by
// each backend's translation unit, which lists gpu_ops<B>() in its BackendOps.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "backend.hpp"
#include "cuda/faest_device.hpp"
#include "scheme.hpp"

namespace tempo::faest::detail {

inline dev::Layout gpu_layout(const ParamSet& p, bool verifier) {
  const dev::Layout lay{dev::Shape{p.tau, p.k, p.tau1, p.L, p.t_open, p.w_grind}, verifier};
  // The device's signature front and the CPU's: one layout (the copies below rely on it).
  if (lay.s.front_bytes() != p.off_decom()) throw std::logic_error("tempo::faest: device front size != off_decom()");
  if (!verifier && lay.out_chall3() != p.off_chall3()) throw std::logic_error("tempo::faest: device opening size != decom_bytes()");
  if (p.k > dev::kMaxDepth) throw std::logic_error("tempo::faest: an instance tree deeper than the device's reduce");
  return lay;
}

// The device stage of one signature on the CPU (same bytes as the kernels), from the CPU
// path's own functions: the VOLE commitment or reconstruction, then sign_back (with the
// opening) or verify_back_chall3.
template <class B>
void gpu_stage_cpu(const ParamSet& p, bool verifier, const std::uint8_t* in, std::uint8_t* out) {
  const dev::Layout lay = gpu_layout(p, verifier);
  const std::uint8_t* iv = in + lay.iv();
  // The VOLE data (the device's scratch): h, the u_i, the columns; the last w_grind
  // columns belong to no instance: zero, as in the CPU path.
  SecretBuffer<std::uint8_t> vole(lay.vole_bytes());
  std::uint8_t* const hcom = vole.data();
  std::uint8_t* const cols = vole.data() + lay.vole_cols();
  Scratch scratch;
  SecretBuffer<std::uint8_t> sig(p.sig_size);
  if (!verifier) {
    Bavc vc;
    bavc_commit<B>(nullptr, p, in, iv, vc, scratch);
    std::memcpy(hcom, vc.h, 32);
    for (unsigned i = 0; i < p.tau; ++i)
      convert_to_vole<B>(p, i, vc.sd + 16 * std::size_t(first_leaf(p, i)), false, iv,
                         vole.data() + lay.vole_u() + std::size_t(i) * ell_hat_bytes,
                         cols + std::size_t(lay.s.first_col(i)) * ell_hat_bytes);
    sign_back<B>(nullptr, p, in + lay.pk(), in + lay.w(), in + lay.mu(), iv, hcom, vole.data() + lay.vole_u(), cols,
                 [&](const std::uint16_t* delta, std::uint8_t* decom) { return bavc_open(p, vc, delta, decom); },
                 sig.data());
    std::memcpy(out, sig.data(), p.off_chall3());  // the front and the opening
    std::memcpy(out + p.off_chall3(), sig.data() + p.off_chall3(), 16);
    std::memcpy(out + p.off_chall3() + 16, sig.data() + p.off_ctr(), 4);
    return;
  }
  std::uint16_t delta[max_tau];
  for (unsigned i = 0; i < p.tau; ++i) delta[i] = std::uint16_t(get_le32(in + lay.delta() + 4 * i) & (p.leaves(i) - 1));
  const std::uint8_t* seeds = nullptr;
  // The host checked the opening before making the item, so this succeeds.
  if (!bavc_reconstruct<B>(nullptr, p, in + lay.hidden_com(), delta, iv, hcom, scratch, seeds)) {
    std::memset(out, 0, lay.out_stride());
    return;
  }
  for (unsigned i = 0; i < p.tau; ++i)
    reconstruct_vole<B>(p, i, seeds, delta, iv, cols + std::size_t(lay.s.first_col(i)) * ell_hat_bytes);
  // verify_back_chall3 reads the signature at its offsets: the front, chall3, the counter.
  std::memcpy(sig.data(), in + lay.sig(), p.off_decom());
  std::memcpy(sig.data() + p.off_chall3(), in + lay.sig_chall3(), 16);
  std::memcpy(sig.data() + p.off_ctr(), in + lay.sig_chall3() + 16, 4);
  verify_back_chall3<B>(nullptr, p, in + lay.pk(), in + lay.mu(), iv, delta, sig.data(), hcom, cols, out);
}

template <class B>
const GpuOps& gpu_ops() {
  static const GpuOps ops{&gpu_stage_cpu<B>};
  return ops;
}

}  // namespace tempo::faest::detail
