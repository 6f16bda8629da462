// The bindings every signature family shares (tempo.faest, tempo.perk): one template over a
// family's traits, so that both have the same functions, names, argument checks and errors.
//
// A family's traits F give:
//   using Params; using KeyPair;
//   static constexpr const char* family;       // "perk": the submodule, and calls' names in reports
//   static constexpr const char* rand_name;    // the signing randomness: "rho" (FAEST), "rand" (PERK)
//   static constexpr const char* rands_name;   // its batch argument: "rhos", "rands"
//   static constexpr const char* params_doc;   // how params are spelled
//   Params parse_params(std::string_view); const char* name(Params); std::vector<Params> all_params();
//   sizes: public_key_size, secret_key_size, signature_size; const char* cpu_isa_name();
//   KeyPair keygen(Params);
//   the tempo::<family> calls with a Task: sign, sign_deterministic, verify, and the flat
//   sign_batch, sign_batch_deterministic, verify_batch.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

// Inside a traits struct: F::fn(args...) calls ns::fn(args...), every overload.
#define TEMPO_PY_FORWARD(ns, fn)                 \
  template <class... A>                          \
  static auto fn(A&&... a) {                     \
    return ns::fn(std::forward<A>(a)...);        \
  }
// The calls every family has under the same names.
#define TEMPO_PY_SIGNATURE_CALLS(ns)                                                             \
  TEMPO_PY_FORWARD(ns, parse_params)                                                             \
  TEMPO_PY_FORWARD(ns, name)                                                                     \
  TEMPO_PY_FORWARD(ns, public_key_size)                                                          \
  TEMPO_PY_FORWARD(ns, secret_key_size)                                                          \
  TEMPO_PY_FORWARD(ns, signature_size)                                                           \
  TEMPO_PY_FORWARD(ns, cpu_isa_name)                                                             \
  TEMPO_PY_FORWARD(ns, keygen)                                                                   \
  TEMPO_PY_FORWARD(ns, sign)                                                                     \
  TEMPO_PY_FORWARD(ns, sign_deterministic)                                                       \
  TEMPO_PY_FORWARD(ns, verify)                                                                   \
  TEMPO_PY_FORWARD(ns, sign_batch)                                                               \
  TEMPO_PY_FORWARD(ns, sign_batch_deterministic)                                                 \
  TEMPO_PY_FORWARD(ns, verify_batch)

