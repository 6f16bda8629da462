// The CUDA engine: per device, a few stream threads, each with its own stream,
// device buffers and two pinned staging slots, created on first use and kept for
// the life of the process.
//
// Why threads of our own: staging copies and stream synchronisation are blocking host
// work. Done by tempo workers they would block a worker; done here, the tempo worker
// that offloads only waits on a tempo::Signal (Task::wait runs other work, then sleeps).
// Synchronisation uses blocking-sync events (cudaDeviceScheduleBlockingSync), so an
// engine thread sleeps rather than spins while its chunk is on the device.
//
// Pipeline of one stream thread: claim chunk k+1 from the batch's back end, stage it
// (memcpy into pinned slot (k+1)%2 unless the caller's memory is pinned), enqueue
// H2D, kernel, D2H, then finish chunk k (wait for its D2H, copy out). With 4 threads
// per device, copies in, kernels and copies out of different chunks overlap.
#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engine.hpp"
#include "kernels.hpp"
#include "tempo/gpu/gpu.hpp"

namespace tempo::gpu::detail {
namespace {

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state for the next call
    throw CudaError(static_cast<int>(e), call, cudaGetErrorString(e));
  }
}
#define TEMPO_CUDA(call) check((call), #call)

bool is_oom(const CudaError& e) { return e.code() == static_cast<int>(cudaErrorMemoryAllocation); }

std::size_t streams_per_device() {
  if (const char* s = std::getenv("TEMPO_GPU_STREAMS")) {
    const int v = std::atoi(s);
    if (v >= 1 && v <= 32) return static_cast<std::size_t>(v);
  }
  return 4;
}

std::size_t round_up(std::size_t n) {
  std::size_t c = 1 << 16;
  while (c < n) c <<= 1;
  return c;
}

struct DeviceBuf {
  void* p = nullptr;
  std::size_t cap = 0;
  // Grows to at least n bytes; throws CudaError (cudaErrorMemoryAllocation when full).
  void ensure(std::size_t n) {
    if (n <= cap) return;
    if (p) cudaFree(p);
    p = nullptr;
    cap = 0;
    const std::size_t want = round_up(n);
    TEMPO_CUDA(cudaMalloc(&p, want));
    cap = want;
  }
};

struct PinnedBuf {
  void* p = nullptr;
  std::size_t cap = 0;
  void ensure(std::size_t n) {
    if (n <= cap) return;
    if (p) cudaFreeHost(p);
    p = nullptr;
    cap = 0;
    const std::size_t want = round_up(n);
    TEMPO_CUDA(cudaMallocHost(&p, want));
    cap = want;
  }
};

struct Slot {
  PinnedBuf in, out, off;
  cudaEvent_t ev[4]{};  // before H2D, after H2D, after kernel, after D2H
};

struct Inflight {
  Range r;
  int slot = 0;
  double staging_in_ms = 0;
};

