// VAES backend: the AES-NI backend's field arithmetic, and tempo::voleith's VAES PRG (two
// AES keys per 256-bit register, twice the blocks per instruction). Compiled with
// -maes -mpclmul; used only after a run-time check of the CPU.
#include "backend_ni_common.hpp"
#include "vaes512.hpp"

namespace tempo::faest::detail {
namespace {

struct Vaes : NiField, VoleithPrg<voleith::Isa::vaes> {
  // Where the CPU has AVX-512 too: the tree's PRG, leaf commitments and ConvertToVOLE with
  // the PRG fused in, VOLEHash and QuickSilver's products four per instruction.
  static bool fused() { return vaes512::available(); }
  static void leaf_commit(const std::uint8_t* const* keys, unsigned n, const std::uint8_t iv[16], std::uint32_t tweak,
                          const std::uint8_t uhash[48], std::uint8_t* const* com, std::uint8_t* sd) {
    vaes512::leaf_commit(keys, n, iv, tweak, uhash, com, sd);
  }
  static void vole(unsigned depth, const std::uint8_t* seeds, const std::uint8_t iv[16], std::uint32_t tweak,
                   std::uint8_t* u, std::uint8_t* v) {
    vaes512::convert_to_vole(depth, seeds, iv, tweak, u, v);
  }
  static void expand_nodes(const std::uint8_t* seeds, std::size_t n, std::uint32_t a0, const std::uint8_t iv[16],
                           std::uint8_t* out) {
    vaes512::expand_nodes(seeds, n, a0, iv, out);
  }
  static gf128 dot8(const gf128* x, const gf128* c) { return vaes512::dot8(x, c); }
  static void dot8x8(const gf128* x, const gf128 (*c)[8], gf128* out) { vaes512::dot8x8(x, c, out); }
  static void norm_conj4(const gf128* x, gf128* out) { vaes512::norm_conj4(x, k_beta_squares, k_beta_cubes, out); }
  static void mix_column(const gf128* a, gf128 v2, gf128 v3, gf128* o) { vaes512::mix_column(a, v2, v3, o); }
  static void zk3_update(gf128* h0s, gf128* h1s, gf128 s, gf128 t, const gf128* v) {
    vaes512::zk3_update(h0s, h1s, s, t, v);
  }
  static void columns_to_rows(const std::uint8_t* cols, gf128* rows) { vaes512::columns_to_rows(cols, rows); }
  static void vole_hash4(std::uint8_t* const out[4], const std::uint8_t* chall1, const std::uint8_t* const x[4]) {
    vaes512::vole_hash4(out, chall1, x);
  }
  static void rot_mul8(const gf128* a, const gf128* b, const gf128* c, const gf128* d, gf128* out) {
    vaes512::rot_mul8(a, b, c, d, out);
  }
};

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
                              &verify, &gpu_ops<Vaes>(), owf_witness_ni()};
  return ok ? &ops : nullptr;
}

}  // namespace tempo::faest::detail