namespace tempo_py::signature {

// nanobind keeps the pointers of nb::sig and docstrings: the texts made at bind time (once,
// at import) live here.
inline const char* keep(std::string s) {
  static std::deque<std::string> texts;
  return texts.emplace_back(std::move(s)).c_str();
}

template <class F>
typename F::Params params_arg(nb::handle h) {
  const std::string name = str_arg(h, "params");
  try {
    return F::parse_params(name);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error((std::string("params: ") + e.what()).c_str());
  }
}

inline void check_len(std::span<const std::uint8_t> s, std::size_t want, const std::string& what) {
  if (s.size() != want)
    throw nb::value_error((what + ": " + std::to_string(s.size()) + " bytes, expected " + std::to_string(want)).c_str());
}

// One item per message; every item `len` bytes (0: any length).
inline void check_rows(const ByteRows& r, std::size_t count, std::size_t len, const char* what) {
  if (r.size() != count)
    throw nb::value_error((std::string(what) + ": " + std::to_string(r.size()) + " items, expected " +
                           std::to_string(count) + " (one per message)").c_str());
  for (std::size_t i = 0; len != 0 && i < count; ++i)
    check_len(r.row(i), len, std::string(what) + "[" + std::to_string(i) + "]");
}

inline nb::bytes to_bytes(const std::vector<std::uint8_t>& v) { return nb::bytes(v.data(), v.size()); }

template <class F>
nb::tuple keygen(nb::handle params) {
  const auto p = params_arg<F>(params);
  typename F::KeyPair kp;
  {
    nb::gil_scoped_release unlocked;
    kp = F::keygen(p);
  }
  return nb::make_tuple(to_bytes(kp.public_key), to_bytes(kp.secret_key));  // kp wipes its secret key
}

// deterministic: sign_deterministic with rand_h, else sign (the randomness from the OS).
template <class F>
nb::bytes sign(nb::handle params, nb::handle sk_h, nb::handle msg_h, bool deterministic, nb::handle rand_h) {
  const auto p = params_arg<F>(params);
  ByteView sk(sk_h, "secret_key"), msg(msg_h, "message");
  check_len(sk.span(), F::secret_key_size(p), "secret_key");
  std::unique_ptr<ByteView> rand;
  if (deterministic) rand = std::make_unique<ByteView>(rand_h, F::rand_name);
  std::vector<std::uint8_t> sig;
  auto pl = pool();
  {
    nb::gil_scoped_release unlocked;
    sig = pl->run([&](tempo::Task& t) {
      return rand ? F::sign_deterministic(t, p, sk.span(), msg.span(), rand->span()) : F::sign(t, p, sk.span(), msg.span());
    });
  }
  return to_bytes(sig);
}

template <class F>
bool verify(nb::handle params, nb::handle pk_h, nb::handle msg_h, nb::handle sig_h) {
  const auto p = params_arg<F>(params);
  ByteView pk(pk_h, "public_key"), msg(msg_h, "message"), sig(sig_h, "signature");
  check_len(pk.span(), F::public_key_size(p), "public_key");
  check_len(sig.span(), F::signature_size(p), "signature");
  auto pl = pool();
  nb::gil_scoped_release unlocked;
  return pl->run([&](tempo::Task& t) { return F::verify(t, p, pk.span(), msg.span(), sig.span()); });
}

// deterministic: sign_batch_deterministic with rands_h, else sign_batch (randomness from the OS).
template <class F>
Array2<std::uint8_t> sign_batch(nb::handle params, nb::handle sks_h, nb::handle msgs_h, bool deterministic,
                                nb::handle rands_h, nb::handle backend) {
  const auto p = params_arg<F>(params);
  const tempo::gpu::RunOptions opt = run_options(backend);
  ByteRows msgs(msgs_h, "messages"), sks(sks_h, "secret_keys");
  const std::size_t n = msgs.size();
  check_rows(sks, n, F::secret_key_size(p), "secret_keys");
  std::unique_ptr<ByteRows> rands;
  if (deterministic) {
    rands = std::make_unique<ByteRows>(rands_h, F::rands_name);
    check_rows(*rands, n, 0, F::rands_name);
  }
  const std::size_t sig_len = F::signature_size(p);
  static const std::string sign_call = std::string(F::family) + ".sign_batch",
                           deterministic_call = std::string(F::family) + ".sign_batch_deterministic";
  const char* call = rands ? deterministic_call.c_str() : sign_call.c_str();
  check_output_size(call, n, sig_len);
  Array2<std::uint8_t> out = new_array<std::uint8_t>(n, sig_len);
  if (n == 0) return out;
  const std::span<std::uint8_t> dst(out.data(), n * sig_len);
  const PackedRows sk_in(sks, /*secret=*/true), msg_in(msgs, false);
  std::unique_ptr<PackedRows> rand_in;
  if (rands) rand_in = std::make_unique<PackedRows>(*rands, /*secret=*/true);
  auto pl = pool();
  tempo::gpu::BatchReport report;
  {
    nb::gil_scoped_release unlocked;
    report = pl->run([&](tempo::Task& t) {
      return rand_in ? F::sign_batch_deterministic(t, p, sk_in.operand(), msg_in.operand(), rand_in->operand(), dst, opt)
                     : F::sign_batch(t, p, sk_in.operand(), msg_in.operand(), dst, opt);
    });
  }
  record_report(call, std::move(report));
  return out;
}

template <class F>
nb::object verify_batch(nb::handle params, nb::handle pks_h, nb::handle msgs_h, nb::handle sigs_h, nb::handle backend) {
  const auto p = params_arg<F>(params);
  const tempo::gpu::RunOptions opt = run_options(backend);
  ByteRows msgs(msgs_h, "messages"), pks(pks_h, "public_keys"), sigs(sigs_h, "signatures");
  const std::size_t n = msgs.size();
  check_rows(pks, n, F::public_key_size(p), "public_keys");
  check_rows(sigs, n, F::signature_size(p), "signatures");
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
    report = pl->run(
        [&](tempo::Task& t) { return F::verify_batch(t, p, pk_in.operand(), msg_in.operand(), sig_in.operand(), ok, opt); });
  } catch (...) {
    PyBuffer_Release(&v);
    throw;
  }
  PyBuffer_Release(&v);
  static const std::string call = std::string(F::family) + ".verify_batch";
  record_report(call.c_str(), std::move(report));
  return flags;
}

