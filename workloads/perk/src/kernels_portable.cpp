// The portable constant-time kernels: tempo::voleith's bit-plane AES / Rijndael-256 PRF,
// software carry-less products; the run-time choice among the tables.
#include <tempo/voleith/prg.hpp>

#include "field.hpp"
#include "kernels.hpp"

namespace tempo::perk::detail {
namespace {

void aes_prf_portable(unsigned level, const std::uint8_t* const* seeds, std::size_t n, const PrfStream* streams,
                      unsigned nstreams) {
  aes_prf_on(voleith::Isa::portable, level, seeds, n, streams, nstreams);
}

void tower12(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_portable<12>(o, a, b); }
void tower18(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_portable<18>(o, a, b); }
void tower24(std::uint16_t* o, const std::uint16_t* a, const std::uint16_t* b) { tower_mul_portable<24>(o, a, b); }

}  // namespace

void aes_prf_on(voleith::Isa isa, unsigned level, const std::uint8_t* const* seeds, std::size_t n,
                const PrfStream* streams, unsigned nstreams) {
  const unsigned lb = level == 1 ? 16 : level == 3 ? 24 : 32;
  voleith::PrgStream vs[4];
  for (unsigned s = 0; s < nstreams; ++s)
    vs[s] = voleith::PrgStream{streams[s].base, streams[s].tweaks, 0, std::size_t{streams[s].nblocks} * lb, lb,
                               streams[s].out, streams[s].stride};
  voleith::prg(isa, level == 1 ? voleith::Cipher::aes128 : voleith::Cipher::rijndael256, voleith::Counter::tweak_xor,
               voleith::Keys{seeds, nullptr, 0, lb}, n, vs, nstreams);
}

const Kernels& portable_kernels() {
  static const Kernels k{"portable", &aes_prf_portable, &tower12, &tower18, &tower24, &gf_lambda_mul_portable,
                         &gf64_mul_portable};
  return k;
}

const Kernels& active_kernels() {
  static const Kernels* const ni = ni_kernels();
  static const Kernels* const vaes = vaes_kernels();
  return voleith::choose("TEMPO_PERK_ISA", vaes, ni, portable_kernels());
}

}  // namespace tempo::perk::detail
