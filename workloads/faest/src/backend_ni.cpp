// AES-NI + PCLMULQDQ backend: tempo::voleith's AES-NI PRG and PCLMULQDQ field arithmetic.
// This file alone is compiled with -maes -mpclmul; it is used only after a run-time check of
// the CPU (ni_backend() returns nullptr otherwise).
#include "backend_ni_common.hpp"

namespace tempo::faest::detail {
namespace {

struct Ni : NiField, VoleithPrg<voleith::Isa::aesni> {
};

void sign(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key, const std::uint8_t* w,
          const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho, std::size_t rho_len,
          std::uint8_t* sig) {
  sign_core<Ni>(t, p, pk, key, w, msg, msg_len, rho, rho_len, sig);
}
bool verify(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len,
            const std::uint8_t* sig) {
  return verify_core<Ni>(t, p, pk, msg, msg_len, sig);
}

}  // namespace

const BackendOps* ni_backend() {
  static const bool ok = voleith::cpu_has(voleith::Isa::aesni) && __builtin_cpu_supports("pclmul");
  static const BackendOps ops{"aesni+pclmul", &Ni::mul, &Ni::mul64, &Ni::leaf_hash, &Ni::prg, &sign,
                              &verify, &gpu_ops<Ni>(), owf_witness_ni()};
  return ok ? &ops : nullptr;
}

}  // namespace tempo::faest::detail
