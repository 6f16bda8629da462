// tempo.faest: FAEST-128f/128s signatures (tempo::faest), one at a time and in batches.
#include <string>

#include <tempo/faest.hpp>

#include "common.hpp"

namespace tempo_py {
namespace {

namespace fa = tempo::faest;
using fa::Params;

// tempo::faest::parse_params's names ("128f", "faest_128f", "FAEST-128f", ...).
Params params_arg(nb::handle h) {
  const std::string name = str_arg(h, "params");
  try {
    return fa::parse_params(name);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error((std::string("params: ") + e.what()).c_str());
  }
}

void check_len(std::span<const std::uint8_t> s, std::size_t want, const std::string& what) {
  if (s.size() != want)
    throw nb::value_error(
        (what + ": " + std::to_string(s.size()) + " bytes, expected " + std::to_string(want)).c_str());
}

// One item per message; every item `len` bytes (0: any length).
void check_rows(const ByteRows& r, std::size_t count, std::size_t len, const char* what) {
  if (r.size() != count)
    throw nb::value_error((std::string(what) + ": " + std::to_string(r.size()) + " items, expected " +
                           std::to_string(count) + " (one per message)").c_str());
  for (std::size_t i = 0; len != 0 && i < count; ++i)
    check_len(r.row(i), len, std::string(what) + "[" + std::to_string(i) + "]");
}

nb::bytes to_bytes(const std::vector<std::uint8_t>& v) { return nb::bytes(v.data(), v.size()); }

nb::tuple keygen(nb::handle params) {
  const Params p = params_arg(params);
  fa::KeyPair kp;
  {
    nb::gil_scoped_release unlocked;
    kp = fa::keygen(p);
  }
  return nb::make_tuple(to_bytes(kp.public_key), to_bytes(kp.secret_key));  // kp wipes its secret key
}

// deterministic: sign_deterministic with rho_h, else sign (rho from the OS).
nb::bytes sign(nb::handle params, nb::handle sk_h, nb::handle msg_h, bool deterministic, nb::handle rho_h) {
  const Params p = params_arg(params);
  ByteView sk(sk_h, "secret_key"), msg(msg_h, "message");
  check_len(sk.span(), fa::secret_key_size(p), "secret_key");
  std::unique_ptr<ByteView> rho;
  if (deterministic) rho = std::make_unique<ByteView>(rho_h, "rho");
  std::vector<std::uint8_t> sig;
  auto pl = pool();
  {
    nb::gil_scoped_release unlocked;
    sig = pl->run([&](tempo::Task& t) {
      return rho ? fa::sign_deterministic(t, p, sk.span(), msg.span(), rho->span())
                 : fa::sign(t, p, sk.span(), msg.span());
    });
  }
  return to_bytes(sig);
}

bool verify(nb::handle params, nb::handle pk_h, nb::handle msg_h, nb::handle sig_h) {
  const Params p = params_arg(params);
  ByteView pk(pk_h, "public_key"), msg(msg_h, "message"), sig(sig_h, "signature");
  check_len(pk.span(), fa::public_key_size(p), "public_key");
  check_len(sig.span(), fa::signature_size(p), "signature");
  auto pl = pool();
  nb::gil_scoped_release unlocked;
  return pl->run([&](tempo::Task& t) { return fa::verify(t, p, pk.span(), msg.span(), sig.span()); });
}

// deterministic: sign_batch_deterministic with rhos_h, else sign_batch (rho from the OS).
Array2<std::uint8_t> sign_batch(nb::handle params, nb::handle sks_h, nb::handle msgs_h, bool deterministic,
                                nb::handle rhos_h, nb::handle backend) {
  const Params p = params_arg(params);
  const tempo::gpu::RunOptions opt = run_options(backend);
  ByteRows msgs(msgs_h, "messages"), sks(sks_h, "secret_keys");
  const std::size_t n = msgs.size();
  check_rows(sks, n, fa::secret_key_size(p), "secret_keys");
  std::unique_ptr<ByteRows> rhos;
  if (deterministic) {
    rhos = std::make_unique<ByteRows>(rhos_h, "rhos");
    check_rows(*rhos, n, 0, "rhos");
  }
  const std::size_t sig_len = fa::signature_size(p);
  const char* call = rhos ? "faest.sign_batch_deterministic" : "faest.sign_batch";
  check_output_size(call, n, sig_len);
  Array2<std::uint8_t> out = new_array<std::uint8_t>(n, sig_len);
  if (n == 0) return out;
  const std::span<std::uint8_t> dst(out.data(), n * sig_len);
  const PackedRows sk_in(sks, /*secret=*/true), msg_in(msgs, false);
  std::unique_ptr<PackedRows> rho_in;
  if (rhos) rho_in = std::make_unique<PackedRows>(*rhos, /*secret=*/true);
  auto pl = pool();
  tempo::gpu::BatchReport report;
  {
    nb::gil_scoped_release unlocked;
    report = pl->run([&](tempo::Task& t) {
      return rho_in ? fa::sign_batch_deterministic(t, p, sk_in.operand(), msg_in.operand(), rho_in->operand(), dst, opt)
                    : fa::sign_batch(t, p, sk_in.operand(), msg_in.operand(), dst, opt);
    });
  }
  record_report(call, std::move(report));
  return out;
}

nb::object verify_batch(nb::handle params, nb::handle pks_h, nb::handle msgs_h, nb::handle sigs_h,
                        nb::handle backend) {
  const Params p = params_arg(params);
  const tempo::gpu::RunOptions opt = run_options(backend);
  ByteRows msgs(msgs_h, "messages"), pks(pks_h, "public_keys"), sigs(sigs_h, "signatures");
  const std::size_t n = msgs.size();
  check_rows(pks, n, fa::public_key_size(p), "public_keys");
  check_rows(sigs, n, fa::signature_size(p), "signatures");
  nb::module_ np = nb::module_::import_("numpy");
  nb::object flags = np.attr("zeros")(n, np.attr("bool_"));  // one byte per verdict, 0 or 1: the C++ layout
  if (n == 0) return flags;
  Py_buffer v;
  if (PyObject_GetBuffer(flags.ptr(), &v, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) throw nb::python_error();
  const std::span<std::uint8_t> ok(static_cast<std::uint8_t*>(v.buf), n);
  const PackedRows pk_in(pks, false), msg_in(msgs, false), sig_in(sigs, false);
  auto pl = pool();
  tempo::gpu::BatchReport report;
  try {
    nb::gil_scoped_release unlocked;
    report = pl->run([&](tempo::Task& t) {
      return fa::verify_batch(t, p, pk_in.operand(), msg_in.operand(), sig_in.operand(), ok, opt);
    });
  } catch (...) {
    PyBuffer_Release(&v);
    throw;
  }
  PyBuffer_Release(&v);
  record_report("faest.verify_batch", std::move(report));
  return flags;
}

}  // namespace

void bind_faest(nb::module_& m) {
  nb::module_ s = m.def_submodule(
      "faest", "FAEST-128f / FAEST-128s signatures (FAEST v2, byte-identical to faest-ref 2.0.5; tempo::faest).");
  const char* params_doc = "params: '128f' or '128s' ('FAEST-128f', 'faest_128s', ... work too).";
  s.def("keygen", &keygen, arg("params"), nb::sig("def keygen(params: str) -> tuple[bytes, bytes]"),
        (std::string("(public_key, secret_key) from OS randomness. ") + params_doc).c_str());
  s.def(
      "sign", [](nb::handle p, nb::handle sk, nb::handle msg) { return sign(p, sk, msg, false, nb::none()); },
      arg("params"), arg("secret_key"), arg("message"),
      nb::sig("def sign(params: str, secret_key: " TEMPO_PY_BYTES ", message: " TEMPO_PY_BYTES ") -> bytes"),
      "A signature of message, with its randomness rho drawn from the OS.");
  s.def(
      "sign_deterministic",
      [](nb::handle p, nb::handle sk, nb::handle msg, nb::handle rho) { return sign(p, sk, msg, true, rho); },
      arg("params"), arg("secret_key"), arg("message"), arg("rho"),
      nb::sig("def sign_deterministic(params: str, secret_key: " TEMPO_PY_BYTES ", message: " TEMPO_PY_BYTES
              ", rho: " TEMPO_PY_BYTES ") -> bytes"),
      "For tests and known answers only: the signature is a function of (secret_key, message,\n"
      "rho), rho of any length. Production code signs with sign().");
  s.def("verify", &verify, arg("params"), arg("public_key"), arg("message"), arg("signature"),
        nb::sig("def verify(params: str, public_key: " TEMPO_PY_BYTES ", message: " TEMPO_PY_BYTES
                ", signature: " TEMPO_PY_BYTES ") -> bool"),
        "False for a well-formed signature that does not verify; ValueError for wrong key or\n"
        "signature lengths.");
  s.def(
      "sign_batch",
      [](nb::handle p, nb::handle sks, nb::handle msgs, nb::handle backend) {
        return sign_batch(p, sks, msgs, false, nb::none(), backend);
      },
      arg("params"), arg("secret_keys"), arg("messages"), arg("backend") = nb::none(),
      nb::sig("def sign_batch(params: str, secret_keys: " TEMPO_PY_BYTE_ROWS ", messages: " TEMPO_PY_BYTE_ROWS
              ", " TEMPO_PY_BACKEND ") -> numpy.typing.NDArray[numpy.uint8]"),
      "One signature per message, each with its own rho from the OS: a (count, signature_size)\n"
      "uint8 array. secret_keys and messages: lists of bytes-like or 2-D uint8 arrays (one item\n"
      "per row), of equal counts. backend: 'auto', 'cpu', 'cuda' (or 'gpu'); None reads\n"
      "TEMPO_BACKEND.");
  s.def(
      "sign_batch_deterministic",
      [](nb::handle p, nb::handle sks, nb::handle msgs, nb::handle rhos, nb::handle backend) {
        return sign_batch(p, sks, msgs, true, rhos, backend);
      },
      arg("params"), arg("secret_keys"), arg("messages"), arg("rhos"), arg("backend") = nb::none(),
      nb::sig("def sign_batch_deterministic(params: str, secret_keys: " TEMPO_PY_BYTE_ROWS
              ", messages: " TEMPO_PY_BYTE_ROWS ", rhos: " TEMPO_PY_BYTE_ROWS ", " TEMPO_PY_BACKEND
              ") -> numpy.typing.NDArray[numpy.uint8]"),
      "sign_batch with the caller's rho per message (tests and known answers only, as\n"
      "sign_deterministic).");
  s.def("verify_batch", &verify_batch, arg("params"), arg("public_keys"), arg("messages"),
        arg("signatures"), arg("backend") = nb::none(),
        nb::sig("def verify_batch(params: str, public_keys: " TEMPO_PY_BYTE_ROWS ", messages: " TEMPO_PY_BYTE_ROWS
                ", signatures: " TEMPO_PY_BYTE_ROWS ", " TEMPO_PY_BACKEND ") -> numpy.typing.NDArray[numpy.bool_]"),
        "One verdict per message: a bool array.");
  s.def(
      "signature_size", [](nb::handle p) { return fa::signature_size(params_arg(p)); }, arg("params"),
      nb::sig("def signature_size(params: str) -> int"));
  s.def(
      "public_key_size", [](nb::handle p) { return fa::public_key_size(params_arg(p)); }, arg("params"),
      nb::sig("def public_key_size(params: str) -> int"));
  s.def(
      "secret_key_size", [](nb::handle p) { return fa::secret_key_size(params_arg(p)); }, arg("params"),
      nb::sig("def secret_key_size(params: str) -> int"));
  s.def(
      "cpu_isa_name", [] { return std::string(fa::cpu_isa_name()); },
      "The instruction set the CPU code runs on: 'vaes+pclmul', 'aesni+pclmul' or 'portable'\n"
      "(TEMPO_FAEST_ISA caps it).");
}

}  // namespace tempo_py
