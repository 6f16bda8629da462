// Portable constant-time backend: tempo::voleith's bit-plane AES PRG and carry-less
// multiplication by integer multiplies with holes (gf_portable.hpp).
#include "backend.hpp"
#include "gf_portable.hpp"
#include "gpu_halves.hpp"
#include "scheme.hpp"

namespace tempo::faest::detail {
namespace {

struct Portable : VoleithPrg<voleith::Isa::portable> {
  static gf128 mul(gf128 a, gf128 b) { return portable_gf::mul(a, b); }
  static std::uint64_t mul64(std::uint64_t a, std::uint64_t b) { return portable_gf::mul64(a, b); }
  static void leaf_hash(std::uint8_t out[48], const std::uint8_t uhash[48], const std::uint8_t x[64]) {
    portable_gf::leaf_hash(out, uhash, x);
  }
};

void sign(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* key, const std::uint8_t* w,
          const std::uint8_t* msg, std::size_t msg_len, const std::uint8_t* rho, std::size_t rho_len,
          std::uint8_t* sig) {
  sign_core<Portable>(t, p, pk, key, w, msg, msg_len, rho, rho_len, sig);
}
bool verify(tempo::Task* t, const ParamSet& p, const std::uint8_t* pk, const std::uint8_t* msg, std::size_t msg_len,
            const std::uint8_t* sig) {
  return verify_core<Portable>(t, p, pk, msg, msg_len, sig);
}

}  // namespace

const BackendOps& portable_backend() {
  static const BackendOps ops{"portable", &Portable::mul, &Portable::mul64, &Portable::leaf_hash, &Portable::prg,
                              &sign, &verify, &gpu_ops<Portable>(), nullptr};
  return ops;
}

}  // namespace tempo::faest::detail
