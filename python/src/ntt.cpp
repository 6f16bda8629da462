// tempo.ntt: batches of negacyclic NTTs (tempo::ntt) over (count, n) uint64 arrays, or uint32
// ones (the 32-bit layout, q < 2^31).
#include <map>
#include <mutex>
#include <string>

#include <tempo/ntt.hpp>

#include "common.hpp"

namespace tempo_py {
namespace {

using tempo::ntt::Plan;

// Each preset's Plan is made once per process: plans are immutable and copies share their
// tables. ValueError for an unknown name.
Plan preset(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, Plan> plans;
  std::lock_guard lock(mu);
  if (auto it = plans.find(name); it != plans.end()) return it->second;
  return plans.emplace(name, Plan::preset(name)).first->second;
}

// A Plan, or a preset name.
Plan plan_arg(nb::handle h) {
  if (nb::isinstance<Plan>(h)) return nb::cast<const Plan&>(h);
  if (!nb::isinstance<nb::str>(h))
    throw nb::type_error(("plan must be a tempo.ntt.Plan or a preset name (str), not " + py_type_name(h)).c_str());
  return preset(nb::cast<std::string>(h));
}

// The buffer of a C-contiguous array of W words (writable when asked), held until destruction.
template <typename W>
class WordView {
 public:
  WordView(nb::handle obj, bool writable) {
    if (PyObject_GetBuffer(obj.ptr(), &v_, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0)
      throw nb::python_error();
  }
  WordView(const WordView&) = delete;
  WordView& operator=(const WordView&) = delete;
  ~WordView() { PyBuffer_Release(&v_); }
  std::span<W> span() const noexcept {
    return {static_cast<W*>(v_.buf), static_cast<std::size_t>(v_.len) / sizeof(W)};
  }

 private:
  Py_buffer v_{};
};

// The count of a (count, n) uint64 or uint32 array: TypeError for another type or dtype,
// ValueError for another shape.
std::size_t polys_count(nb::handle obj, const char* what, std::size_t n) {
  if (!is_ndarray(obj))
    throw nb::type_error(
        (std::string(what) + ": expected a 2-D numpy.uint64 (or numpy.uint32) array, not " + py_type_name(obj)).c_str());
  const std::string dtype = py_str(obj.attr("dtype"));
  if (dtype != "uint64" && dtype != "uint32")
    throw nb::type_error((std::string(what) + ": numpy array of dtype " + dtype + ", expected uint64 or uint32").c_str());
  nb::tuple shape = nb::cast<nb::tuple>(obj.attr("shape"));
  if (shape.size() != 2 || nb::cast<std::size_t>(shape[1]) != n)
    throw nb::value_error((std::string(what) + ": expected shape (count, " + std::to_string(n) + "), got " +
                           py_str(obj.attr("shape"))).c_str());
  return nb::cast<std::size_t>(shape[0]);
}

bool c_contiguous(nb::handle arr) { return nb::cast<bool>(arr.attr("flags").attr("c_contiguous")); }

// Contiguous arrays are read in place, others copied.
nb::object contiguous(nb::handle arr) {
  if (c_contiguous(arr)) return nb::borrow(arr);
  return nb::module_::import_("numpy").attr("ascontiguousarray")(arr);
}

// uint32 arrays: the 32-bit layout (polys_count has checked the dtype).
bool is_u32(nb::handle arr) { return py_str(arr.attr("dtype")) == "uint32"; }

enum class Dir { forward, inverse };

template <typename W>
nb::object transform(Dir dir, nb::handle plan_h, nb::handle polys, nb::handle backend, nb::handle inplace_h) {
  const Plan plan = plan_arg(plan_h);
  const tempo::gpu::RunOptions opt = run_options(backend);
  const bool inplace = bool_arg(inplace_h, "inplace");
  const std::size_t count = polys_count(polys, "polys", plan.n());
  nb::object result;
  if (inplace) {
    if (!c_contiguous(polys) || !nb::cast<bool>(polys.attr("flags").attr("writeable")))
      throw nb::value_error("polys: inplace=True needs a writeable C-contiguous array");
    result = nb::borrow(polys);
  } else {
    check_output_size(dir == Dir::forward ? "ntt.forward_batch" : "ntt.inverse_batch", count,
                      plan.n() * sizeof(W));
    result = nb::module_::import_("numpy").attr("array")(polys, arg("order") = "C");  // a contiguous copy
  }
  WordView<W> view(result, true);
  const std::span<W> data = view.span();
  if (data.empty()) return result;
  auto p = pool();
  tempo::gpu::BatchReport report;
  {
    nb::gil_scoped_release unlocked;
    report = p->run([&](tempo::Task& t) {
      return dir == Dir::forward ? tempo::ntt::forward_batch(t, plan, data, opt)
                                 : tempo::ntt::inverse_batch(t, plan, data, opt);
    });
  }
  record_report(dir == Dir::forward ? "ntt.forward_batch" : "ntt.inverse_batch", std::move(report));
  return result;
}

nb::object transform_any(Dir dir, nb::handle plan, nb::handle polys, nb::handle backend, nb::handle inplace) {
  polys_count(polys, "polys", plan_arg(plan).n());  // the dtype's TypeError first
  return is_u32(polys) ? transform<std::uint32_t>(dir, plan, polys, backend, inplace)
                       : transform<std::uint64_t>(dir, plan, polys, backend, inplace);
}

template <typename W>
Array2<W> multiply(nb::handle plan_h, nb::handle a_h, nb::handle b_h, nb::handle backend) {
  const Plan plan = plan_arg(plan_h);
  const tempo::gpu::RunOptions opt = run_options(backend);
  const std::size_t na = polys_count(a_h, "a", plan.n()), nb_ = polys_count(b_h, "b", plan.n());
  if (na != nb_)
    throw nb::value_error(("a and b: different counts (" + std::to_string(na) + " and " + std::to_string(nb_) +
                           " polynomials)").c_str());
  check_output_size("ntt.multiply_batch", na, plan.n() * sizeof(W));
  nb::object a_obj = contiguous(a_h), b_obj = contiguous(b_h);
  WordView<W> a(a_obj, false), b(b_obj, false);
  Array2<W> out = new_array<W>(na, plan.n());
  if (na == 0) return out;
  const std::span<const W> sa = a.span(), sb = b.span();
  const std::span<W> so(out.data(), na * plan.n());
  auto p = pool();
  tempo::gpu::BatchReport report;
  {
    nb::gil_scoped_release unlocked;
    report = p->run([&](tempo::Task& t) { return tempo::ntt::multiply_batch(t, plan, sa, sb, so, opt); });
  }
  record_report("ntt.multiply_batch", std::move(report));
  return out;
}

nb::object multiply_any(nb::handle plan, nb::handle a, nb::handle b, nb::handle backend) {
  const std::size_t n = plan_arg(plan).n();
  polys_count(a, "a", n);
  polys_count(b, "b", n);
  if (is_u32(a) != is_u32(b))
    throw nb::type_error(("a and b: different dtypes (" + py_str(a.attr("dtype")) + " and " + py_str(b.attr("dtype")) +
                          ")").c_str());
  return is_u32(a) ? nb::cast(multiply<std::uint32_t>(plan, a, b, backend))
                   : nb::cast(multiply<std::uint64_t>(plan, a, b, backend));
}

using U64 = unsigned long long;  // exactly Python int's range for the checks below
constexpr U64 kU64Max = ~U64{0};

std::uint64_t u64_arg(nb::handle h, const char* what) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr()))
    throw nb::type_error((std::string(what) + " must be an int, not " + py_type_name(h)).c_str());
  const U64 v = PyLong_AsUnsignedLongLong(h.ptr());
  if (v == kU64Max && PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    throw nb::value_error((std::string(what) + " = " + py_str(h) + " is out of range (0 to 2**64 - 1)").c_str());
  }
  return v;
}

}  // namespace

