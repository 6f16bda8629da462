// tempo.faest: FAEST-128f/128s signatures (tempo::faest), one at a time and in batches.
#include <cstring>

#include <tempo/faest.hpp>

#include "common.hpp"

namespace tempo_py {
namespace {

using tempo::faest::Params;

// "128f", "faest_128f", "FAEST-128f" (case, '-' and '_' do not matter).
Params params_arg(nb::handle h) {
  const std::string name = str_arg(h, "params");
  std::string key;
  for (char c : name)
    if (c != '-' && c != '_') key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  if (key.rfind("faest", 0) == 0) key.erase(0, 5);
  if (key == "128f") return Params::faest_128f;
  if (key == "128s") return Params::faest_128s;
  throw nb::value_error(("params: unknown parameter set '" + name + "' (expected '128f' or '128s')").c_str());
}

tempo::faest::Backend faest_backend(nb::handle h) {
  switch (backend_arg(h)) {
    case tempo::Backend::cpu: return tempo::faest::Backend::cpu;
    case tempo::Backend::cuda: return tempo::faest::Backend::gpu;
    default: return tempo::faest::Backend::automatic;
  }
}

void check_len(std::span<const std::uint8_t> s, std::size_t want, const std::string& what) {
  if (s.size() != want)
    throw nb::value_error((what + ": " + std::to_string(s.size()) + " bytes, expected " + std::to_string(want)).c_str());
}

nb::bytes to_bytes(const std::vector<std::uint8_t>& v) { return nb::bytes(v.data(), v.size()); }

nb::tuple keygen(nb::handle params) {
  const Params p = params_arg(params);
  tempo::faest::KeyPair kp;
  {
    nb::gil_scoped_release unlocked;
    kp = tempo::faest::keygen(p);
  }
  return nb::make_tuple(to_bytes(kp.public_key), to_bytes(kp.secret_key));  // kp wipes its secret key
}

nb::bytes sign(nb::handle params, nb::handle sk_h, nb::handle msg_h, nb::handle rho_h) {
  const Params p = params_arg(params);
  ByteView sk(sk_h, "secret_key"), msg(msg_h, "message");
  check_len(sk.span(), tempo::faest::secret_key_size(p), "secret_key");
  std::unique_ptr<ByteView> rho;
  if (!rho_h.is_none()) rho = std::make_unique<ByteView>(rho_h, "rho");
  std::vector<std::uint8_t> sig;
  auto pl = pool();
  {
    nb::gil_scoped_release unlocked;
    sig = pl->run([&](tempo::Task& t) {
      if (rho) return tempo::faest::sign(t, p, sk.span(), msg.span(), rho->span());
      std::uint8_t fresh[16];
      tempo::faest::os_random(fresh);
      auto s = tempo::faest::sign(t, p, sk.span(), msg.span(), fresh);
      volatile std::uint8_t* wipe = fresh;  // the signing randomness is secret
      for (std::size_t i = 0; i < sizeof fresh; ++i) wipe[i] = 0;
      return s;
    });
  }
  return to_bytes(sig);
}

bool verify(nb::handle params, nb::handle pk_h, nb::handle msg_h, nb::handle sig_h) {
  const Params p = params_arg(params);
  ByteView pk(pk_h, "public_key"), msg(msg_h, "message"), sig(sig_h, "signature");
  check_len(pk.span(), tempo::faest::public_key_size(p), "public_key");
  check_len(sig.span(), tempo::faest::signature_size(p), "signature");
  auto pl = pool();
  nb::gil_scoped_release unlocked;
  return pl->run([&](tempo::Task& t) { return tempo::faest::verify(t, p, pk.span(), msg.span(), sig.span()); });
}

void check_rows(const ByteRows& r, std::size_t count, std::size_t len, const char* what) {
  if (r.size() != count)
    throw nb::value_error((std::string(what) + ": " + std::to_string(r.size()) + " items, expected " +
                           std::to_string(count) + " (one per message)").c_str());
  for (std::size_t i = 0; len != 0 && i < count; ++i)
    check_len(r.row(i), len, std::string(what) + "[" + std::to_string(i) + "]");
}

U8Array sign_batch(nb::handle params, nb::handle sks_h, nb::handle msgs_h, nb::handle rhos_h, nb::handle backend_h) {
  const Params p = params_arg(params);
  const tempo::faest::Backend backend = faest_backend(backend_h);
  ByteRows msgs(msgs_h, "messages"), sks(sks_h, "secret_keys");
  const std::size_t n = msgs.size();
  check_rows(sks, n, tempo::faest::secret_key_size(p), "secret_keys");
  std::unique_ptr<ByteRows> rhos;
  if (!rhos_h.is_none()) {
    rhos = std::make_unique<ByteRows>(rhos_h, "rhos");
    check_rows(*rhos, n, 0, "rhos");
  }
  const std::size_t sig_len = tempo::faest::signature_size(p);
  U8Array out = new_array<std::uint8_t>(n, sig_len);
  if (n == 0) return out;
  std::vector<std::span<std::uint8_t>> outs;
  for (std::size_t i = 0; i < n; ++i) outs.emplace_back(out.data() + i * sig_len, sig_len);
  const auto sk_spans = sks.spans(), msg_spans = msgs.spans();
  const auto rho_spans = rhos ? rhos->spans() : std::vector<std::span<const std::uint8_t>>{};
  auto pl = pool();
  {
    nb::gil_scoped_release unlocked;
    pl->run([&](tempo::Task& t) {
      tempo::faest::sign_batch_spans(t, p, sk_spans, msg_spans, rho_spans, outs, backend);
    });
  }
  return out;
}

nb::object verify_batch(nb::handle params, nb::handle pks_h, nb::handle msgs_h, nb::handle sigs_h,
                        nb::handle backend_h) {
  const Params p = params_arg(params);
  const tempo::faest::Backend backend = faest_backend(backend_h);
  ByteRows msgs(msgs_h, "messages"), pks(pks_h, "public_keys"), sigs(sigs_h, "signatures");
  const std::size_t n = msgs.size();
  check_rows(pks, n, tempo::faest::public_key_size(p), "public_keys");
  check_rows(sigs, n, tempo::faest::signature_size(p), "signatures");
  std::vector<std::uint8_t> ok(n);
  if (n != 0) {
    const auto pk_spans = pks.spans(), msg_spans = msgs.spans(), sig_spans = sigs.spans();
    auto pl = pool();
    nb::gil_scoped_release unlocked;
    pl->run([&](tempo::Task& t) {
      tempo::faest::verify_batch_spans(t, p, pk_spans, msg_spans, sig_spans, ok, backend);
    });
  }
  nb::module_ np = nb::module_::import_("numpy");
  nb::object flags = np.attr("zeros")(n, np.attr("bool_"));
  Py_buffer v;
  if (PyObject_GetBuffer(flags.ptr(), &v, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) throw nb::python_error();
  for (std::size_t i = 0; i < n; ++i) static_cast<std::uint8_t*>(v.buf)[i] = ok[i] != 0 ? 1 : 0;
  PyBuffer_Release(&v);
  return flags;
}

}  // namespace

void bind_faest(nb::module_& m) {
  nb::module_ s = m.def_submodule(
      "faest", "FAEST-128f / FAEST-128s signatures (FAEST v2, byte-identical to faest-ref 2.0.5; tempo::faest).");
  s.def("keygen", &keygen, nb::arg("params") = "128f",
        "keygen(params='128f') -> (public_key: bytes, secret_key: bytes), from OS randomness.");
  s.def("sign", &sign, nb::arg("params"), nb::arg("secret_key"), nb::arg("message"), nb::arg("rho").none() = nb::none(),
        "sign(params, secret_key, message, rho=None) -> bytes\n\n"
        "rho: the signing randomness (any length; None draws 16 bytes from the OS). Deterministic\n"
        "for a given rho.");
  s.def("verify", &verify, nb::arg("params"), nb::arg("public_key"), nb::arg("message"), nb::arg("signature"),
        "verify(params, public_key, message, signature) -> bool (False for a well-formed signature\n"
        "that does not verify; ValueError for wrong key or signature lengths).");
  s.def("sign_batch", &sign_batch, nb::arg("params"), nb::arg("secret_keys"), nb::arg("messages"),
        nb::arg("rhos").none() = nb::none(), nb::arg("backend") = "auto",
        "sign_batch(params, secret_keys, messages, rhos=None, backend='auto') -> numpy.ndarray\n\n"
        "One signature per message: a (count, signature_size) uint8 array. secret_keys, messages\n"
        "and rhos: lists of bytes-like or 2-D uint8 arrays (one item per row), of equal counts.");
  s.def("verify_batch", &verify_batch, nb::arg("params"), nb::arg("public_keys"), nb::arg("messages"),
        nb::arg("signatures"), nb::arg("backend") = "auto",
        "verify_batch(params, public_keys, messages, signatures, backend='auto') -> numpy bool array");
  s.def("signature_size", [](nb::handle p) { return tempo::faest::signature_size(params_arg(p)); }, nb::arg("params"));
  s.def("public_key_size", [](nb::handle p) { return tempo::faest::public_key_size(params_arg(p)); }, nb::arg("params"));
  s.def("secret_key_size", [](nb::handle p) { return tempo::faest::secret_key_size(params_arg(p)); }, nb::arg("params"));
  s.def("cpu_backend", [] { return std::string(tempo::faest::cpu_backend_name()); },
        "Which CPU implementation runs: 'vaes+pclmul', 'aesni+pclmul' or 'portable'.");
}

}  // namespace tempo_py
