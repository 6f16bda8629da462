// Shared pieces of the Python module: the module-level pool, backend names, byte-like
// argument views, and the numpy result arrays.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

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

// The pool every call runs on. Callers hold the shared_ptr for the whole call, so
// set_threads() may replace the pool while other Python threads are still using the old one.
std::shared_ptr<tempo::ThreadPool> pool();
void set_threads(std::size_t n);  // 0 = TEMPO_THREADS, else all hardware threads
std::size_t threads();
void shutdown();  // drops the pool (atexit): threads are joined before the interpreter goes
void after_fork_child();  // os.register_at_fork: a fresh pool in a forked child

// "auto" (the module default: set_backend(), else TEMPO_BACKEND, else the cost model),
// "cpu" or "cuda". TypeError for a non-str, ValueError naming the value otherwise.
tempo::Backend backend_arg(nb::handle backend);
void set_default_backend(nb::handle backend);  // None or "auto" restores TEMPO_BACKEND
std::string default_backend_name();
// The last batch report of the calling thread (tempo.last_report()).
void record_report(const tempo::gpu::BatchReport& r);
nb::dict last_report();

// str(obj) as Python computes it.
std::string py_str(nb::handle h);
// str argument or TypeError naming the argument.
std::string str_arg(nb::handle h, const char* what);
// Python int in [lo, hi] or TypeError/ValueError naming the argument.
long long int_arg(nb::handle h, const char* what, long long lo, long long hi);

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

// A new C-contiguous numpy array of rows x cols elements, owned by Python.
using U8Array = nb::ndarray<nb::numpy, std::uint8_t, nb::ndim<2>, nb::c_contig>;
using U64Array = nb::ndarray<nb::numpy, std::uint64_t, nb::ndim<2>, nb::c_contig>;
template <class T>
nb::ndarray<nb::numpy, T, nb::ndim<2>, nb::c_contig> new_array(std::size_t rows, std::size_t cols) {
  auto* data = new T[rows * cols == 0 ? 1 : rows * cols]();
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return nb::ndarray<nb::numpy, T, nb::ndim<2>, nb::c_contig>(data, {rows, cols}, owner);
}

void bind_hash(nb::module_& m);
#ifdef TEMPO_PY_HAVE_NTT
void bind_ntt(nb::module_& m);
#endif
#ifdef TEMPO_PY_HAVE_FAEST
void bind_faest(nb::module_& m);
#endif
#ifdef TEMPO_PY_HAVE_TFHE
void bind_tfhe(nb::module_& m);
#endif

}  // namespace tempo_py
