// tempo.tfhe: TFHE/FHEW gate bootstrapping (tempo::tfhe) in batches. A batch of LWE
// ciphertexts is a (count, n + 1) uint32 array: row i is a_0 .. a_{n-1}, b of ciphertext i,
// under the parameter set of the keys it is used with.
#include <cstring>

#include <tempo/tfhe.hpp>

#include "common.hpp"

namespace tempo_py {
namespace {

namespace tf = tempo::tfhe;

tf::Gate gate_arg(nb::handle h) {
  const std::string name = str_arg(h, "gate");
  std::string key;
  for (char c : name)
    if (c != '_') key += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  for (tf::Gate g : {tf::Gate::and_, tf::Gate::or_, tf::Gate::xor_, tf::Gate::nand, tf::Gate::nor, tf::Gate::xnor}) {
    std::string gn(tf::gate_name(g));
    std::erase(gn, '_');
    for (char& c : gn) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (gn == key) return g;
  }
  throw nb::value_error(("gate: unknown gate '" + name + "' (expected and, or, xor, nand, nor or xnor)").c_str());
}

tf::Backend tfhe_backend(nb::handle h) {
  switch (backend_arg(h)) {
    case tempo::Backend::cpu: return tf::Backend::cpu;
    case tempo::Backend::cuda: return tf::Backend::cuda;
    default: return tf::Backend::auto_;
  }
}

std::size_t lwe_n(const tf::Keys& k) { return k.secret.params().n; }

// Rows of a (count, n + 1) uint32 array -> ciphertexts (values are checked by tempo::tfhe).
std::vector<tf::Ciphertext> cts_arg(const tf::Keys& k, nb::handle obj, const char* what) {
  nb::module_ np = nb::module_::import_("numpy");
  const std::size_t n = lwe_n(k);
  if (PyObject_IsInstance(obj.ptr(), np.attr("ndarray").ptr()) != 1)
    throw nb::type_error((std::string(what) + ": expected a 2-D numpy.uint32 array, not " +
                          std::string(nb::type_name(obj.type()).c_str())).c_str());
  if (py_str(obj.attr("dtype")) != "uint32")
    throw nb::type_error((std::string(what) + ": numpy array of dtype " + py_str(obj.attr("dtype")) +
                          ", expected uint32").c_str());
  nb::tuple shape = nb::cast<nb::tuple>(obj.attr("shape"));
  if (shape.size() != 2 || nb::cast<std::size_t>(shape[1]) != n + 1)
    throw nb::value_error((std::string(what) + ": expected shape (count, " + std::to_string(n + 1) + ") for " +
                           std::string(k.secret.params().name) + ", got " + py_str(obj.attr("shape"))).c_str());
  nb::object arr = np.attr("ascontiguousarray")(obj);
  Py_buffer v;
  if (PyObject_GetBuffer(arr.ptr(), &v, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  const auto* p = static_cast<const std::uint32_t*>(v.buf);
  const std::size_t count = nb::cast<std::size_t>(shape[0]);
  std::vector<tf::Ciphertext> cts(count);
  for (std::size_t i = 0; i < count; ++i) {
    cts[i].params_id = k.secret.params().id;
    cts[i].a.assign(p + i * (n + 1), p + i * (n + 1) + n);
    cts[i].b = p[i * (n + 1) + n];
  }
  PyBuffer_Release(&v);
  return cts;
}

nb::object cts_out(const std::vector<tf::Ciphertext>& cts, std::size_t n) {
  nb::module_ np = nb::module_::import_("numpy");
  nb::object arr = np.attr("zeros")(nb::make_tuple(cts.size(), n + 1), np.attr("uint32"));
  Py_buffer v;
  if (PyObject_GetBuffer(arr.ptr(), &v, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) != 0) throw nb::python_error();
  auto* p = static_cast<std::uint32_t*>(v.buf);
  for (std::size_t i = 0; i < cts.size(); ++i) {
    std::memcpy(p + i * (n + 1), cts[i].a.data(), n * sizeof(std::uint32_t));
    p[i * (n + 1) + n] = cts[i].b;
  }
  PyBuffer_Release(&v);
  return arr;
}

tf::Keys keygen(nb::handle preset, nb::handle seed_h) {
  const tf::Params params = tf::Params::preset(str_arg(preset, "preset"));  // ValueError names a bad one
  ByteView seed(seed_h, "seed");
  auto p = pool();
  nb::gil_scoped_release unlocked;
  return p->run([&](tempo::Task& t) { return tf::keygen_from_seed(t, params, seed.span()); });
}

nb::object encrypt_bits(const tf::Keys& k, nb::handle bits_h, nb::handle seeds_h) {
  nb::module_ np = nb::module_::import_("numpy");
  // Truth values as one byte each (numpy's bool_ is not a Python bool).
  nb::object packed = np.attr("asarray")(bits_h).attr("astype")(np.attr("bool_")).attr("tobytes")();
  const char* bits = PyBytes_AsString(packed.ptr());
  if (bits == nullptr) throw nb::python_error();
  const auto count = static_cast<std::size_t>(PyBytes_GET_SIZE(packed.ptr()));
  ByteRows seeds(seeds_h, "seeds");
  if (seeds.size() != count)
    throw nb::value_error(("seeds: " + std::to_string(seeds.size()) + " items, expected " + std::to_string(count) +
                           " (one per bit)").c_str());
  std::vector<tf::Ciphertext> cts(count);
  for (std::size_t i = 0; i < count; ++i)
    cts[i] = tf::encrypt_bit(k.secret, bits[i] != 0, seeds.row(i));
  return cts_out(cts, lwe_n(k));
}

nb::object decrypt_bits(const tf::Keys& k, nb::handle cts_h) {
  const auto cts = cts_arg(k, cts_h, "ciphertexts");
  nb::module_ np = nb::module_::import_("numpy");
  nb::object out = np.attr("zeros")(cts.size(), np.attr("bool_"));
  for (std::size_t i = 0; i < cts.size(); ++i) out[nb::int_(i)] = nb::bool_(tf::decrypt_bit(k.secret, cts[i]));
  return out;
}

nb::object gate_batch(const tf::Keys& k, nb::handle gate_h, nb::handle xs_h, nb::handle ys_h, nb::handle backend_h) {
  const tf::Gate g = gate_arg(gate_h);
  const tf::Backend backend = tfhe_backend(backend_h);
  const auto xs = cts_arg(k, xs_h, "xs");
  const auto ys = cts_arg(k, ys_h, "ys");
  if (xs.size() != ys.size())
    throw nb::value_error(("xs and ys: different counts (" + std::to_string(xs.size()) + " and " +
                           std::to_string(ys.size()) + ")").c_str());
  std::vector<tf::Ciphertext> out(xs.size());
  if (!xs.empty()) {
    auto p = pool();
    nb::gil_scoped_release unlocked;
    p->run([&](tempo::Task& t) { tf::eval_gates(t, k.evaluation, g, xs, ys, out, backend); });
  }
  return cts_out(out, lwe_n(k));
}

nb::object not_batch(const tf::Keys& k, nb::handle xs_h) {
  auto xs = cts_arg(k, xs_h, "xs");
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
      .def("evaluation_key_digest", [](const tf::Keys& k) {
        const auto d = tf::digest(k.evaluation);
        return nb::bytes(d.data(), d.size());
      }, "SHA3-256 of the serialized evaluation key");
  s.def("keygen", &keygen, nb::arg("preset"), nb::arg("seed"),
        "keygen(preset, seed) -> Keys. preset: 'PN10QP27', 'PN11QP54' or 'TOY256' (insecure, tests);\n"
        "seed: 32 bytes (the same seed gives the same keys).");
  s.def("encrypt_bits", &encrypt_bits, nb::arg("keys"), nb::arg("bits"), nb::arg("seeds"),
        "encrypt_bits(keys, bits, seeds) -> (count, n + 1) uint32 array. bits: any array-like of\n"
        "truth values; seeds: one bytes-like seed per bit (a list, or a 2-D uint8 array), e.g.\n"
        "os.urandom(32) each; deterministic in the seeds.");
  s.def("decrypt_bits", &decrypt_bits, nb::arg("keys"), nb::arg("ciphertexts"), "-> numpy bool array");
  s.def("gate_batch", &gate_batch, nb::arg("keys"), nb::arg("gate"), nb::arg("xs"), nb::arg("ys"),
        nb::arg("backend") = "auto",
        "gate_batch(keys, gate, xs, ys, backend='auto') -> ciphertexts of gate(xs[i], ys[i]), each\n"
        "bootstrapped. gate: 'and', 'or', 'xor', 'nand', 'nor', 'xnor'.");
  s.def("not_batch", &not_batch, nb::arg("keys"), nb::arg("xs"), "NOT of every ciphertext (no bootstrap).");
}

}  // namespace tempo_py