class StreamWorker {
 public:
  StreamWorker(int device) : device_(device), thread_([this] { loop(); }) {}
  ~StreamWorker() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void post(std::shared_ptr<Job> job) {
    {
      std::lock_guard lock(m_);
      queue_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (stop_ && queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      try {
        process(*job);
      } catch (...) {
        job->fail(std::current_exception());
        if (ready_) {  // drain whatever is still queued on our stream before reusing its buffers
          cudaStreamSynchronize(stream_);
          cudaGetLastError();
        }
      }
      if (job->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) job->mark_finished();
    }
  }

  void init() {
    if (ready_) return;
    TEMPO_CUDA(cudaSetDevice(device_));
    TEMPO_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    for (auto& s : slots_) {
      for (int i = 0; i < 3; ++i) TEMPO_CUDA(cudaEventCreate(&s.ev[i]));
      TEMPO_CUDA(cudaEventCreateWithFlags(&s.ev[3], cudaEventBlockingSync));
    }
    d_in_.ensure(1 << 20);
    d_out_.ensure(1 << 20);
    d_off_.ensure(1 << 16);
    ready_ = true;
  }

  void process(Job& job) {
    init();
    std::size_t cap_in = job.chunk_in, cap_items = job.chunk_items;
    std::optional<Inflight> prev;
    int slot = 0;
    for (;;) {
      if (job.failed()) break;
      const Range r = job.claim_back(cap_in, cap_items);
      if (r.empty()) break;
      std::optional<Inflight> cur;
      try {
        cur = enqueue(job, r, slot);
      } catch (const CudaError& e) {
        if (!is_oom(e)) throw;
        // Device or pinned memory ran out: give the chunk to the CPU, halve our chunks.
        std::lock_guard lock(job.m);
        job.leftovers.push_back(r);
        job.fell_back = true;
        cap_in /= 2;
        cap_items = std::max<std::size_t>(cap_items / 2, 1);
        if (cap_in < (64u << 10)) break;  // too small to be worth it: the CPU takes the rest
        continue;
      }
      if (prev) finish(job, *prev);
      prev = cur;
      slot ^= 1;
    }
    if (prev) finish(job, *prev);
  }

  Inflight enqueue(Job& job, Range r, int slot_index) {
    Slot& slot = slots_[slot_index];
    const View& in = job.in;
    const std::size_t n = r.size();
    const std::uint64_t base = in.begin(r.begin);
    const std::size_t in_bytes = static_cast<std::size_t>(in.bytes(r.begin, r.end));
    const std::size_t out_bytes = n * job.out_bytes;
    const std::uint8_t* src = in.data + base;

    // Variable lengths: chunk-relative 32-bit offsets; uniform chunks use the fixed kernel.
    bool fixed = in.fixed();
    std::size_t msg_len = in.msg_len;
    if (!fixed) {
      slot.off.ensure((n + 1) * sizeof(std::uint32_t));
      auto* rel = static_cast<std::uint32_t*>(slot.off.p);
      const std::uint64_t first_len = in.offsets[r.begin + 1] - in.offsets[r.begin];
      bool uniform = true;
      std::vector<std::size_t> skipped;
      for (std::size_t i = 0; i <= n; ++i) {
        rel[i] = static_cast<std::uint32_t>(in.offsets[r.begin + i] - base);
        if (i < n) {
          const std::uint64_t len = in.offsets[r.begin + i + 1] - in.offsets[r.begin + i];
          uniform = uniform && len == first_len;
          if (len > job.max_gpu_len) skipped.push_back(r.begin + i);
        }
      }
      if (!skipped.empty()) {
        std::lock_guard lock(job.m);
        job.skipped.insert(job.skipped.end(), skipped.begin(), skipped.end());
      }
      if (uniform && first_len <= job.max_gpu_len) {
        fixed = true;
        msg_len = static_cast<std::size_t>(first_len);
      }
    }

    d_in_.ensure(in_bytes + kLoadPadding);
    d_out_.ensure(std::max<std::size_t>(out_bytes, 16));
    if (!fixed) d_off_.ensure((n + 1) * sizeof(std::uint32_t));

    Inflight f{r, slot_index, 0};
    const void* h2d_src = src;
    if (!job.in_pinned && in_bytes > 0) {
      slot.in.ensure(in_bytes);
      const auto t0 = Clock::now();
      std::memcpy(slot.in.p, src, in_bytes);
      f.staging_in_ms = ms_between(t0, Clock::now());
      h2d_src = slot.in.p;
    }
    if (!job.out_pinned) slot.out.ensure(out_bytes);

    TEMPO_CUDA(cudaEventRecord(slot.ev[0], stream_));
    if (in_bytes > 0)
      TEMPO_CUDA(cudaMemcpyAsync(d_in_.p, h2d_src, in_bytes, cudaMemcpyHostToDevice, stream_));
    if (!fixed)
      TEMPO_CUDA(cudaMemcpyAsync(d_off_.p, slot.off.p, (n + 1) * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                                 stream_));
    TEMPO_CUDA(cudaEventRecord(slot.ev[1], stream_));
    const auto* d_in = static_cast<const std::uint8_t*>(d_in_.p);
    auto* d_out = static_cast<std::uint8_t*>(d_out_.p);
    if (fixed)
      check(static_cast<cudaError_t>(launch_fixed(stream_, d_in, msg_len, d_out, n, job.spec)), "launch_fixed");
    else
      check(static_cast<cudaError_t>(launch_var(stream_, d_in, static_cast<const std::uint32_t*>(d_off_.p), d_out,
                                                n, job.max_gpu_len, job.spec)),
            "launch_var");
    TEMPO_CUDA(cudaEventRecord(slot.ev[2], stream_));
    void* dst = job.out_pinned ? static_cast<void*>(job.out + r.begin * job.out_bytes) : slot.out.p;
    TEMPO_CUDA(cudaMemcpyAsync(dst, d_out, out_bytes, cudaMemcpyDeviceToHost, stream_));
    TEMPO_CUDA(cudaEventRecord(slot.ev[3], stream_));
    {
      std::lock_guard lock(job.m);
      if (!job.gpu_started) {
        job.gpu_started = true;
        job.gpu_first = Clock::now();
      }
    }
    return f;
  }

  void finish(Job& job, const Inflight& f) {
    Slot& slot = slots_[f.slot];
    TEMPO_CUDA(cudaEventSynchronize(slot.ev[3]));  // sleeps: blocking-sync event
    double staging_out_ms = 0;
    const std::size_t out_bytes = f.r.size() * job.out_bytes;
    if (!job.out_pinned) {
      const auto t0 = Clock::now();
      std::memcpy(job.out + f.r.begin * job.out_bytes, slot.out.p, out_bytes);
      staging_out_ms = ms_between(t0, Clock::now());
    }
    float h2d = 0, kern = 0, d2h = 0;
    TEMPO_CUDA(cudaEventElapsedTime(&h2d, slot.ev[0], slot.ev[1]));
    TEMPO_CUDA(cudaEventElapsedTime(&kern, slot.ev[1], slot.ev[2]));
    TEMPO_CUDA(cudaEventElapsedTime(&d2h, slot.ev[2], slot.ev[3]));
    const auto now = Clock::now();
    std::lock_guard lock(job.m);
    job.copy_in_ms += h2d + f.staging_in_ms;
    job.kernel_ms += kern;
    job.copy_out_ms += d2h + staging_out_ms;
    job.gpu_items += f.r.size();
    job.gpu_chunks += 1;
    job.gpu_bytes += static_cast<double>(job.in.bytes(f.r.begin, f.r.end) + out_bytes);
    job.devices_mask |= 1u << (device_ & 31);
    job.gpu_last = now;
  }

  int device_;
  bool ready_ = false;
  cudaStream_t stream_{};
  DeviceBuf d_in_, d_out_, d_off_;
  Slot slots_[2];
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

class Engine {
 public:
  Engine() {
    const int n = engine_device_count();
    for (int d = 0; d < n; ++d) {
      // Blocking sync before the context exists (later it may be refused, harmlessly).
      if (cudaSetDevice(d) != cudaSuccess) continue;
      if (cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) cudaGetLastError();
      TEMPO_CUDA(cudaFree(nullptr));  // creates the primary context now (~0.3 s), once
      for (std::size_t s = 0; s < streams_per_device(); ++s) workers_.push_back(std::make_unique<StreamWorker>(d));
    }
  }
  void post(const std::shared_ptr<Job>& job) {
    job->pending.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    if (workers_.empty()) {
      job->mark_finished();
      return;
    }
    for (auto& w : workers_) w->post(job);
  }
  std::size_t workers() const { return workers_.size(); }

 private:
  std::vector<std::unique_ptr<StreamWorker>> workers_;
};

// Leaked on purpose: destroying CUDA objects from static destructors races the
// runtime's own teardown at exit.
Engine& engine() {
  static Engine* e = new Engine();
  return *e;
}

}  // namespace

int engine_device_count() noexcept {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    return n;
  }();
  return count;
}

