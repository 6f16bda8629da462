// tempo.ntt: batches of negacyclic NTTs (tempo::ntt) over (count, n) uint64 arrays.
#include <cstring>
#include <map>
#include <mutex>

#include <tempo/ntt.hpp>

#include "common.hpp"

namespace tempo_py {
namespace {

// Plans are immutable and shared: one per preset name for the process.
const tempo::ntt::Plan& plan_for(nb::handle preset_h) {
  static std::mutex mu;
  static std::map<std::string, tempo::ntt::Plan> plans;
  const std::string name = str_arg(preset_h, "preset");
  std::lock_guard lock(mu);
  if (auto it = plans.find(name); it != plans.end()) return it->second;
  return plans.emplace(name, tempo::ntt::Plan::preset(name)).first->second;  // ValueError for an unknown name
}

// The buffer of a C-contiguous uint64 array (writable when asked), held until destruction.
class U64View {
 public:
  U64View(nb::handle obj, bool writable) {
    if (PyObject_GetBuffer(obj.ptr(), &v_, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0)
      throw nb::python_error();
  }
  U64View(const U64View&) = delete;
  U64View& operator=(const U64View&) = delete;
  ~U64View() { PyBuffer_Release(&v_); }
  std::span<std::uint64_t> span() const noexcept {
    return {static_cast<std::uint64_t*>(v_.buf), static_cast<std::size_t>(v_.len) / sizeof(std::uint64_t)};
  }

 private:
  Py_buffer v_{};
};

nb::object new_u64(std::size_t rows, std::size_t cols) {
  nb::module_ np = nb::module_::import_("numpy");
  return np.attr("zeros")(nb::make_tuple(rows, cols), np.attr("uint64"));
}

// A (count, n) uint64 array: TypeError for another type or dtype, ValueError for another shape.
// Non-contiguous arrays are copied (contiguous ones are read in place).
nb::object polys_arg(nb::handle obj, const char* what, std::size_t n) {
  nb::module_ np = nb::module_::import_("numpy");
  if (PyObject_IsInstance(obj.ptr(), np.attr("ndarray").ptr()) != 1)
    throw nb::type_error((std::string(what) + ": expected a 2-D numpy.uint64 array, not " +
                          std::string(nb::type_name(obj.type()).c_str())).c_str());
  const std::string dtype = py_str(obj.attr("dtype"));
  if (dtype != "uint64")
    throw nb::type_error((std::string(what) + ": numpy array of dtype " + dtype + ", expected uint64").c_str());
  nb::tuple shape = nb::cast<nb::tuple>(obj.attr("shape"));
  if (shape.size() != 2 || nb::cast<std::size_t>(shape[1]) != n)
    throw nb::value_error((std::string(what) + ": expected shape (count, " + std::to_string(n) + "), got " +
                           py_str(obj.attr("shape"))).c_str());
  if (nb::cast<bool>(obj.attr("flags").attr("c_contiguous"))) return nb::borrow(obj);
  return np.attr("ascontiguousarray")(obj);
}

enum class Dir { forward, inverse };

nb::object transform(Dir dir, nb::handle preset, nb::handle polys_h, nb::handle backend_h, bool inplace) {
  const tempo::ntt::Plan& plan = plan_for(preset);
  const tempo::Backend backend = backend_arg(backend_h);
  nb::object polys = polys_arg(polys_h, "polys", plan.n());
  nb::object result;
  if (inplace) {
    if (!polys.is(polys_h) || !nb::cast<bool>(polys.attr("flags").attr("writeable")))
      throw nb::value_error("polys: inplace=True needs a writeable C-contiguous uint64 array");
    result = polys;
  } else {
    result = polys.attr("copy")();
  }
  U64View view(result, true);
  const std::span<std::uint64_t> data = view.span();
  if (data.empty()) return result;
  auto p = pool();
  {
    nb::gil_scoped_release unlocked;
    record_report(p->run([&](tempo::Task& t) {
      return dir == Dir::forward ? tempo::ntt::forward_batch(t, plan, data, backend)
                                 : tempo::ntt::inverse_batch(t, plan, data, backend);
    }));
  }
  return result;
}

nb::object multiply(nb::handle preset, nb::handle a_h, nb::handle b_h, nb::handle backend_h) {
  const tempo::ntt::Plan& plan = plan_for(preset);
  const tempo::Backend backend = backend_arg(backend_h);
  nb::object a_obj = polys_arg(a_h, "a", plan.n());
  nb::object b_obj = polys_arg(b_h, "b", plan.n());
  U64View a(a_obj, false), b(b_obj, false);
  const std::size_t na = a.span().size() / plan.n(), nb_ = b.span().size() / plan.n();
  if (na != nb_)
    throw nb::value_error(("a and b: different counts (" + std::to_string(na) + " and " + std::to_string(nb_) +
                           " polynomials)").c_str());
  nb::object out = new_u64(na, plan.n());
  U64View o(out, true);
  if (na != 0) {
    const std::span<const std::uint64_t> sa = a.span(), sb = b.span();
    const std::span<std::uint64_t> so = o.span();
    auto p = pool();
    nb::gil_scoped_release unlocked;
    record_report(p->run([&](tempo::Task& t) { return tempo::ntt::multiply_batch(t, plan, sa, sb, so, backend); }));
  }
  return out;
}

nb::dict params(nb::handle preset) {
  const tempo::ntt::Plan& plan = plan_for(preset);
  nb::dict d;
  d["n"] = plan.n();
  d["q"] = plan.q();
  d["psi"] = plan.psi();
  d["cpu_path"] = std::string(plan.cpu_path());
  return d;
}

}  // namespace

void bind_ntt(nb::module_& m) {
  nb::module_ s = m.def_submodule("ntt", "Negacyclic NTTs over Z_q[X]/(X^n + 1) in batches (tempo::ntt).");
  const char* presets =
      "preset: 'MLDSA' (n=256, q=8380417), 'PN10QP27' (n=1024), 'PN11QP54' (n=2048),\n"
      "'PN12QP60' (n=4096), 'PN14QP60' (n=16384); see params(). Coefficients must be < q\n"
      "(ValueError naming the polynomial, index and value otherwise).";
  s.def(
      "forward_batch",
      [](nb::handle preset, nb::handle polys, nb::handle backend, bool inplace) {
        return transform(Dir::forward, preset, polys, backend, inplace);
      },
      nb::arg("preset"), nb::arg("polys"), nb::arg("backend") = "auto", nb::arg("inplace") = false,
      (std::string("forward_batch(preset, polys, backend='auto', inplace=False) -> numpy.ndarray\n\n"
                   "Forward NTT of every row of a (count, n) uint64 array, output in bit-reversed order\n"
                   "(FIPS 204 Algorithm 41). Returns a new array, or polys itself with inplace=True.\n") +
       presets).c_str());
  s.def(
      "inverse_batch",
      [](nb::handle preset, nb::handle polys, nb::handle backend, bool inplace) {
        return transform(Dir::inverse, preset, polys, backend, inplace);
      },
      nb::arg("preset"), nb::arg("polys"), nb::arg("backend") = "auto", nb::arg("inplace") = false,
      "inverse_batch(preset, polys, backend='auto', inplace=False) -> numpy.ndarray\n\n"
      "Inverse of forward_batch, 1/n included: inverse_batch(p, forward_batch(p, a)) == a.");
  s.def("multiply_batch", &multiply, nb::arg("preset"), nb::arg("a"), nb::arg("b"), nb::arg("backend") = "auto",
        "multiply_batch(preset, a, b, backend='auto') -> numpy.ndarray\n\n"
        "Row i of the result is a[i] * b[i] mod (X^n + 1, q) (coefficients in, coefficients out).");
  s.def("params", &params, nb::arg("preset"), "n, q, psi and the CPU kernel of a preset.");
}

}  // namespace tempo_py
