// Internal, no stable API: RAII for the CUDA objects tempo owns (device and pinned
// buffers, streams, events, stream-ordered scratch), the error check, and a scoped
// current device. One copy for the engine (gpu/src/engine_cuda.cpp), the workloads'
// kernel launchers (FAEST's and PERK's scratch) and tempo's kernel-only benchmarks
// (bench/apps, bench/ntt). Includes <cuda_runtime.h>, so only CUDA builds use it; plain
// C++17, so nvcc takes it too. Failures throw gpu::CudaError (link tempo::gpu).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <utility>
#include <vector>

namespace tempo::gpu::detail {

// Throws gpu::CudaError(code, call, cudaGetErrorString(code)). Out of line: CudaError's
// header needs C++20.
[[noreturn]] void throw_cuda_error(int code, const char* call);

inline void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the non-sticky error state for the next call
    throw_cuda_error(static_cast<int>(e), call);
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

// Device memory on the device current when it is allocated.
class DeviceBuf {
 public:
  DeviceBuf() = default;
  // Exactly n bytes now, for a buffer that never grows.
  explicit DeviceBuf(std::size_t n) { allocate(n); }
  DeviceBuf(const DeviceBuf&) = delete;
  DeviceBuf& operator=(const DeviceBuf&) = delete;
  ~DeviceBuf() { reset(); }
  // Grows (never shrinks) to at least n bytes, in powers of two: a lane's buffers
  // settle after a few chunks. Throws CudaError (out_of_memory() when full).
  void ensure(std::size_t n) {
    if (n <= cap_) return;
    reset();
    allocate(round_up_pow2(n));
  }
  void reset() noexcept {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    cap_ = 0;
  }
  void* get() const noexcept { return p_; }

