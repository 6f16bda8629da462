// RAII for the CUDA objects the engine owns, and the error check. Internal header,
// compiled only with CUDA.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "tempo/gpu/backend.hpp"

namespace tempo::gpu::detail {

inline void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the non-sticky error state for the next call
    throw CudaError(static_cast<int>(e), call, cudaGetErrorString(e));
  }
}
#define TEMPO_CUDA(call) ::tempo::gpu::detail::check((call), #call)

// Makes `device` current for the scope and restores the thread's previous device.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    check(cudaGetDevice(&prev_), "cudaGetDevice");
    if (prev_ != device) check(cudaSetDevice(device), "cudaSetDevice");
  }
  ~DeviceScope() { cudaSetDevice(prev_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int prev_ = 0;
};

inline std::size_t round_up_pow2(std::size_t n) {
  std::size_t c = std::size_t{1} << 16;
  while (c < n) c <<= 1;
  return c;
}

// Device memory that grows (never shrinks) on the device current at ensure().
class DeviceBuf {
 public:
  DeviceBuf() = default;
  DeviceBuf(const DeviceBuf&) = delete;
  DeviceBuf& operator=(const DeviceBuf&) = delete;
  ~DeviceBuf() { reset(); }
  void ensure(std::size_t n) {  // throws CudaError (out_of_memory() when full)
    if (n <= cap_) return;
    reset();
    const std::size_t want = round_up_pow2(n);
    TEMPO_CUDA(cudaMalloc(&p_, want));
    cap_ = want;
  }
  void reset() noexcept {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    cap_ = 0;
  }
  void* get() const noexcept { return p_; }

 private:
  void* p_ = nullptr;
  std::size_t cap_ = 0;
};

class PinnedBuf {
 public:
  PinnedBuf() = default;
  PinnedBuf(const PinnedBuf&) = delete;
  PinnedBuf& operator=(const PinnedBuf&) = delete;
  ~PinnedBuf() { reset(); }
  void ensure(std::size_t n) {
    if (n <= cap_) return;
    reset();
    const std::size_t want = round_up_pow2(n);
    TEMPO_CUDA(cudaMallocHost(&p_, want));
    cap_ = want;
  }
  void reset() noexcept {
    if (p_) cudaFreeHost(p_);
    p_ = nullptr;
    cap_ = 0;
  }
  void* get() const noexcept { return p_; }

 private:
  void* p_ = nullptr;
  std::size_t cap_ = 0;
};

class Stream {
 public:
  Stream() { TEMPO_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const noexcept { return s_; }

 private:
  cudaStream_t s_{};
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) { TEMPO_CUDA(cudaEventCreateWithFlags(&e_, flags)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const noexcept { return e_; }

 private:
  cudaEvent_t e_{};
};

}  // namespace tempo::gpu::detail
