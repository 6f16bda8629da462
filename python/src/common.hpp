// Shared pieces of the Python module: the module-level pool, the backend argument, the
// last batch report, argument checks with one-line errors, byte-like argument views, and
// the numpy result arrays.
//
// Arguments arrive as nb::handle and are checked here rather than by nanobind's overload
// resolution, whose TypeError lists every signature over several lines: a wrong argument
// gets one line naming it and what was expected. nb::sig gives each function its real
// Python signature (the generated .pyi stubs are made from it).
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

namespace tempo_py {

namespace nb = nanobind;

// An argument that nanobind passes on whatever it is, None included, for the
// binding's own checks to judge.
inline auto arg(const char* name) { return nb::arg(name).none(); }

// The pool every call runs on. Callers hold the shared_ptr for the whole call, so
// set_threads() may replace the pool while other Python threads are still using the old one.
std::shared_ptr<tempo::ThreadPool> pool();
void set_threads(std::size_t n);  // 0 = TEMPO_THREADS, else all hardware threads
std::size_t threads();
void shutdown();  // drops the pool (atexit): threads are joined before the interpreter goes
void after_fork_child();  // os.register_at_fork: a fresh pool in a forked child

// The `backend` argument of every batch call: None -> TEMPO_BACKEND (tempo::backend_from_env),
// a str -> tempo::parse_backend (ValueError with its message for a bad name).
tempo::gpu::RunOptions run_options(nb::handle backend);

// The calling thread's last batch report (tempo.last_report()): every batch binding records
// what its C++ call returned, with the call's Python name ("tfhe.eval_gates").
struct Report {
  std::string call;
  tempo::gpu::BatchReport r;
};
void record_report(const char* call, tempo::gpu::BatchReport r);
void bind_report(nb::module_& m);

// The most bytes one call allocates for its result (tempo.MAX_OUTPUT_BYTES). A larger
// result is refused with ValueError before anything is allocated: a typo in out_bytes or a
// count must not become a MemoryError (or the OOM killer) halfway through.
inline constexpr std::size_t max_output_bytes = std::size_t{1} << 30;
// ValueError naming the call unless rows * row_bytes <= max_output_bytes.
void check_output_size(const char* call, std::size_t rows, std::size_t row_bytes);

std::string py_type_name(nb::handle h);
// str(obj) as Python computes it.
std::string py_str(nb::handle h);
// str argument or TypeError naming the argument.
std::string str_arg(nb::handle h, const char* what);
// Python int in [lo, hi] or TypeError/ValueError naming the argument.
long long int_arg(nb::handle h, const char* what, long long lo, long long hi);
// A bool (or numpy bool) or TypeError naming the argument.
bool bool_arg(nb::handle h, const char* what);
// numpy.ndarray instances (numpy is imported on first use).
bool is_ndarray(nb::handle h);

// Read-only views of many bytes-like objects (a list or tuple of bytes, bytearray,
// memoryview, 1-D uint8 arrays: anything with a C-contiguous buffer) or of the rows of a
// 2-D uint8 numpy array. Holds references and buffer exports (no copy of the bytes), so the
// views stay valid while the GIL is released. Construct and destroy with the GIL held.
class ByteRows {
 public:
  ByteRows(nb::handle obj, const char* what);
  ByteRows(const ByteRows&) = delete;
  ByteRows& operator=(const ByteRows&) = delete;
  ~ByteRows();
  std::size_t size() const noexcept { return count_; }
  std::span<const std::uint8_t> row(std::size_t i) const noexcept {
    return contiguous_ != nullptr ? std::span<const std::uint8_t>(contiguous_ + i * row_len_, row_len_) : rows_[i];
  }
  std::vector<std::span<const std::uint8_t>> spans() const;
  std::size_t total_bytes() const noexcept { return total_; }
  // Non-null when the input was a 2-D uint8 array (C-contiguous, or made so): its rows lie
  // end to end, row_len() bytes each. Zero-copy when the caller's array was contiguous.
  const std::uint8_t* contiguous_data() const noexcept { return contiguous_; }
  std::size_t row_len() const noexcept { return row_len_; }

 private:
  void view_array(nb::handle obj, const char* what);
  void view_items(nb::handle obj, const char* what);
  void release() noexcept;

  std::vector<Py_buffer> views_;  // exports of non-bytes items (bytes need none)
  std::vector<std::span<const std::uint8_t>> rows_;
  const std::uint8_t* contiguous_ = nullptr;
  std::size_t row_len_ = 0;
  std::size_t count_ = 0;
  std::size_t total_ = 0;
  nb::object keep_;  // the tuple of items, or the (contiguous) array
  Py_buffer array_view_{};
  bool has_array_view_ = false;
};

// The rows of a ByteRows as one batch input (gpu::Operand): the 2-D array's own buffer at a
// fixed stride, else the items gathered end to end, at a fixed stride when all have one
// length, else with offsets. `secret`: the gathered copy is wiped when destroyed.
class PackedRows {
 public:
  PackedRows(const ByteRows& rows, bool secret);
  PackedRows(const PackedRows&) = delete;
  PackedRows& operator=(const PackedRows&) = delete;
  ~PackedRows();
  tempo::gpu::Operand operand() const noexcept;
  std::span<const std::uint8_t> data() const noexcept { return data_; }
  std::span<const std::uint64_t> offsets() const noexcept { return offsets_; }  // empty: fixed stride
  std::size_t stride() const noexcept { return stride_; }

 private:
  std::vector<std::uint8_t> copy_;
  std::vector<std::uint64_t> offsets_;
  std::span<const std::uint8_t> data_;
  std::size_t stride_ = 0;
  bool secret_;
};

// One bytes-like argument (same rules as a ByteRows item).
class ByteView {
 public:
  ByteView(nb::handle obj, const char* what);
  ByteView(const ByteView&) = delete;
  ByteView& operator=(const ByteView&) = delete;
  ~ByteView();
  std::span<const std::uint8_t> span() const noexcept { return span_; }

 private:
  Py_buffer view_{};
  std::span<const std::uint8_t> span_;
};

// A new C-contiguous numpy array of rows x cols elements, owned by Python. Callers check
// the size first (check_output_size).
template <class T>
using Array2 = nb::ndarray<nb::numpy, T, nb::ndim<2>, nb::c_contig>;
template <class T>
Array2<T> new_array(std::size_t rows, std::size_t cols) {
  auto* data = new T[rows * cols == 0 ? 1 : rows * cols]();
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return Array2<T>(data, {rows, cols}, owner);
}

// The Python signature fragments the bindings share (nb::sig text, hence the stubs).
#define TEMPO_PY_BYTES "typing_extensions.Buffer"
#define TEMPO_PY_BYTE_ROWS \
  "numpy.typing.NDArray[numpy.uint8] | collections.abc.Iterable[typing_extensions.Buffer]"
#define TEMPO_PY_BACKEND "backend: str | None = None"

void bind_keccak(nb::module_& m);
#ifdef TEMPO_PY_HAVE_NTT
void bind_ntt(nb::module_& m);
#endif
#ifdef TEMPO_PY_HAVE_FAEST
void bind_faest(nb::module_& m);
#endif
#ifdef TEMPO_PY_HAVE_TFHE
void bind_tfhe(nb::module_& m);
#endif
#ifdef TEMPO_PY_HAVE_PERK
void bind_perk(nb::module_& m);
#endif

}  // namespace tempo_py