int engine_warm_up() {
  if (engine_device_count() == 0) return 0;
  engine();
  return engine_device_count();
}

std::size_t engine_workers() { return engine_device_count() == 0 ? 0 : engine().workers(); }

void engine_post(const std::shared_ptr<Job>& job) { engine().post(job); }

bool engine_is_pinned(const void* p, std::size_t n) noexcept {
  if (engine_device_count() == 0 || p == nullptr || n == 0) return false;
  auto pinned = [](const void* q) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, q) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    return attr.type == cudaMemoryTypeHost;
  };
  return pinned(p) && pinned(static_cast<const std::uint8_t*>(p) + (n - 1));
}

void* engine_host_alloc(std::size_t n) noexcept {
  if (engine_device_count() == 0 || n == 0) return nullptr;
  try {
    engine();
  } catch (...) {
    return nullptr;
  }
  void* p = nullptr;
  if (cudaMallocHost(&p, n) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void engine_host_free(void* p) noexcept {
  if (p) cudaFreeHost(p);
}

double engine_kernel_only_ms(const SpongeSpec& s, std::size_t msg_len, std::size_t n, int variant, int reps,
                             std::size_t sample, std::vector<std::uint8_t>* inputs,
                             std::vector<std::uint8_t>* digests) {
  if (engine_device_count() == 0) throw std::runtime_error("tempo::gpu: no CUDA device");
  engine();
  TEMPO_CUDA(cudaSetDevice(0));
  const std::size_t in_bytes = msg_len * n, out_bytes = static_cast<std::size_t>(s.out_bytes) * n;
  // Keccak's speed does not depend on the data: only the first `sample` messages get
  // pseudo-random contents (for checking); the rest is a memset on the device.
  const std::size_t k = std::min(n, sample);
  std::vector<std::uint8_t> host(k * msg_len);
  std::uint64_t x = 0x9E3779B97F4A7C15ULL;  // splitmix64: deterministic contents
  for (auto& b : host) {
    x += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    b = static_cast<std::uint8_t>(z ^ (z >> 31));
  }
  DeviceBuf din, dout;
  din.ensure(in_bytes + kLoadPadding);
  dout.ensure(std::max<std::size_t>(out_bytes, 16));
  cudaStream_t st;
  TEMPO_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  TEMPO_CUDA(cudaEventCreate(&e0));
  TEMPO_CUDA(cudaEventCreate(&e1));
  std::vector<float> times;
  try {
    if (in_bytes) TEMPO_CUDA(cudaMemset(din.p, 0x5A, in_bytes));
    if (!host.empty()) TEMPO_CUDA(cudaMemcpy(din.p, host.data(), host.size(), cudaMemcpyHostToDevice));
    auto launch = [&] {
      check(static_cast<cudaError_t>(launch_fixed_variant(variant, st, static_cast<const std::uint8_t*>(din.p),
                                                          msg_len, static_cast<std::uint8_t*>(dout.p), n, s)),
            "launch_fixed_variant");
    };
    launch();  // warm-up
    TEMPO_CUDA(cudaStreamSynchronize(st));
    for (int i = 0; i < reps; ++i) {
      TEMPO_CUDA(cudaEventRecord(e0, st));
      launch();
      TEMPO_CUDA(cudaEventRecord(e1, st));
      TEMPO_CUDA(cudaEventSynchronize(e1));
      float ms = 0;
      TEMPO_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      times.push_back(ms);
    }
    if (digests) {
      digests->resize(k * s.out_bytes);
      if (!digests->empty())
        TEMPO_CUDA(cudaMemcpy(digests->data(), dout.p, digests->size(), cudaMemcpyDeviceToHost));
    }
    if (inputs) *inputs = host;
  } catch (...) {
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(st);
    cudaFree(din.p);
    cudaFree(dout.p);
    throw;
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(st);
  cudaFree(din.p);
  cudaFree(dout.p);
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace tempo::gpu::detail