// The submodule's functions; `isa_doc` describes cpu_isa_name's values.
template <class F>
void bind(nb::module_& s, const char* isa_doc) {
  const std::string rand = F::rand_name, rands = F::rands_name;
  s.def("keygen", &keygen<F>, arg("params"), nb::sig("def keygen(params: str) -> tuple[bytes, bytes]"),
        keep(std::string("(public_key, secret_key) from OS randomness. ") + F::params_doc));
  s.def(
      "sign", [](nb::handle p, nb::handle sk, nb::handle msg) { return sign<F>(p, sk, msg, false, nb::none()); },
      arg("params"), arg("secret_key"), arg("message"),
      nb::sig("def sign(params: str, secret_key: " TEMPO_PY_BYTES ", message: " TEMPO_PY_BYTES ") -> bytes"),
      keep("A signature of message, with its randomness " + rand + " drawn from the OS."));
  s.def(
      "sign_deterministic",
      [](nb::handle p, nb::handle sk, nb::handle msg, nb::handle r) { return sign<F>(p, sk, msg, true, r); },
      arg("params"), arg("secret_key"), arg("message"), arg(F::rand_name),
      nb::sig(keep("def sign_deterministic(params: str, secret_key: " TEMPO_PY_BYTES ", message: " TEMPO_PY_BYTES
                   ", " + rand + ": " TEMPO_PY_BYTES ") -> bytes")),
      keep("For tests and known answers only: the signature is a function of (secret_key, message,\n" + rand +
           "), " + rand + " of any length. Production code signs with sign()."));
  s.def("verify", &verify<F>, arg("params"), arg("public_key"), arg("message"), arg("signature"),
        nb::sig("def verify(params: str, public_key: " TEMPO_PY_BYTES ", message: " TEMPO_PY_BYTES
                ", signature: " TEMPO_PY_BYTES ") -> bool"),
        "False for a well-formed signature that does not verify; ValueError for wrong key or\n"
        "signature lengths.");
  s.def(
      "sign_batch",
      [](nb::handle p, nb::handle sks, nb::handle msgs, nb::handle backend) {
        return sign_batch<F>(p, sks, msgs, false, nb::none(), backend);
      },
      arg("params"), arg("secret_keys"), arg("messages"), arg("backend") = nb::none(),
      nb::sig("def sign_batch(params: str, secret_keys: " TEMPO_PY_BYTE_ROWS ", messages: " TEMPO_PY_BYTE_ROWS
              ", " TEMPO_PY_BACKEND ") -> numpy.typing.NDArray[numpy.uint8]"),
      keep("One signature per message, each with its own " + rand +
           " from the OS: a (count, signature_size)\n"
           "uint8 array. secret_keys and messages: lists of bytes-like or 2-D uint8 arrays (one item\n"
           "per row), of equal counts. backend: 'auto', 'cpu', 'cuda' (or 'gpu'); None reads\n"
           "TEMPO_BACKEND."));
  s.def(
      "sign_batch_deterministic",
      [](nb::handle p, nb::handle sks, nb::handle msgs, nb::handle rs, nb::handle backend) {
        return sign_batch<F>(p, sks, msgs, true, rs, backend);
      },
      arg("params"), arg("secret_keys"), arg("messages"), arg(F::rands_name), arg("backend") = nb::none(),
      nb::sig(keep("def sign_batch_deterministic(params: str, secret_keys: " TEMPO_PY_BYTE_ROWS
                   ", messages: " TEMPO_PY_BYTE_ROWS ", " + rands + ": " TEMPO_PY_BYTE_ROWS ", " TEMPO_PY_BACKEND
                   ") -> numpy.typing.NDArray[numpy.uint8]")),
      keep("sign_batch with the caller's " + rand +
           " per message (tests and known answers only, as\nsign_deterministic)."));
  s.def("verify_batch", &verify_batch<F>, arg("params"), arg("public_keys"), arg("messages"), arg("signatures"),
        arg("backend") = nb::none(),
        nb::sig("def verify_batch(params: str, public_keys: " TEMPO_PY_BYTE_ROWS ", messages: " TEMPO_PY_BYTE_ROWS
                ", signatures: " TEMPO_PY_BYTE_ROWS ", " TEMPO_PY_BACKEND ") -> numpy.typing.NDArray[numpy.bool_]"),
        "One verdict per message: a bool array.");
  s.def(
      "signature_size", [](nb::handle p) { return F::signature_size(params_arg<F>(p)); }, arg("params"),
      nb::sig("def signature_size(params: str) -> int"));
  s.def(
      "public_key_size", [](nb::handle p) { return F::public_key_size(params_arg<F>(p)); }, arg("params"),
      nb::sig("def public_key_size(params: str) -> int"));
  s.def(
      "secret_key_size", [](nb::handle p) { return F::secret_key_size(params_arg<F>(p)); }, arg("params"),
      nb::sig("def secret_key_size(params: str) -> int"));
  s.def(
      "name", [](nb::handle p) { return std::string(F::name(params_arg<F>(p))); }, arg("params"),
      nb::sig("def name(params: str) -> str"), "The parameter set's canonical name.");
  s.def(
      "parse_params", [](nb::handle p) { return std::string(F::name(params_arg<F>(p))); }, arg("params"),
      nb::sig("def parse_params(params: str) -> str"),
      keep(std::string("The canonical name of a parameter set's name in any accepted spelling; ValueError\n"
                       "naming the sets otherwise. ") + F::params_doc));
  s.def(
      "all_params",
      [] {
        nb::list names;
        for (const auto p : F::all_params()) names.append(nb::str(F::name(p)));
        return nb::tuple(names);
      },
      nb::sig("def all_params() -> tuple[str, ...]"), "Every parameter set's canonical name.");
  s.def("cpu_isa_name", [] { return std::string(F::cpu_isa_name()); }, isa_doc);
}

}  // namespace tempo_py::signature
