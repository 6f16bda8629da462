// tempo.tfhe: TFHE/FHEW gate bootstrapping (tempo::tfhe) in batches. A batch of LWE
// ciphertexts is a (count, n + 1) uint32 array: row i is a_0 .. a_{n-1}, b of ciphertext i,
// under the parameter set of the keys it is used with; one ciphertext is an (n + 1,) array.
#include <cstring>
#include <string>

#include <tempo/tfhe.hpp>

#include "common.hpp"

// A batch of ciphertexts (count, n + 1), or one (n + 1,), in the signatures.
#define TEMPO_PY_CTS "numpy.typing.NDArray[numpy.uint32]"

namespace tempo_py {
namespace {

namespace tf = tempo::tfhe;

// tempo::tfhe::parse_gate's names ("and", "AND", "and_", ...).
tf::Gate gate_arg(nb::handle h) {
  const std::string name = str_arg(h, "gate");
  try {
    return tf::parse_gate(name);
  } catch (const std::invalid_argument& e) {
    throw nb::value_error((std::string("gate: ") + e.what()).c_str());
  }
}

const tf::Keys& keys_arg(nb::handle h) {
  if (!nb::isinstance<tf::Keys>(h))
    throw nb::type_error(("keys must be a tempo.tfhe.Keys (from keygen()), not " + py_type_name(h)).c_str());
  return nb::cast<const tf::Keys&>(h);
}

tf::Params params_arg(nb::handle h) { return tf::Params::preset(str_arg(h, "preset")); }  // ValueError names a bad one

std::size_t lwe_n(const tf::Keys& k) { return k.secret.params().n; }

// A uint32 array of `ndim` dimensions whose last is n + 1, as ciphertexts (values are
// checked by tempo::tfhe).
std::vector<tf::Ciphertext> cts_arg(const tf::Keys& k, nb::handle obj, const char* what, std::size_t ndim) {
  const std::size_t n = lwe_n(k);
  const char* form = ndim == 2 ? "a 2-D numpy.uint32 array (one ciphertext per row)" : "a 1-D numpy.uint32 array";
  if (!is_ndarray(obj))
    throw nb::type_error((std::string(what) + ": expected " + form + ", not " + py_type_name(obj)).c_str());
  if (py_str(obj.attr("dtype")) != "uint32")
    throw nb::type_error((std::string(what) + ": numpy array of dtype " + py_str(obj.attr("dtype")) +
                          ", expected uint32").c_str());
  nb::tuple shape = nb::cast<nb::tuple>(obj.attr("shape"));
  if (shape.size() != ndim || nb::cast<std::size_t>(shape[ndim - 1]) != n + 1)
    throw nb::value_error((std::string(what) + ": expected shape " + (ndim == 2 ? "(count, " : "(") +
                           std::to_string(n + 1) + (ndim == 2 ? ")" : ",)") + " for " +
                           std::string(k.secret.params().name) + ", got " + py_str(obj.attr("shape"))).c_str());
  nb::object arr = nb::module_::import_("numpy").attr("ascontiguousarray")(obj);
  Py_buffer v;
  if (PyObject_GetBuffer(arr.ptr(), &v, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  const auto* p = static_cast<const std::uint32_t*>(v.buf);
  const std::size_t count = ndim == 2 ? nb::cast<std::size_t>(shape[0]) : 1;
  std::vector<tf::Ciphertext> cts(count);
  for (std::size_t i = 0; i < count; ++i) {
    cts[i].params_id = k.secret.params().id;
    cts[i].a.assign(p + i * (n + 1), p + i * (n + 1) + n);
    cts[i].b = p[i * (n + 1) + n];
  }
  PyBuffer_Release(&v);
  return cts;
}

Array2<std::uint32_t> cts_out(const std::vector<tf::Ciphertext>& cts, std::size_t n) {
  Array2<std::uint32_t> arr = new_array<std::uint32_t>(cts.size(), n + 1);
  std::uint32_t* p = arr.data();
  for (std::size_t i = 0; i < cts.size(); ++i) {
    std::memcpy(p + i * (n + 1), cts[i].a.data(), n * sizeof(std::uint32_t));
    p[i * (n + 1) + n] = cts[i].b;
  }
  return arr;
}

nb::object one_ct_out(const tf::Ciphertext& c, std::size_t n) {
  return nb::cast(cts_out({c}, n)).attr("reshape")(n + 1);
}

// Truth values as one byte each (numpy's bool_ is not a Python bool): a 1-D array-like.
std::vector<std::uint8_t> bits_arg(nb::handle h) {
  if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr()))
    throw nb::type_error(("bits: expected a sequence or 1-D array of truth values, not " + py_type_name(h)).c_str());
  nb::module_ np = nb::module_::import_("numpy");
  nb::object arr = np.attr("asarray")(h);
  const auto ndim = nb::cast<std::size_t>(arr.attr("ndim"));
  if (ndim != 1)
    throw nb::value_error(("bits: expected a 1-D sequence of truth values, got " + std::to_string(ndim) +
                           " dimension(s)").c_str());
  nb::object packed = arr.attr("astype")(np.attr("bool_")).attr("tobytes")();
  const auto* b = reinterpret_cast<const std::uint8_t*>(PyBytes_AsString(packed.ptr()));
  if (b == nullptr) throw nb::python_error();
  return {b, b + PyBytes_GET_SIZE(packed.ptr())};
}

tf::Keys keygen(nb::handle preset) {
  const tf::Params params = params_arg(preset);
  auto p = pool();
  nb::gil_scoped_release unlocked;
  return p->run([&](tempo::Task& t) { return tf::keygen(t, params); });
}

tf::Keys keygen_deterministic(nb::handle preset, nb::handle seed_h) {
  const tf::Params params = params_arg(preset);
  ByteView seed(seed_h, "seed");
  auto p = pool();
  nb::gil_scoped_release unlocked;
  return p->run([&](tempo::Task& t) { return tf::keygen_deterministic(t, params, seed.span()); });
}

nb::object encrypt_bit(nb::handle keys, nb::handle bit) {
  const tf::Keys& k = keys_arg(keys);
  return one_ct_out(tf::encrypt_bit(k.secret, bool_arg(bit, "bit")), lwe_n(k));
}

nb::object encrypt_bit_deterministic(nb::handle keys, nb::handle bit, nb::handle seed_h) {
  const tf::Keys& k = keys_arg(keys);
  const bool b = bool_arg(bit, "bit");
  ByteView seed(seed_h, "seed");
  return one_ct_out(tf::encrypt_bit_deterministic(k.secret, b, seed.span()), lwe_n(k));
}

Array2<std::uint32_t> encrypt_bits(nb::handle keys, nb::handle bits_h) {
  const tf::Keys& k = keys_arg(keys);
  const auto bits = bits_arg(bits_h);
  check_output_size("tfhe.encrypt_bits", bits.size(), (lwe_n(k) + 1) * sizeof(std::uint32_t));
  std::vector<tf::Ciphertext> cts(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) cts[i] = tf::encrypt_bit(k.secret, bits[i] != 0);
  return cts_out(cts, lwe_n(k));
}

Array2<std::uint32_t> encrypt_bits_deterministic(nb::handle keys, nb::handle bits_h, nb::handle seeds_h) {
  const tf::Keys& k = keys_arg(keys);
  const auto bits = bits_arg(bits_h);
  ByteRows seeds(seeds_h, "seeds");
  if (seeds.size() != bits.size())
    throw nb::value_error(("seeds: " + std::to_string(seeds.size()) + " items, expected " +
                           std::to_string(bits.size()) + " (one per bit)").c_str());
  check_output_size("tfhe.encrypt_bits_deterministic", bits.size(), (lwe_n(k) + 1) * sizeof(std::uint32_t));
  std::vector<tf::Ciphertext> cts(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i)
    cts[i] = tf::encrypt_bit_deterministic(k.secret, bits[i] != 0, seeds.row(i));
  return cts_out(cts, lwe_n(k));
}

bool decrypt_bit(nb::handle keys, nb::handle ct) {
  const tf::Keys& k = keys_arg(keys);
  return tf::decrypt_bit(k.secret, cts_arg(k, ct, "ciphertext", 1)[0]);
}

nb::object decrypt_bits(nb::handle keys, nb::handle cts_h) {
  const tf::Keys& k = keys_arg(keys);
  const auto cts = cts_arg(k, cts_h, "ciphertexts", 2);
  nb::module_ np = nb::module_::import_("numpy");
  std::string bits(cts.size(), '\0');
  for (std::size_t i = 0; i < cts.size(); ++i) bits[i] = tf::decrypt_bit(k.secret, cts[i]) ? 1 : 0;
  return np.attr("frombuffer")(nb::bytes(bits.data(), bits.size()), np.attr("bool_")).attr("copy")();
}

Array2<std::uint32_t> eval_gates(nb::handle keys, nb::handle gate_h, nb::handle xs_h, nb::handle ys_h,
                                 nb::handle backend) {
  const tf::Keys& k = keys_arg(keys);
  const tf::Gate g = gate_arg(gate_h);
  const tempo::gpu::RunOptions opt = run_options(backend);
  const auto xs = cts_arg(k, xs_h, "xs", 2);
  const auto ys = cts_arg(k, ys_h, "ys", 2);
  if (xs.size() != ys.size())
    throw nb::value_error(("xs and ys: different counts (" + std::to_string(xs.size()) + " and " +
                           std::to_string(ys.size()) + ")").c_str());
  check_output_size("tfhe.eval_gates", xs.size(), (lwe_n(k) + 1) * sizeof(std::uint32_t));
  std::vector<tf::Ciphertext> out(xs.size());
  if (!xs.empty()) {
    auto p = pool();
    tempo::gpu::BatchReport report;
    {
      nb::gil_scoped_release unlocked;
      report = p->run([&](tempo::Task& t) { return tf::eval_gates(t, k.evaluation, g, xs, ys, out, opt); });
    }
    record_report("tfhe.eval_gates", std::move(report));
  }
  return cts_out(out, lwe_n(k));
}

Array2<std::uint32_t> eval_bootstraps(nb::handle keys, nb::handle cts_h, nb::handle backend) {
  const tf::Keys& k = keys_arg(keys);
  const tempo::gpu::RunOptions opt = run_options(backend);
  const auto cts = cts_arg(k, cts_h, "ciphertexts", 2);
  check_output_size("tfhe.eval_bootstraps", cts.size(), (lwe_n(k) + 1) * sizeof(std::uint32_t));
  std::vector<tf::Ciphertext> out(cts.size());
  if (!cts.empty()) {
    auto p = pool();
    tempo::gpu::BatchReport report;
    {
      nb::gil_scoped_release unlocked;
      report = p->run([&](tempo::Task& t) { return tf::eval_bootstraps(t, k.evaluation, cts, out, opt); });
    }
    record_report("tfhe.eval_bootstraps", std::move(report));
  }
  return cts_out(out, lwe_n(k));
}

Array2<std::uint32_t> eval_nots(nb::handle keys, nb::handle xs_h) {
  const tf::Keys& k = keys_arg(keys);
  auto xs = cts_arg(k, xs_h, "xs", 2);
  for (auto& c : xs) c = tf::eval_not(c);
  return cts_out(xs, lwe_n(k));
}

}  // namespace

void bind_tfhe(nb::module_& m) {
  nb::module_ s = m.def_submodule("tfhe", "Binary TFHE/FHEW gates with bootstrapping, in batches (tempo::tfhe).");
  nb::class_<tf::Keys>(s, "Keys", "Secret and evaluation keys of one parameter set (from keygen()).")
      .def_prop_ro("preset", [](const tf::Keys& k) { return std::string(k.secret.params().name); })
      .def_prop_ro("n", [](const tf::Keys& k) { return k.secret.params().n; }, "LWE dimension (rows have n + 1 words)")
      .def_prop_ro("N", [](const tf::Keys& k) { return k.secret.params().N; }, "ring dimension")
      .def_prop_ro("secure", [](const tf::Keys& k) { return k.secret.params().secure; })
      .def(
          "evaluation_key_digest",
          [](const tf::Keys& k) {
            const auto d = tf::digest(k.evaluation);
            return nb::bytes(d.data(), d.size());
          },
          "SHA3-256 of the serialized evaluation key");
  const char* presets =
      "preset: 'PN10QP27', 'PN10QP27L3', 'PN10QP27L3G2' (multi-bit blind rotation), 'PN11QP54', or 'TOY256' and "
      "'TOY256G2' (insecure, for tests).";
  s.def("keygen", &keygen, arg("preset"), nb::sig("def keygen(preset: str) -> Keys"),
        (std::string("Fresh keys from a seed drawn from the OS. ") + presets).c_str());
  s.def("keygen_deterministic", &keygen_deterministic, arg("preset"), arg("seed"),
        nb::sig("def keygen_deterministic(preset: str, seed: " TEMPO_PY_BYTES ") -> Keys"),
        "For tests and known answers only: the keys are a function of the 32-byte seed, so\n"
        "whoever knows it holds the secret key.");
  s.def("encrypt_bit", &encrypt_bit, arg("keys"), arg("bit"),
        nb::sig("def encrypt_bit(keys: Keys, bit: bool) -> " TEMPO_PY_CTS),
        "An encryption of bit with fresh OS randomness: an (n + 1,) uint32 array.");
  s.def("encrypt_bit_deterministic", &encrypt_bit_deterministic, arg("keys"), arg("bit"), arg("seed"),
        nb::sig("def encrypt_bit_deterministic(keys: Keys, bit: bool, seed: " TEMPO_PY_BYTES ") -> " TEMPO_PY_CTS),
        "For tests and known answers only: a function of (keys, bit, seed). Never use a seed\n"
        "twice: two ciphertexts from one seed leak the difference of their bits.");
  s.def("encrypt_bits", &encrypt_bits, arg("keys"), arg("bits"),
        nb::sig("def encrypt_bits(keys: Keys, bits: numpy.typing.ArrayLike) -> " TEMPO_PY_CTS),
        "encrypt_bit of every truth value of a 1-D array-like: a (count, n + 1) uint32 array.");
  s.def("encrypt_bits_deterministic", &encrypt_bits_deterministic, arg("keys"), arg("bits"),
        arg("seeds"),
        nb::sig("def encrypt_bits_deterministic(keys: Keys, bits: numpy.typing.ArrayLike, seeds: " TEMPO_PY_BYTE_ROWS
                ") -> " TEMPO_PY_CTS),
        "encrypt_bit_deterministic of every bit with its own seed (a list, or a 2-D uint8 array).");
  s.def("decrypt_bit", &decrypt_bit, arg("keys"), arg("ciphertext"),
        nb::sig("def decrypt_bit(keys: Keys, ciphertext: " TEMPO_PY_CTS ") -> bool"),
        "The bit of one (n + 1,) ciphertext.");
  s.def("decrypt_bits", &decrypt_bits, arg("keys"), arg("ciphertexts"),
        nb::sig("def decrypt_bits(keys: Keys, ciphertexts: " TEMPO_PY_CTS ") -> numpy.typing.NDArray[numpy.bool_]"),
        "The bits of a (count, n + 1) batch, as a bool array.");
  s.def("eval_gates", &eval_gates, arg("keys"), arg("gate"), arg("xs"), arg("ys"),
        arg("backend") = nb::none(),
        nb::sig("def eval_gates(keys: Keys, gate: str, xs: " TEMPO_PY_CTS ", ys: " TEMPO_PY_CTS ", " TEMPO_PY_BACKEND
                ") -> " TEMPO_PY_CTS),
        "Row i of the result encrypts gate(xs[i], ys[i]), bootstrapped (fresh noise).\n"
        "gate: 'and', 'or', 'xor', 'nand', 'nor' or 'xnor'. backend: 'auto', 'cpu', 'cuda' (or\n"
        "'gpu'); None reads TEMPO_BACKEND.");
  s.def("eval_bootstraps", &eval_bootstraps, arg("keys"), arg("ciphertexts"),
        arg("backend") = nb::none(),
        nb::sig("def eval_bootstraps(keys: Keys, ciphertexts: " TEMPO_PY_CTS ", " TEMPO_PY_BACKEND
                ") -> " TEMPO_PY_CTS),
        "Row i of the result encrypts the bit of ciphertexts[i] with fresh noise.");
  s.def("eval_nots", &eval_nots, arg("keys"), arg("xs"),
        nb::sig("def eval_nots(keys: Keys, xs: " TEMPO_PY_CTS ") -> " TEMPO_PY_CTS),
        "NOT of every ciphertext of a batch (tempo::tfhe::eval_not: no bootstrap).");
}

}  // namespace tempo_py
