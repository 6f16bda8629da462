#include "common.hpp"

#include <cstring>
#include <mutex>
#include <new>
#include <optional>

#include <tempo/secure_zero.hpp>

namespace tempo_py {
namespace {

std::mutex g_mu;
std::shared_ptr<tempo::ThreadPool> g_pool;
// Leaked on purpose: a static nb::object would be released after the interpreter is gone.
nb::handle numpy_attr(const char* name) { return nb::getattr(nb::module_::import_("numpy"), name).release(); }
nb::handle numpy_ndarray() {
  static const nb::handle cls = numpy_attr("ndarray");
  return cls;
}
nb::handle numpy_bool() {
  static const nb::handle cls = numpy_attr("bool_");
  return cls;
}

}  // namespace

std::string py_type_name(nb::handle h) { return nb::type_name(h.type()).c_str(); }

std::shared_ptr<tempo::ThreadPool> pool() {
  std::lock_guard lock(g_mu);
  if (!g_pool) g_pool = std::make_shared<tempo::ThreadPool>(tempo::Options{});
  return g_pool;
}

void set_threads(std::size_t n) {
  auto fresh = std::make_shared<tempo::ThreadPool>(tempo::Options{.threads = n});
  std::shared_ptr<tempo::ThreadPool> old;
  {
    std::lock_guard lock(g_mu);
    old = std::exchange(g_pool, std::move(fresh));
  }
  // `old` joins its threads here, unless a running call still holds it.
}

std::size_t threads() { return pool()->thread_count(); }

void after_fork_child() {
  // The child has none of the pool's threads: joining them would hang, so the old pool is
  // left alone (leaked) and the next call makes a new one.
  new (std::nothrow) std::shared_ptr<tempo::ThreadPool>(std::exchange(g_pool, nullptr));
  new (&g_mu) std::mutex();  // a lock held by another parent thread at fork() stays held otherwise
}

void shutdown() {
  std::shared_ptr<tempo::ThreadPool> old;
  std::lock_guard lock(g_mu);
  old = std::exchange(g_pool, nullptr);
}

tempo::gpu::RunOptions run_options(nb::handle backend) {
  if (backend.is_none()) return tempo::gpu::RunOptions(tempo::backend_from_env());
  if (!nb::isinstance<nb::str>(backend))
    throw nb::type_error(
        ("backend must be a str (auto, cpu, cuda or gpu) or None, not " + py_type_name(backend)).c_str());
  return tempo::gpu::RunOptions(tempo::parse_backend(nb::cast<std::string>(backend)));
}

void check_output_size(const char* call, std::size_t rows, std::size_t row_bytes) {
  if (row_bytes != 0 && rows > max_output_bytes / row_bytes)
    throw nb::value_error((std::string(call) + ": the result would be " + std::to_string(rows) + " x " +
                           std::to_string(row_bytes) + " bytes, over the limit of " + std::to_string(max_output_bytes) +
                           " bytes per call (tempo.MAX_OUTPUT_BYTES); split the batch").c_str());
}

std::string py_str(nb::handle h) {
  nb::object s = nb::steal(PyObject_Str(h.ptr()));
  if (!s.is_valid()) throw nb::python_error();
  return nb::cast<std::string>(s);
}

std::string str_arg(nb::handle h, const char* what) {
  if (!nb::isinstance<nb::str>(h))
    throw nb::type_error((std::string(what) + " must be a str, not " + py_type_name(h)).c_str());
  return nb::cast<std::string>(h);
}

long long int_arg(nb::handle h, const char* what, long long lo, long long hi) {
  if (!PyLong_Check(h.ptr()) || PyBool_Check(h.ptr()))
    throw nb::type_error((std::string(what) + " must be an int, not " + py_type_name(h)).c_str());
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(h.ptr(), &overflow);
  if (overflow != 0 || v < lo || v > hi) {
    const std::string shown = py_str(h);
    throw nb::value_error((std::string(what) + " = " + shown + " is out of range (" + std::to_string(lo) + " to " +
                           std::to_string(hi) + ")").c_str());
  }
  return v;
}

bool bool_arg(nb::handle h, const char* what) {
  if (PyBool_Check(h.ptr())) return h.ptr() == Py_True;
  if (PyObject_IsInstance(h.ptr(), numpy_bool().ptr()) != 1)  // numpy.bool_ scalars are fine too
    throw nb::type_error((std::string(what) + " must be a bool, not " + py_type_name(h)).c_str());
  return PyObject_IsTrue(h.ptr()) == 1;
}

bool is_ndarray(nb::handle h) { return PyObject_IsInstance(h.ptr(), numpy_ndarray().ptr()) == 1; }

namespace {
thread_local std::optional<Report> t_report;
}  // namespace

void record_report(const char* call, tempo::gpu::BatchReport r) { t_report = Report{call, std::move(r)}; }

void bind_report(nb::module_& m) {
  nb::class_<Report>(m, "BatchReport",
                     "What one batch call did (tempo::gpu::BatchReport): where it ran, how many items went\n"
                     "where, its device and CPU times, and why the engine placed it so.")
      .def_ro("call", &Report::call, "the call that made it, e.g. 'keccak.hash_batch' or 'tfhe.eval_gates'")
      .def_prop_ro("ran_on", [](const Report& x) { return std::string(tempo::gpu::placement_name(x.r.ran_on)); },
                   "'cpu', 'gpu' (every item on devices) or 'split' (both sides)")
      .def_prop_ro("items", [](const Report& x) { return x.r.items; })
      .def_prop_ro("cpu_items", [](const Report& x) { return x.r.cpu_items; })
      .def_prop_ro("gpu_items", [](const Report& x) { return x.r.gpu_items; })
      .def_prop_ro("gpu_chunks", [](const Report& x) { return x.r.gpu_chunks; })
      .def_prop_ro("devices_used", [](const Report& x) { return x.r.devices_used; })
      .def_prop_ro("copy_in_ms", [](const Report& x) { return x.r.copy_in_ms; })
      .def_prop_ro("kernel_ms", [](const Report& x) { return x.r.kernel_ms; })
      .def_prop_ro("copy_out_ms", [](const Report& x) { return x.r.copy_out_ms; })
      .def_prop_ro("cpu_ms", [](const Report& x) { return x.r.cpu_ms; })
      .def_prop_ro("total_ms", [](const Report& x) { return x.r.total_ms; })
      .def_prop_ro("fell_back", [](const Report& x) { return x.r.fell_back; },
                   "device memory ran out: smaller chunks or the CPU took over")
      .def_prop_ro("reason", [](const Report& x) { return x.r.reason; }, "why this placement")
      .def("__repr__", [](const Report& x) {
        return "BatchReport(call='" + x.call + "', ran_on='" + std::string(tempo::gpu::placement_name(x.r.ran_on)) +
               "', items=" + std::to_string(x.r.items) + ", cpu_items=" + std::to_string(x.r.cpu_items) +
               ", gpu_items=" + std::to_string(x.r.gpu_items) + ", total_ms=" + std::to_string(x.r.total_ms) +
               ", reason='" + x.r.reason + "')";
      });
  m.def(
      "last_report",
      []() -> nb::object {
        if (!t_report) return nb::none();
        return nb::cast(*t_report);  // a copy: later calls do not change it
      },
      nb::sig("def last_report() -> BatchReport | None"),
      "The report of this thread's last batch call of any family (keccak, ntt, tfhe, faest, perk);\n"
      "None before the first.");
}

namespace {

// "<what>: expected bytes-like, not <type>", with a hint for the usual mistakes.
nb::builtin_exception not_bytes(const std::string& what, nb::handle h, const char* item_of) {
  std::string hint;
  if (PyUnicode_Check(h.ptr())) hint = " (encode it first, e.g. s.encode())";
  else if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) hint = " (bytes(x) turns a list of ints into bytes)";
  else if (PyLong_Check(h.ptr()) && item_of != nullptr)
    hint = std::string(" (") + item_of + " is a list of bytes-like items, not of ints)";
  return nb::type_error((what + ": expected bytes-like, not " + py_type_name(h) + hint).c_str());
}

}  // namespace

