// tempo.faest: FAEST-128f/128s signatures (tempo::faest), one at a time and in batches.
#include <tempo/faest.hpp>

#include "signature.hpp"

namespace tempo_py {
namespace {

namespace fa = tempo::faest;

struct Faest {
  using Params = fa::Params;
  using KeyPair = fa::KeyPair;
  static constexpr const char* family = "faest";
  static constexpr const char* rand_name = "rho";
  static constexpr const char* rands_name = "rhos";
  static constexpr const char* params_doc = "params: '128f' or '128s' ('FAEST-128f', 'faest_128s', ... work too).";
  static std::vector<Params> all_params() { return {Params::faest_128f, Params::faest_128s}; }
  TEMPO_PY_SIGNATURE_CALLS(fa)
};

}  // namespace

void bind_faest(nb::module_& m) {
  nb::module_ s = m.def_submodule(
      "faest", "FAEST-128f / FAEST-128s signatures (FAEST v2, byte-identical to faest-ref 2.0.5; tempo::faest).");
  signature::bind<Faest>(s,
                         "The instruction set the CPU code runs on: 'vaes+pclmul', 'aesni+pclmul' or 'portable'\n"
                         "(TEMPO_FAEST_ISA caps it).");
}

}  // namespace tempo_py
