// VAES backend: the AES-NI backend's field arithmetic, and tempo::voleith's VAES PRG (two
// AES keys per 256-bit register, twice the blocks per instruction). Compiled with
// -maes -mpclmul; used only after a run-time check of the CPU.
#include "backend_ni_common.hpp"

namespace tempo::faest::detail {
namespace {

struct Vaes : NiField, VoleithPrg<voleith::Isa::vaes> {};

void sign(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key, const std::uint8_t* w,
          const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho, std::size_t rho_len,
          std::uint8_t* sig) {
  sign_core<Vaes>(t, p, pk, key, w, msg, msg_len, rho, rho_len, sig);
}
bool verify(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len,
            const std::uint8_t* sig) {
  return verify_core<Vaes>(t, p, pk, msg, msg_len, sig);
}

}  // namespace

const BackendOps* vaes_backend() {
  static const bool ok = voleith::cpu_has(voleith::Isa::vaes) && __builtin_cpu_supports("pclmul");
  static const BackendOps ops{"vaes+pclmul", &Vaes::mul, &Vaes::mul64, &Vaes::leaf_hash, &Vaes::prg, &sign,
                              &verify, &gpu_ops<Vaes>()};
  return ok ? &ops : nullptr;
}

}  // namespace tempo::faest::detail