ByteRows::ByteRows(nb::handle obj, const char* what) {
  try {
    if (is_ndarray(obj)) {
      view_array(obj, what);
    } else {
      view_items(obj, what);
    }
  } catch (...) {
    release();  // the destructor does not run when the constructor throws
    throw;
  }
}

void ByteRows::view_array(nb::handle obj, const char* what) {
  nb::object dtype = obj.attr("dtype");
  if (py_str(dtype) != "uint8")
    throw nb::type_error((std::string(what) + ": numpy array of dtype " + py_str(dtype) +
                          ", expected uint8 (2-D, one item per row)").c_str());
  const auto ndim = nb::cast<std::size_t>(obj.attr("ndim"));
  if (ndim != 2)
    throw nb::value_error((std::string(what) + ": expected a 2-D uint8 array (one item per row), got " +
                           std::to_string(ndim) + " dimension(s)").c_str());
  keep_ = nb::borrow(obj);
  if (!nb::cast<bool>(obj.attr("flags").attr("c_contiguous")))  // a copy; contiguous arrays are used in place
    keep_ = nb::module_::import_("numpy").attr("ascontiguousarray")(obj);
  if (PyObject_GetBuffer(keep_.ptr(), &array_view_, PyBUF_C_CONTIGUOUS) != 0) throw nb::python_error();
  has_array_view_ = true;
  nb::tuple shape = nb::cast<nb::tuple>(keep_.attr("shape"));
  count_ = nb::cast<std::size_t>(shape[0]);
  row_len_ = nb::cast<std::size_t>(shape[1]);
  total_ = count_ * row_len_;
  static const std::uint8_t empty = 0;
  contiguous_ = total_ == 0 ? &empty : static_cast<const std::uint8_t*>(array_view_.buf);
}

