// tempo::gpu: batch Keccak hashing as a tempo task operation, offloaded to every
// visible CUDA device when that pays, on the CPU workers otherwise (or both).
//
// Backend contract (the same three lines as the Lux FHE runtime's env override):
//   TEMPO_BACKEND=cpu   forces the CPU path even when a device is present.
//   TEMPO_BACKEND=cuda  requires CUDA: hash_batch throws std::runtime_error at once
//                       if tempo was built without CUDA or no device is visible
//                       (it never silently falls back).
//   unset / "auto"      uses the GPU when one is present and the cost model says it
//                       pays; small batches stay on the CPU; large ones may be split.
//   Anything else       std::invalid_argument naming the value.
// A per-call override is the `backend` argument (Backend::auto_select defers to
// nothing: it means "let the cost model decide", whatever the environment says).
//
// Results are byte-identical whichever backend runs: the CPU path is
// tempo::crypto::hash_batch_cpu; the GPU kernels are checked against it.
//
// Usage:
//   tempo::ThreadPool pool;
//   pool.run([&](tempo::Task& t) {
//     auto report = tempo::gpu::hash_batch(t, Algorithm::shake256, batch, 32, out);
//     // report.ran_on: "cpu" | "cuda" | "split"; report.copy_in_ms, ...
//   });
// While the GPU works, the calling worker does its CPU share (if any) and then
// waits with Task::wait, which runs other tempo work and then sleeps; it never spins.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <tempo/crypto/keccak.hpp>
#include <tempo/tempo.hpp>

namespace tempo::gpu {

enum class Backend { auto_select, cpu, cuda };

// "auto" | "cpu" | "cuda" (exact, lower case). Throws std::invalid_argument naming the value.
Backend parse_backend(std::string_view name);
std::string_view backend_name(Backend b) noexcept;
// TEMPO_BACKEND: unset or empty -> auto_select. Read on every call (cheap).
Backend backend_from_env();

bool cuda_compiled() noexcept;  // tempo was built with CUDA
int device_count() noexcept;    // usable devices; 0 when not compiled or none visible
// Whether `b` can run here: cpu and auto always; cuda when compiled and a device exists.
bool available(Backend b) noexcept;
// Throws std::runtime_error with the reason when `b` cannot run here.
void require(Backend b);

// A failed CUDA runtime call: what() is "<call>: <cudaGetErrorString text> (<code>)".
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, std::string call, std::string text);
  int code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& text() const noexcept { return text_; }

 private:
  int code_;
  std::string call_;
  std::string text_;
};

// Where one batch ran and what it cost. Millisecond sums over chunks: chunks on
// different streams overlap, so copy_in_ms + kernel_ms + copy_out_ms can exceed
// total_ms (that overlap is the point of the pipeline).
struct BatchReport {
  const char* ran_on = "cpu";  // "cpu" | "cuda" | "split"
  std::size_t items = 0;
  std::size_t cpu_items = 0;
  std::size_t gpu_items = 0;
  std::size_t gpu_chunks = 0;
  int devices_used = 0;
  double copy_in_ms = 0;   // host->device copies (CUDA events), plus staging memcpy when pageable
  double kernel_ms = 0;    // kernels (CUDA events)
  double copy_out_ms = 0;  // device->host copies (CUDA events), plus staging memcpy when pageable
  double cpu_ms = 0;       // wall time of the CPU share (0 when none)
  double total_ms = 0;     // wall time of the whole call
  bool fell_back = false;  // device memory ran out: smaller chunks or CPU took over
  std::string reason;      // why this placement, e.g. "cost model: cpu 0.08 ms < gpu 0.31 ms"
};

// A batch of equal-length messages laid end to end: message i is
// data[i*msg_len, (i+1)*msg_len). Needs no offsets array (8 bytes/message saved).
struct FixedBatch {
  std::span<const std::uint8_t> data;
  std::size_t msg_len = 0;
  std::size_t count = 0;
  void validate() const;  // std::invalid_argument when data.size() != msg_len * count
};

// Hashes every message of `batch` into out[i*out_bytes, (i+1)*out_bytes).
// out_bytes: any value >= 1 for XOFs; the digest size for SHA3-*. out.size() must be
// batch.size()*out_bytes. Bad arguments: std::invalid_argument. CUDA failures:
// CudaError (never a wrong answer). KT128/KT256 always run on the CPU (no GPU kernel;
// BatchReport::reason says so), also under Backend::cuda once the device check passed.
BatchReport hash_batch(Task& t, crypto::Algorithm a, const crypto::MessageBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out, Backend backend);
BatchReport hash_batch(Task& t, crypto::Algorithm a, const crypto::MessageBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out);  // backend_from_env()
BatchReport hash_batch(Task& t, crypto::Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out, Backend backend);
BatchReport hash_batch(Task& t, crypto::Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out);  // backend_from_env()

namespace detail {
struct Job;
}
class OffloadAccess;

// The async form: submit() starts the GPU part and returns at once; join() waits
// like a fork join (Task::wait: other tempo work runs meanwhile) and returns the
// report or rethrows the batch's error. When the batch is placed on the CPU, the
// hashing happens inside join() on the joining worker's pool. The caller keeps the
// batch's memory and `out` alive and untouched until join() returns. An Offload
// destroyed unjoined blocks until the device work is over (memory safety), and
// drops its result.
class Offload {
 public:
  Offload() = default;
  Offload(Offload&&) noexcept;
  Offload& operator=(Offload&&) noexcept;
  ~Offload();
  bool valid() const noexcept { return job_ != nullptr; }
  bool ready() const noexcept;  // join() would not wait
  BatchReport join(Task& t);

 private:
  friend class OffloadAccess;
  std::shared_ptr<detail::Job> job_;
};

Offload submit(Task& t, crypto::Algorithm a, const crypto::MessageBatch& batch, std::size_t out_bytes,
               std::span<std::uint8_t> out, Backend backend = backend_from_env());
Offload submit(Task& t, crypto::Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
               std::span<std::uint8_t> out, Backend backend = backend_from_env());

// Page-locked host memory (cudaMallocHost) when CUDA is compiled and a device is
// present, ordinary memory otherwise. Batches whose input and output live in pinned
// memory skip the engine's staging copies: the copy engines read and write them directly.
class HostBuffer {
 public:
  HostBuffer() = default;
  explicit HostBuffer(std::size_t bytes);
  HostBuffer(HostBuffer&&) noexcept;
  HostBuffer& operator=(HostBuffer&&) noexcept;
  ~HostBuffer();
  std::uint8_t* data() noexcept { return data_; }
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  bool pinned() const noexcept { return pinned_; }
  std::span<std::uint8_t> span() noexcept { return {data_, size_}; }
  // Keeps the contents up to min(size, new_size); reallocates only when growing.
  void resize(std::size_t new_size);

 private:
  void release() noexcept;
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  bool pinned_ = false;
};

// Whether the algorithm has GPU kernels (all but KT128/KT256).
bool gpu_supports(crypto::Algorithm a) noexcept;

// Creates the engines of every device now (context, streams, staging buffers), so
// that the first batch does not pay for it. Returns the number of devices. No-op
// (0) without CUDA. hash_batch does this itself on first GPU use.
int warm_up();

}  // namespace tempo::gpu