void bind_ntt(nb::module_& m) {
  nb::module_ s = m.def_submodule("ntt", "Negacyclic NTTs over Z_q[X]/(X^n + 1) in batches (tempo::ntt).");
  nb::class_<Plan>(s, "Plan",
                   "tempo::ntt::Plan: the negacyclic NTT over Z_q[X]/(X^n + 1). Immutable; copies share\n"
                   "their tables. Plan.preset(name) gives the named ones.")
      .def(
          "__init__",
          [](Plan* self, nb::handle n, nb::handle q, nb::handle psi) {
            const auto nn = static_cast<std::size_t>(int_arg(n, "n", 0, 1LL << 40));
            if (psi.is_none()) new (self) Plan(nn, u64_arg(q, "q"));
            else new (self) Plan(nn, u64_arg(q, "q"), u64_arg(psi, "psi"));
          },
          arg("n"), arg("q"), arg("psi") = nb::none(),
          nb::sig("def __init__(self, n: int, q: int, psi: int | None = None) -> None"),
          "n: a power of two from 16 to 65536; q: a prime = 1 mod 2n below 2**62; psi: a primitive\n"
          "2n-th root of unity mod q (None: the smallest). ValueError naming a bad parameter.")
      .def_static(
          "preset", [](nb::handle name) { return preset(str_arg(name, "name")); }, arg("name"),
          nb::sig("def preset(name: str) -> Plan"),
          "'MLDSA' (n=256, q=8380417), 'PN10QP27' (n=1024), 'PN11QP54' (n=2048), 'PN12QP60'\n"
          "(n=4096), 'PN14QP60' (n=16384); workloads/ntt/README.md says why these primes.")
      .def_prop_ro("n", &Plan::n)
      .def_prop_ro("log_n", &Plan::log_n)
      .def_prop_ro("q", &Plan::q)
      .def_prop_ro("psi", &Plan::psi, "the primitive 2n-th root of unity used")
      .def_prop_ro("n_inv", &Plan::n_inv, "n^-1 mod q")
      .def_prop_ro("cpu_path", [](const Plan& p) { return std::string(p.cpu_path()); },
                   "the CPU kernel: 'portable', 'avx2', 'avx512', 'avx512ifma', ...")
      .def("__repr__", [](const Plan& p) {
        return "Plan(n=" + std::to_string(p.n()) + ", q=" + std::to_string(p.q()) + ", psi=" + std::to_string(p.psi()) +
               ")";
      });

  // Each function twice, for the stubs' overloads: uint64 arrays (this overload also takes
  // every other argument, and reports the bad ones), then uint32 ones.
  for (const bool u32 : {false, true}) {
    const char* words = u32 ? "uint32" : "uint64";
    auto mine = [u32](nb::handle h) { return !is_ndarray(h) || is_u32(h) == u32; };
    const std::string fwd = std::string("def forward_batch(plan: Plan | str, polys: numpy.typing.NDArray[numpy.") +
                            words + "], " TEMPO_PY_BACKEND ", inplace: bool = False) -> numpy.typing.NDArray[numpy." +
                            words + "]";
    const std::string inv = "def inverse" + fwd.substr(11);
    const std::string mul = std::string("def multiply_batch(plan: Plan | str, a: numpy.typing.NDArray[numpy.") + words +
                            "], b: numpy.typing.NDArray[numpy." + words + "], " TEMPO_PY_BACKEND
                            ") -> numpy.typing.NDArray[numpy." + words + "]";
    s.def(
        "forward_batch",
        [mine](nb::handle plan, nb::handle polys, nb::handle backend, nb::handle inplace) {
          if (!mine(polys)) throw nb::next_overload();
          return transform_any(Dir::forward, plan, polys, backend, inplace);
        },
        arg("plan"), arg("polys"), arg("backend") = nb::none(), arg("inplace") = false, nb::sig(fwd.c_str()),
        u32 ? "The same on a uint32 array (plans with q < 2**31; ValueError otherwise): the same values\n"
              "in half the memory, which is what bounds the transform on a GPU."
            : "Forward NTT of every row of a (count, n) uint64 array, output in bit-reversed order\n"
              "(FIPS 204 Algorithm 41). Returns a new array, or polys itself with inplace=True.\n"
              "plan: a Plan or a preset name ('MLDSA', 'PN10QP27', ...; see Plan.preset). Coefficients\n"
              "must be < q (ValueError naming the polynomial, index and value otherwise).\n"
              "backend: 'auto', 'cpu', 'cuda' (or 'gpu'); None reads TEMPO_BACKEND.");
    s.def(
        "inverse_batch",
        [mine](nb::handle plan, nb::handle polys, nb::handle backend, nb::handle inplace) {
          if (!mine(polys)) throw nb::next_overload();
          return transform_any(Dir::inverse, plan, polys, backend, inplace);
        },
        arg("plan"), arg("polys"), arg("backend") = nb::none(), arg("inplace") = false, nb::sig(inv.c_str()),
        u32 ? "The same on a uint32 array (q < 2**31)."
            : "Inverse of forward_batch, 1/n included: inverse_batch(p, forward_batch(p, a)) == a.");
    s.def(
        "multiply_batch",
        [mine](nb::handle plan, nb::handle a, nb::handle b, nb::handle backend) {
          if (!mine(a)) throw nb::next_overload();
          return multiply_any(plan, a, b, backend);
        },
        arg("plan"), arg("a"), arg("b"), arg("backend") = nb::none(), nb::sig(mul.c_str()),
        u32 ? "The same on uint32 arrays (q < 2**31); a and b must have the same dtype."
            : "Row i of the result is a[i] * b[i] mod (X^n + 1, q) (coefficients in, coefficients out).");
  }
}

}  // namespace tempo_py
