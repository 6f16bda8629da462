#include "common.hpp"

#include <cstring>
#include <limits>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>

namespace tempo_py {
namespace {

std::mutex g_mu;
std::shared_ptr<tempo::ThreadPool> g_pool;
std::optional<tempo::Backend> g_backend;  // set_backend(); nullopt: TEMPO_BACKEND

std::string py_type_name(nb::handle h) { return nb::type_name(h.type()).c_str(); }

nb::handle numpy_ndarray() {
  static nb::object cls = nb::module_::import_("numpy").attr("ndarray");
  return cls;
}

}  // namespace

std::shared_ptr<tempo::ThreadPool> pool() {
  std::lock_guard lock(g_mu);
  if (!g_pool) g_pool = std::make_shared<tempo::ThreadPool>(tempo::Options{});
  return g_pool;
}

void set_threads(std::size_t n) {
  if (n > tempo::max_threads)
    throw nb::value_error(("set_threads: " + std::to_string(n) + " threads is over the limit of " +
                           std::to_string(tempo::max_threads)).c_str());
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

tempo::Backend backend_arg(nb::handle backend) {
  if (backend.is_none()) return backend_arg(nb::str("auto"));
  if (!nb::isinstance<nb::str>(backend))
    throw nb::type_error(("backend must be a str ('auto', 'cpu' or 'cuda'), not " + py_type_name(backend)).c_str());
  const std::string name = nb::cast<std::string>(backend);
  if (name == "cpu") return tempo::Backend::cpu;
  if (name == "cuda") return tempo::Backend::cuda;
  if (name == "auto") {
    {
      std::lock_guard lock(g_mu);
      if (g_backend) return *g_backend;
    }
    return tempo::backend_from_env();  // ValueError naming a bad TEMPO_BACKEND
  }
  throw nb::value_error(("backend: unknown value '" + name + "' (expected 'auto', 'cpu' or 'cuda')").c_str());
}

void set_default_backend(nb::handle backend) {
  std::optional<tempo::Backend> b;
  if (!backend.is_none()) {
    if (!nb::isinstance<nb::str>(backend))
      throw nb::type_error(("set_backend: expected 'auto', 'cpu', 'cuda' or None, not " + py_type_name(backend)).c_str());
    const std::string name = nb::cast<std::string>(backend);
    if (name == "cpu") b = tempo::Backend::cpu;
    else if (name == "cuda") b = tempo::Backend::cuda;
    else if (name == "auto") b = tempo::Backend::auto_select;
    else throw nb::value_error(("set_backend: unknown value '" + name + "' (expected 'auto', 'cpu' or 'cuda')").c_str());
  }
  std::lock_guard lock(g_mu);
  g_backend = b;
}

std::string default_backend_name() {
  {
    std::lock_guard lock(g_mu);
    if (g_backend) return std::string(tempo::backend_name(*g_backend));
  }
  return std::string(tempo::backend_name(tempo::backend_from_env()));
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

namespace {
thread_local tempo::gpu::BatchReport t_report;
thread_local bool t_has_report = false;
}  // namespace

void record_report(const tempo::gpu::BatchReport& r) {
  t_report = r;
  t_has_report = true;
}

nb::dict last_report() {
  nb::dict d;
  if (!t_has_report) return d;
  const auto& r = t_report;
  d["ran_on"] = std::string(tempo::gpu::placement_name(r.ran_on));
  d["items"] = r.items;
  d["cpu_items"] = r.cpu_items;
  d["gpu_items"] = r.gpu_items;
  d["devices_used"] = r.devices_used;
  d["copy_in_ms"] = r.copy_in_ms;
  d["kernel_ms"] = r.kernel_ms;
  d["copy_out_ms"] = r.copy_out_ms;
  d["cpu_ms"] = r.cpu_ms;
  d["total_ms"] = r.total_ms;
  d["fell_back"] = r.fell_back;
  d["reason"] = r.reason;
  return d;
}

ByteRows::ByteRows(nb::handle obj, const char* what) {
  if (PyObject_IsInstance(obj.ptr(), numpy_ndarray().ptr()) == 1) {
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
    return;
  }
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
    if (PyBytes_Check(item)) {  // immutable, kept alive by keep_: no export needed
      rows_.emplace_back(reinterpret_cast<const std::uint8_t*>(PyBytes_AS_STRING(item)),
                         static_cast<std::size_t>(PyBytes_GET_SIZE(item)));
    } else {
      if (PyUnicode_Check(item) || !PyObject_CheckBuffer(item))
        throw nb::type_error((std::string(what) + "[" + std::to_string(i) + "]: expected bytes-like, not " +
                              py_type_name(nb::handle(item))).c_str());
      Py_buffer v;
      if (PyObject_GetBuffer(item, &v, PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        throw nb::type_error((std::string(what) + "[" + std::to_string(i) + "]: " + py_type_name(nb::handle(item)) +
                              " does not expose a contiguous buffer").c_str());
      }
      views_.push_back(v);
      rows_.emplace_back(static_cast<const std::uint8_t*>(v.buf), static_cast<std::size_t>(v.len));
    }
    total_ += rows_.back().size();
  }
}

ByteRows::~ByteRows() {
  for (Py_buffer& v : views_) PyBuffer_Release(&v);
  if (has_array_view_) PyBuffer_Release(&array_view_);
}

std::vector<std::span<const std::uint8_t>> ByteRows::spans() const {
  if (contiguous_ == nullptr) return rows_;
  std::vector<std::span<const std::uint8_t>> v;
  v.reserve(count_);
  for (std::size_t i = 0; i < count_; ++i) v.push_back(row(i));
  return v;
}

ByteView::ByteView(nb::handle obj, const char* what) {
  if (PyUnicode_Check(obj.ptr()) || !PyObject_CheckBuffer(obj.ptr()))
    throw nb::type_error((std::string(what) + ": expected bytes-like, not " + py_type_name(obj)).c_str());
  if (PyObject_GetBuffer(obj.ptr(), &view_, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear();
    throw nb::type_error((std::string(what) + ": " + py_type_name(obj) + " does not expose a contiguous buffer").c_str());
  }
  span_ = {static_cast<const std::uint8_t*>(view_.buf), static_cast<std::size_t>(view_.len)};
}

ByteView::~ByteView() { PyBuffer_Release(&view_); }

}  // namespace tempo_py
