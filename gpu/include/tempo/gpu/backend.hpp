// The backend contract, device discovery, CUDA errors and pinned host memory.
//
// tempo::Backend is the one backend type of every family (Keccak, NTT, TFHE, FAEST), of
// tempo::mpi, tempo-fanout and Python:
//   TEMPO_BACKEND=cpu   forces the CPU path even when a device is present.
//   TEMPO_BACKEND=cuda  requires CUDA ("gpu" is a synonym): a batch call throws
//                       std::runtime_error at once if tempo was built without CUDA or no
//                       device is visible (it never silently falls back).
//   unset / "auto"      the engine's cost model places the batch: the GPU when one is
//                       present and it pays; small batches stay on the CPU; large ones may
//                       be split.
//   Anything else       std::invalid_argument naming the variable and the accepted values.
// Names are case-insensitive. A per-call backend (RunOptions::backend) overrides the
// environment (Backend::auto_select means "let the cost model decide", whatever
// TEMPO_BACKEND says).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tempo {

enum class Backend { auto_select, cpu, cuda };

// "auto" | "cpu" | "cuda" | "gpu" (a synonym of cuda), case-insensitive.
// Throws std::invalid_argument naming the value and the accepted names.
Backend parse_backend(std::string_view name);
std::string_view backend_name(Backend b) noexcept;  // "auto" | "cpu" | "cuda"
// TEMPO_BACKEND: unset or empty -> auto_select. Read on every call (cheap).
Backend backend_from_env();

}  // namespace tempo

namespace tempo::gpu {

bool cuda_compiled() noexcept;  // tempo was built with CUDA
int device_count() noexcept;    // usable devices (CUDA_VISIBLE_DEVICES applies); 0 without CUDA
// Whether `b` can run here: cpu and auto always; cuda when compiled and a device exists.
bool available(Backend b) noexcept;
// Throws std::runtime_error with the reason when `b` cannot run here.
void require(Backend b);

// A failed CUDA runtime call: what() is "<call>: <cudaGetErrorString text> (CUDA error <code>)".
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, std::string call, std::string text);
  int code() const noexcept { return code_; }
  const std::string& call() const noexcept { return call_; }
  const std::string& text() const noexcept { return text_; }
  bool out_of_memory() const noexcept;

 private:
  int code_;
  std::string call_;
  std::string text_;
};

// Page-locked host memory (cudaMallocHost) when CUDA is compiled and a device is
// present, ordinary memory otherwise. Batches whose inputs and output live in pinned
// memory skip the engine's staging copies: the copy engines read and write them directly.
class HostBuffer {
 public:
  HostBuffer() = default;
  explicit HostBuffer(std::size_t bytes);
  HostBuffer(HostBuffer&&) noexcept;
  HostBuffer& operator=(HostBuffer&&) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer();
  std::uint8_t* data() noexcept { return data_; }
  const std::uint8_t* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool pinned() const noexcept { return pinned_; }
  std::span<std::uint8_t> span() noexcept { return {data_, size_}; }
  std::span<const std::uint8_t> span() const noexcept { return {data_, size_}; }
  // Keeps the contents up to min(size, new_size); reallocates only when growing.
  void resize(std::size_t new_size);
  // Frees the memory (size and capacity become 0).
  void release() noexcept;

 private:
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
  bool pinned_ = false;
};

// Creates the shared engine's per-device state now (contexts, streams, staging), so
// that the first batch does not pay for it. Returns the number of devices (0 without CUDA).
int warm_up();

}  // namespace tempo::gpu
