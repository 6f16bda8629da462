// tempo.perk: PERK v2.1.0 signatures, all 18 sets (tempo::perk), one at a time and in batches.
#include <tempo/perk.hpp>

#include "signature.hpp"

namespace tempo_py {
namespace {

namespace pk = tempo::perk;

struct Perk {
  using Params = pk::Params;
  using KeyPair = pk::KeyPair;
  static constexpr const char* family = "perk";
  static constexpr const char* rand_name = "rand";
  static constexpr const char* rands_name = "rands";
  static constexpr const char* params_doc =
      "params: a set's name as all_params()\nlists them ('perk-1-fast-aes_aes', ...; case, '-' and '_' do not "
      "matter, the 'perk-' prefix\nis optional).";
  static std::vector<Params> all_params() { return {pk::all_params().begin(), pk::all_params().end()}; }
  TEMPO_PY_SIGNATURE_CALLS(pk)
};

nb::tuple keygen_deterministic(nb::handle params, nb::handle seed_h) {
  const pk::Params p = signature::params_arg<Perk>(params);
  ByteView seed(seed_h, "seed");
  signature::check_len(seed.span(), pk::keygen_seed_size(p), "seed");
  pk::KeyPair kp;
  {
    nb::gil_scoped_release unlocked;
    kp = pk::keygen_deterministic(p, seed.span());
  }
  return nb::make_tuple(signature::to_bytes(kp.public_key), signature::to_bytes(kp.secret_key));
}

}  // namespace

void bind_perk(nb::module_& m) {
  nb::module_ s = m.def_submodule(
      "perk", "PERK v2.1.0 signatures, all 18 sets (byte-identical to the NIST round-2 package; tempo::perk).");
  signature::bind<Perk>(s,
                        "The code that runs the AES and the carry-less products: 'vaes+pclmul', 'aesni+pclmul'\n"
                        "or 'portable' (TEMPO_PERK_ISA caps it).");
  s.def("keygen_deterministic", &keygen_deterministic, arg("params"), arg("seed"),
        nb::sig("def keygen_deterministic(params: str, seed: " TEMPO_PY_BYTES ") -> tuple[bytes, bytes]"),
        "(public_key, secret_key) from seed = H_seed || perm_seed || kernel seed, keygen_seed_size\n"
        "bytes: the package's three draws at once (tests and known answers).");
  s.def(
      "keygen_seed_size", [](nb::handle p) { return pk::keygen_seed_size(signature::params_arg<Perk>(p)); },
      arg("params"), nb::sig("def keygen_seed_size(params: str) -> int"));
  s.def(
      "sign_randomness_size", [](nb::handle p) { return pk::sign_randomness_size(signature::params_arg<Perk>(p)); },
      arg("params"), nb::sig("def sign_randomness_size(params: str) -> int"),
      "The length of rand that sign draws (the package's and its known answers').");
}

}  // namespace tempo_py