 private:
  void allocate(std::size_t n) {
    TEMPO_CUDA(cudaMalloc(&p_, n));
    cap_ = n;
  }
  void* p_ = nullptr;
  std::size_t cap_ = 0;
};

// Page-locked host memory that grows like DeviceBuf::ensure.
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

// A non-blocking stream (it does not synchronise with the legacy default stream).
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

// The memory pool StreamScratch draws from on `device` (gpu/src/engine_cuda.cpp): tempo's
// own, made on first use and kept for the process, so its release threshold is not that of
// the device's default pool (the user's). Freed scratch up to TEMPO_GPU_SCRATCH_KEEP_MB
// (read when an engine is made; default 4 GiB) stays mapped for the next batch: with the
// default pool's threshold (0) the scratch of every batch (about 1 GB for 1,024 FAEST
// signatures) was unmapped at the next synchronisation and mapped again, 1.1 ms each time.
cudaError_t scratch_pool(int device, cudaMemPool_t& pool) noexcept;

// Stream-ordered scratch for a kernel launcher that reports errors as codes (no throw):
// from scratch_pool() on `stream`, then zeroed where it holds secrets (a signer's trees and
// VOLE rows; a verifier's scratch is public and is not) and freed in stream order when it
// goes out of scope, however the launcher returns.
class StreamScratch {
 public:
  StreamScratch(std::size_t n, cudaStream_t stream, cudaError_t& err, bool holds_secrets = true)
      : bytes_(n), s_(stream), wipe_(holds_secrets) {
    int device = 0;
    cudaMemPool_t pool = nullptr;
    err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = scratch_pool(device, pool);
    if (err == cudaSuccess) err = cudaMallocFromPoolAsync(&p_, n, pool, stream);
    if (err != cudaSuccess) p_ = nullptr;
  }
  ~StreamScratch() {
    if (p_ == nullptr) return;
    if (wipe_) (void)cudaMemsetAsync(p_, 0, bytes_, s_);
    (void)cudaFreeAsync(p_, s_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  void* get() const noexcept { return p_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t s_{};
  bool wipe_ = true;
};

// Scratch of a staged kernel launcher: per item, `sizes[k]` bytes in each of K arrays. One
// sub-batch of n items lays array k out as n copies of sizes[k] bytes from a 256-byte
// aligned start.
inline std::uint64_t round256(std::uint64_t x) { return (x + 255) / 256 * 256; }
template <std::size_t K>
std::uint64_t scratch_per_item(const std::array<std::uint64_t, K>& sizes) {
  std::uint64_t sum = 0;
  for (std::uint64_t b : sizes) sum += round256(b);
  return sum;
}

// Runs body(first, n, arrays, err) over sub-batches [first, first + n) of `count` items that
// share one StreamScratch of at most `budget` bytes (at least one item's; zeroed after use
// where `holds_secrets`); arrays[k] is the sub-batch's array k (above). Stops at the first
// error (body sets err); returns it as an int.
template <std::size_t K, class Body>
int for_each_sub_batch(std::size_t count, const std::array<std::uint64_t, K>& sizes, std::uint64_t budget,
                       cudaStream_t stream, bool holds_secrets, Body&& body) {
  const std::uint64_t per = scratch_per_item(sizes);
  if (count == 0 || per == 0) return 0;
  const std::uint64_t sub = std::max<std::uint64_t>(1, std::min<std::uint64_t>(count, budget / per));
  cudaError_t err = cudaSuccess;
  StreamScratch scratch(static_cast<std::size_t>(sub * per), stream, err, holds_secrets);
  if (err != cudaSuccess) return static_cast<int>(err);
  std::array<std::uint8_t*, K> arrays{};
  std::uint8_t* at = static_cast<std::uint8_t*>(scratch.get());
  for (std::size_t k = 0; k < K; ++k) {
    arrays[k] = at;
    at += sub * round256(sizes[k]);
  }
  for (std::uint64_t first = 0; first < count; first += sub) {
    body(first, std::min<std::uint64_t>(sub, count - first), arrays, err);
    if (err != cudaSuccess) return static_cast<int>(err);
  }
  return 0;
}

// A staged launcher's kernels, one per stage value 0 .. N-1: table[i] = make(integral_constant
// i), e.g. make = [](auto i) { return &stage_kernel<Stage(decltype(i)::value)>; }. The
// launcher indexes it by the stage instead of switching over every stage.
template <class Make, std::size_t... I>
auto kernel_table(Make make, std::index_sequence<I...>) {
  return std::array{make(std::integral_constant<std::size_t, I>{})...};
}
template <std::size_t N, class Make>
auto kernel_table(Make make) {
  return kernel_table(make, std::make_index_sequence<N>{});
}

// Per-stage device time of a staged kernel launcher, for tuning (the families' *_GPU_PROFILE
// variables turn it on): when on, mark(stage) after each launch records an event on the
// stream, and report() waits for the last one and prints the chunk's milliseconds per stage
// name to stderr on one line. Off, mark and report do nothing.
class StageProfile {
 public:
  StageProfile(bool on, cudaStream_t stream) : on_(on), s_(stream) {
    if (on_) mark_event();
  }
  ~StageProfile() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  StageProfile(const StageProfile&) = delete;
  StageProfile& operator=(const StageProfile&) = delete;

  void mark(unsigned stage) {
    if (!on_) return;
    if (mark_event()) stages_.push_back(stage);
  }
  // names[i]: stage i's name, i < n_names.
  void report(const char* what, std::uint64_t items, const char* const* names, unsigned n_names) {
    if (!on_ || events_.size() != stages_.size() + 1 || cudaEventSynchronize(events_.back()) != cudaSuccess) return;
    std::vector<float> total(n_names, 0.0f);
    for (std::size_t i = 0; i < stages_.size(); ++i) {
      float ms = 0;
      cudaEventElapsedTime(&ms, events_[i], events_[i + 1]);
      if (stages_[i] < n_names) total[stages_[i]] += ms;
    }
    std::fprintf(stderr, "%s stage: %llu items:", what, static_cast<unsigned long long>(items));
    for (unsigned i = 0; i < n_names; ++i) std::fprintf(stderr, " %s %.2f", names[i], double(total[i]));
    std::fprintf(stderr, " ms\n");
  }

 private:
  bool mark_event() {
    cudaEvent_t e;
    if (cudaEventCreate(&e) != cudaSuccess) return false;
    cudaEventRecord(e, s_);
    events_.push_back(e);
    return true;
  }
  bool on_ = false;
  cudaStream_t s_{};
  std::vector<cudaEvent_t> events_;
  std::vector<unsigned> stages_;
};

}  // namespace tempo::gpu::detail