void ByteRows::view_items(nb::handle obj, const char* what) {
  // A single bytes-like object or str is iterable too, but surely a mistake here.
  const bool single = PyBytes_Check(obj.ptr()) || PyByteArray_Check(obj.ptr()) || PyMemoryView_Check(obj.ptr()) ||
                      PyUnicode_Check(obj.ptr());
  const bool iterable = Py_TYPE(obj.ptr())->tp_iter != nullptr || PySequence_Check(obj.ptr()) != 0;
  if (single || !iterable)
    throw nb::type_error((std::string(what) + ": expected a list of bytes or a 2-D uint8 numpy array, not " +
                          (single ? "a single " : "") + py_type_name(obj) + (single ? " (wrap it in a list)" : ""))
                             .c_str());
  keep_ = nb::steal(PySequence_Tuple(obj.ptr()));  // any iterable; holds every item even if the list changes
  if (!keep_.is_valid()) throw nb::python_error();
  count_ = static_cast<std::size_t>(PyTuple_GET_SIZE(keep_.ptr()));
  rows_.reserve(count_);
  for (std::size_t i = 0; i < count_; ++i) {
    PyObject* item = PyTuple_GET_ITEM(keep_.ptr(), static_cast<Py_ssize_t>(i));
    const std::string name = std::string(what) + "[" + std::to_string(i) + "]";
    if (PyBytes_Check(item)) {  // immutable, kept alive by keep_: no export needed
      rows_.emplace_back(reinterpret_cast<const std::uint8_t*>(PyBytes_AS_STRING(item)),
                         static_cast<std::size_t>(PyBytes_GET_SIZE(item)));
    } else {
      if (PyUnicode_Check(item) || !PyObject_CheckBuffer(item)) throw not_bytes(name, item, what);
      Py_buffer v;
      if (PyObject_GetBuffer(item, &v, PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        throw nb::type_error((name + ": " + py_type_name(item) + " does not expose a contiguous buffer").c_str());
      }
      views_.push_back(v);
      rows_.emplace_back(static_cast<const std::uint8_t*>(v.buf), static_cast<std::size_t>(v.len));
    }
    total_ += rows_.back().size();
  }
}

void ByteRows::release() noexcept {
  for (Py_buffer& v : views_) PyBuffer_Release(&v);
  views_.clear();
  if (has_array_view_) PyBuffer_Release(&array_view_);
  has_array_view_ = false;
}

ByteRows::~ByteRows() { release(); }

std::vector<std::span<const std::uint8_t>> ByteRows::spans() const {
  if (contiguous_ == nullptr) return rows_;
  std::vector<std::span<const std::uint8_t>> v;
  v.reserve(count_);
  for (std::size_t i = 0; i < count_; ++i) v.push_back(row(i));
  return v;
}

PackedRows::PackedRows(const ByteRows& rows, bool secret) : secret_(secret) {
  if (const std::uint8_t* base = rows.contiguous_data()) {
    data_ = {base, rows.total_bytes()};
    stride_ = rows.row_len();
    return;
  }
  const std::size_t count = rows.size();
  bool same = true;
  for (std::size_t i = 1; i < count && same; ++i) same = rows.row(i).size() == rows.row(0).size();
  copy_.resize(rows.total_bytes());
  std::size_t at = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const auto r = rows.row(i);
    if (!r.empty()) std::memcpy(copy_.data() + at, r.data(), r.size());
    at += r.size();
  }
  data_ = copy_;
  if (same) {
    stride_ = count == 0 ? 0 : rows.row(0).size();
    return;
  }
  offsets_.resize(count + 1);
  for (std::size_t i = 0; i < count; ++i) offsets_[i + 1] = offsets_[i] + rows.row(i).size();
}

PackedRows::~PackedRows() {
  if (secret_) tempo::secure_zero(copy_);
}

tempo::gpu::Operand PackedRows::operand() const noexcept {
  return offsets_.empty() ? tempo::gpu::Operand::fixed(data_, stride_) : tempo::gpu::Operand::variable(data_, offsets_);
}

ByteView::ByteView(nb::handle obj, const char* what) {
  if (PyUnicode_Check(obj.ptr()) || !PyObject_CheckBuffer(obj.ptr())) throw not_bytes(what, obj, nullptr);
  if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    throw nb::type_error(
        (std::string(what) + ": " + py_type_name(obj) + " does not expose a contiguous buffer").c_str());
  }
  span_ = {static_cast<const std::uint8_t*>(view_.buf), static_cast<std::size_t>(view_.len)};
}

ByteView::~ByteView() { PyBuffer_Release(&view_); }

}  // namespace tempo_py
