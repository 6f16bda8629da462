// The device side of the engine with CUDA: per device, a few stream threads, each
// driving one Lane (a stream, device buffers, two pinned staging slots), plus one
// direct lane the calling thread uses for batches of a single small chunk, and one
// resident stream for operations over DeviceBatch.
//
// Why threads of our own: staging copies and stream synchronisation are blocking host
// work. Done by tempo workers they would block a worker; done here, the tempo worker
// that offloads only waits on a tempo::Signal (Task::wait runs other work, then sleeps).
// Synchronisation uses blocking-sync events, so a stream thread sleeps rather than
// spins while its chunk is on the device; the direct lane waits like cudaStreamSynchronize.
//
// Pipeline of one stream thread: claim chunk k+1 from the batch's back end, stage it
// (memcpy into pinned slot (k+1)%2 unless the caller's memory is pinned), enqueue
// H2D, the op's launch, D2H, then finish chunk k (wait for its D2H, copy out). With
// several threads per device, copies in, kernels and copies out of different chunks
// overlap (4 for pinned memory; all 12 for pageable, whose staging memcpys need them).
// docs/gpu-engine.md has the whole model and the thread-safety argument.
#include <cuda_runtime.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>

#include "engine_core.hpp"
#include "job.hpp"
#include "tempo/gpu/detail/cuda.hpp"

namespace tempo::gpu::detail {

int launch_copy_bytes(void* stream, const std::uint8_t* in, std::uint8_t* out, std::size_t n);

int visible_devices() noexcept {
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

std::string cuda_error_text(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }
void throw_cuda_error(int code, const char* call) { throw CudaError(code, call, cuda_error_text(code)); }
bool cuda_error_is_oom(int code) noexcept { return code == static_cast<int>(cudaErrorMemoryAllocation); }

bool is_pinned(const void* p, std::size_t n) noexcept {
  if (visible_devices() == 0 || p == nullptr || n == 0) return false;
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

void* host_alloc_pinned(std::size_t n) noexcept {
  if (visible_devices() == 0 || n == 0) return nullptr;
  void* p = nullptr;
  if (cudaMallocHost(&p, n) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void host_free_pinned(void* p) noexcept {
  if (p) cudaFreeHost(p);
}

namespace {

// Staging copies of large chunks: non-temporal stores skip the read-for-ownership of
// the destination and keep the caches for the workers (a staged byte is not read
// again by this CPU). Pageable batches are bound by host memory traffic.
#if defined(__x86_64__)
[[gnu::target("avx2")]] void copy_streaming_avx2(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<std::uint8_t*>(dst);
  const auto* s = static_cast<const std::uint8_t*>(src);
  std::size_t head = (32 - (reinterpret_cast<std::uintptr_t>(d) & 31)) & 31;
  if (head > n) head = n;
  std::memcpy(d, s, head);
  std::size_t i = head;
  for (; i + 128 <= n; i += 128) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 32));
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 64));
    const __m256i e = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i), a);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 32), b);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 64), c);
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + 96), e);
  }
  _mm_sfence();  // the DMA engine (or the next reader) must see every byte
  std::memcpy(d + i, s + i, n - i);
}

#endif

// nt_copy: Tuning::nt_copy (TEMPO_GPU_NT_COPY), honoured where the CPU has AVX2.
void stage_copy(void* dst, const void* src, std::size_t n, bool nt_copy) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (nt_copy && avx2 && n >= (256u << 10)) return copy_streaming_avx2(dst, src, n);
#else
  (void)nt_copy;
#endif
  std::memcpy(dst, src, n);
}

struct Inflight {
  Range r;
  int slot = 0;
  bool timed = true;  // copy and kernel events recorded (not on the direct lane: they cost ~1 us each)
  double staging_in_ms = 0;
  std::vector<std::size_t> skipped;  // committed to the job only once the chunk completed
};

// One stream and its buffers. Used by one thread at a time (its stream thread, or the
// caller holding the direct lane's mutex). The device must be current on that thread.
class Lane {
 public:
  Lane(int device, bool nt_copy) : device_(device), nt_copy_(nt_copy) {}

  // Enqueues chunk r into slot `slot_index`. Throws CudaError.
  Inflight enqueue(Job& job, Range r, int slot_index, bool timed) {
    init();
    Slot& slot = slots_[slot_index];
    const BatchView& v = job.v;
    const std::size_t n = r.size();
    Inflight f{r, slot_index, timed, 0, {}};
    Chunk c;
    c.begin = r.begin;
    c.count = n;
    c.batch = v.n;
    c.inputs = v.inputs;
    c.out_stride = v.out_stride;
    // Plan first (sizes, offsets, skipped items), allocate, then copy: nothing is
    // recorded in the job before every allocation has succeeded.
    std::array<std::size_t, kMaxInputs> bytes{};
    std::array<bool, kMaxInputs> uniform{};
    for (std::size_t k = 0; k < v.inputs; ++k) {
      bytes[k] = static_cast<std::size_t>(v.bytes(k, r.begin, r.end));
      uniform[k] = v.in[k].is_fixed();
      if (!uniform[k]) {
        const auto* off = v.in[k].offsets.data() + r.begin;
        const std::uint64_t first = off[1] - off[0];
        bool same = true;
        for (std::size_t i = 0; i < n && same; ++i) same = off[i + 1] - off[i] == first;
        if (same && (k != 0 || first <= job.max_device_item)) {
          uniform[k] = true;  // a variable input whose chunk items are equal: shown as fixed stride
          c.in[k].stride = static_cast<std::size_t>(first);
        }
      } else {
        c.in[k].stride = v.in[k].stride;
      }
    }
    const std::size_t out_bytes = n * v.out_stride;
    for (std::size_t k = 0; k < v.inputs; ++k) {
      d_in_[k].ensure(bytes[k] + kDevicePadding);
      if (!uniform[k]) {
        d_off_[k].ensure((n + 1) * sizeof(std::uint64_t));
        slot.off[k].ensure((n + 1) * sizeof(std::uint64_t));
      }
      if (!job.in_pinned[k] && bytes[k] > 0) slot.in[k].ensure(bytes[k]);
    }
    d_out_.ensure(std::max<std::size_t>(out_bytes, 16));
    if (!job.out_pinned) slot.out.ensure(out_bytes);

    const cudaStream_t st = stream_->get();
    try {
      if (timed) TEMPO_CUDA(cudaEventRecord(slot.ev[0]->get(), st));
      for (std::size_t k = 0; k < v.inputs; ++k) {
        const std::uint8_t* src = v.in[k].data.data() + v.begin(k, r.begin);
        if (!uniform[k]) {
          auto* rel = static_cast<std::uint64_t*>(slot.off[k].get());
          const auto* off = v.in[k].offsets.data() + r.begin;
          for (std::size_t i = 0; i <= n; ++i) rel[i] = off[i] - off[0];
          if (k == 0)
            for (std::size_t i = 0; i < n; ++i)
              if (rel[i + 1] - rel[i] > job.max_device_item) f.skipped.push_back(r.begin + i);
          TEMPO_CUDA(cudaMemcpyAsync(d_off_[k].get(), rel, (n + 1) * sizeof(std::uint64_t), cudaMemcpyHostToDevice, st));
          c.in[k].offsets = static_cast<const std::uint64_t*>(d_off_[k].get());
        }
        const void* h2d_src = src;
        if (!job.in_pinned[k] && bytes[k] > 0) {
          const auto t0 = Clock::now();
          stage_copy(slot.in[k].get(), src, bytes[k], nt_copy_);
          f.staging_in_ms += ms_between(t0, Clock::now());
          h2d_src = slot.in[k].get();
        }
        if (bytes[k] > 0) TEMPO_CUDA(cudaMemcpyAsync(d_in_[k].get(), h2d_src, bytes[k], cudaMemcpyHostToDevice, st));
        c.in[k].data = static_cast<const std::uint8_t*>(d_in_[k].get());
      }
      if (timed) TEMPO_CUDA(cudaEventRecord(slot.ev[1]->get(), st));
      c.out = static_cast<std::uint8_t*>(d_out_.get());
      check(static_cast<cudaError_t>(job.op->cuda(c, DeviceContext{device_, st})), "BatchOp::cuda launch");
      if (timed) TEMPO_CUDA(cudaEventRecord(slot.ev[2]->get(), st));
      void* dst = job.out_pinned ? static_cast<void*>(v.out + r.begin * v.out_stride) : slot.out.get();
      if (out_bytes > 0) TEMPO_CUDA(cudaMemcpyAsync(dst, c.out, out_bytes, cudaMemcpyDeviceToHost, st));
      if (job.op->holds_secrets()) {
        // Before ev[3]: the chunk is complete only once its secrets are gone from the device.
        for (std::size_t k = 0; k < v.inputs; ++k)
          if (bytes[k] > 0) TEMPO_CUDA(cudaMemsetAsync(d_in_[k].get(), 0, bytes[k], st));
        if (out_bytes > 0) TEMPO_CUDA(cudaMemsetAsync(d_out_.get(), 0, out_bytes, st));
      }
      if (timed) TEMPO_CUDA(cudaEventRecord(slot.ev[3]->get(), st));
    } catch (...) {
      if (job.op->holds_secrets()) scrub_failed_chunk(job, r, slot, bytes, out_bytes);
      throw;
    }
    return f;
  }

  // Waits for the chunk (sleeping; spinning on the direct lane), copies out, records stats.
  void finish(Job& job, Inflight& f) {
    Slot& slot = slots_[f.slot];
    if (f.timed) {
      TEMPO_CUDA(cudaEventSynchronize(slot.ev[3]->get()));  // sleeps: blocking-sync event
    } else {
      // The direct lane, one small chunk: wait as a plain cudaStreamSynchronize does
      // (it spins under the default scheduling); no event to record or query.
      TEMPO_CUDA(cudaStreamSynchronize(stream_->get()));
    }
    const BatchView& v = job.v;
    const std::size_t out_bytes = f.r.size() * v.out_stride;
    double staging_out_ms = 0;
    if (!job.out_pinned && out_bytes > 0) {
      const auto t0 = Clock::now();
      stage_copy(v.out + f.r.begin * v.out_stride, slot.out.get(), out_bytes, nt_copy_);
      staging_out_ms = ms_between(t0, Clock::now());
    }
    if (job.op->holds_secrets()) wipe_staging(job, f.r, slot);
    float h2d = 0, kern = 0, d2h = 0;
    if (f.timed) {
      TEMPO_CUDA(cudaEventElapsedTime(&h2d, slot.ev[0]->get(), slot.ev[1]->get()));
      TEMPO_CUDA(cudaEventElapsedTime(&kern, slot.ev[1]->get(), slot.ev[2]->get()));
      TEMPO_CUDA(cudaEventElapsedTime(&d2h, slot.ev[2]->get(), slot.ev[3]->get()));
    }
    const auto now = Clock::now();
    const double items = static_cast<double>(f.r.size());
    std::lock_guard lock(job.m);
    job.skipped.insert(job.skipped.end(), f.skipped.begin(), f.skipped.end());
    job.copy_in_ms += h2d + f.staging_in_ms;
    job.kernel_ms += kern;
    job.copy_out_ms += d2h + staging_out_ms;
    job.gpu_items += f.r.size();
    job.gpu_chunks += 1;
    job.gpu_work += job.work_per_item * items;
    job.gpu_bytes += static_cast<double>(v.in_bytes(f.r.begin, f.r.end) + out_bytes);
    job.devices_mask |= 1u << (device_ & 31);
    job.gpu_last = now;
  }

  // After a failure: let whatever is queued on the stream drain before reusing buffers.
  void drain() noexcept {
    if (stream_) {
      cudaStreamSynchronize(stream_->get());
      cudaGetLastError();
    }
  }

 private:
  struct Slot {
    std::array<PinnedBuf, kMaxInputs> in, off;
    PinnedBuf out;
    // before H2D, after H2D, after the kernel, after D2H (blocking sync: waiters sleep)
    std::array<std::optional<Event>, 4> ev;
  };

  // A secret-holding op's chunk that failed after its inputs were sent (a launch error, a
  // throwing op): its device copies and staging are zeroed before the error goes up, best
  // effort (a stream in a sticky error state refuses the memsets).
  void scrub_failed_chunk(const Job& job, Range r, Slot& slot, const std::array<std::size_t, kMaxInputs>& bytes,
                          std::size_t out_bytes) noexcept {
    const cudaStream_t st = stream_->get();
    for (std::size_t k = 0; k < job.v.inputs; ++k)
      if (bytes[k] > 0) (void)cudaMemsetAsync(d_in_[k].get(), 0, bytes[k], st);
    if (out_bytes > 0) (void)cudaMemsetAsync(d_out_.get(), 0, out_bytes, st);
    (void)cudaStreamSynchronize(st);  // the copies read the staging until they finish
    (void)cudaGetLastError();
    wipe_staging(job, r, slot);
  }

  // The slot's pinned copies of a secret chunk (its H2D and D2H are done: ev[3] passed).
  // Pinned buffers live on, so these memsets cannot be elided as dead stores.
  static void wipe_staging(const Job& job, Range r, Slot& slot) noexcept {
    const BatchView& v = job.v;
    for (std::size_t k = 0; k < v.inputs; ++k) {
      const auto bytes = static_cast<std::size_t>(v.bytes(k, r.begin, r.end));
      if (!job.in_pinned[k] && bytes > 0) std::memset(slot.in[k].get(), 0, bytes);
    }
    const std::size_t out_bytes = r.size() * v.out_stride;
    if (!job.out_pinned && out_bytes > 0) std::memset(slot.out.get(), 0, out_bytes);
  }

  void init() {
    if (stream_) return;
    stream_.emplace();
    for (auto& s : slots_) {
      for (int i = 0; i < 3; ++i) s.ev[static_cast<std::size_t>(i)].emplace(cudaEventDefault);
      s.ev[3].emplace(cudaEventBlockingSync);
    }
  }

  int device_;
  bool nt_copy_;
  std::optional<Stream> stream_;
  std::array<DeviceBuf, kMaxInputs> d_in_, d_off_;
  DeviceBuf d_out_;
  Slot slots_[2];
};

// Runs one job on a lane until no chunk is left (or the job failed / shutdown).
void drive(Lane& lane, Job& job, const std::atomic<bool>& stopping, bool direct) {
  std::size_t cap_bytes = job.chunk_bytes, cap_items = job.chunk_items;
  std::optional<Inflight> prev;
  int slot = 0;
  try {
    for (;;) {
      if (job.failed() || stopping.load(std::memory_order_acquire)) break;
      const Range r = job.claim_back(cap_bytes, cap_items);
      if (r.empty()) break;
      std::optional<Inflight> cur;
      try {
        cur = lane.enqueue(job, r, slot, /*timed=*/!direct);
      } catch (const CudaError& e) {
        if (!e.out_of_memory()) {
          job.give_back(r);
          throw;
        }
        // Device or pinned memory ran out: the chunk goes to the CPU, our chunks halve.
        lane.drain();
        {
          std::lock_guard lock(job.m);
          job.leftovers.push_back(r);
          job.fell_back = true;
        }
        cap_bytes /= 2;
        cap_items = std::max<std::size_t>(cap_items / 2, 1);
        if (cap_bytes < (64u << 10)) break;  // too small to be worth it: the CPU takes the rest
        continue;
      }
      if (prev) lane.finish(job, *prev);
      prev = std::move(cur);
      slot ^= 1;
    }
    if (prev) lane.finish(job, *prev);
  } catch (...) {
    job.fail(std::current_exception());
    lane.drain();
  }
}

class StreamWorker {
 public:
  StreamWorker(int device, std::size_t rank, bool nt_copy, const std::atomic<bool>& stopping)
      : device_(device), rank_(rank), lane_(device, nt_copy), stopping_(stopping),
        thread_([this] { if (cudaSetDevice(device_) != cudaSuccess) cudaGetLastError(); },
                [this](Job& job) {
                  if (rank_ < job.streams_per_device) drive(lane_, job, stopping_, /*direct=*/false);
                }) {}
  void post(std::shared_ptr<Job> job) { thread_.post(std::move(job)); }

 private:
  int device_;
  std::size_t rank_;  // among its device's stream threads
  Lane lane_;
  const std::atomic<bool>& stopping_;
  JobThread thread_;  // last: its thread uses the members above
};

struct PerDevice {
  std::mutex resident_m;
  std::optional<Stream> resident;  // operations over DeviceBatch, in submission order
};

struct CallbackBox {
  std::function<void(int)> fn;
};
void CUDART_CB on_resident_done(cudaStream_t, cudaError_t status, void* p) {
  std::unique_ptr<CallbackBox> box(static_cast<CallbackBox*>(p));
  box->fn(static_cast<int>(status));
}

class CudaDeviceSide final : public DeviceSide {
 public:
  CudaDeviceSide(const EngineOptions& opt, const Tuning& tuning) : nt_copy_(tuning.nt_copy) {
    int n = visible_devices();
    if (opt.max_devices >= 0) n = std::min(n, opt.max_devices);
    const std::size_t per = tuning.streams_per_device;
    int prev = 0;
    check(cudaGetDevice(&prev), "cudaGetDevice");
    try {
      for (int d = 0; d < n; ++d) {
        TEMPO_CUDA(cudaSetDevice(d));
        // No device-wide flags: the stream threads sleep on blocking-sync events of
        // their own, and the user's other CUDA code keeps the scheduling it chose.
        TEMPO_CUDA(cudaFree(nullptr));  // creates the primary context now (~0.3 s), once
        per_device_.push_back(std::make_unique<PerDevice>());
        for (std::size_t s = 0; s < per; ++s)
          workers_.push_back(std::make_unique<StreamWorker>(d, s, nt_copy_, stopping_));
      }
    } catch (...) {
      cudaSetDevice(prev);  // the constructor leaves the caller's current device as it was
      throw;
    }
    cudaSetDevice(prev);
    devices_ = n;
  }
  ~CudaDeviceSide() override { shutdown(); }

  int devices() const noexcept override { return devices_; }
  std::size_t workers() const noexcept override { return workers_.size(); }

  void post(const std::shared_ptr<Job>& job) override {
    job->pending.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    if (workers_.empty() || stopping_.load(std::memory_order_acquire)) {
      job->mark_finished();  // nothing claimed: the joiner does it all on the CPU
      return;
    }
    for (auto& w : workers_) w->post(job);
  }

  void shutdown() noexcept override {
    stopping_.store(true, std::memory_order_release);
    workers_.clear();  // joins each thread after its current chunk; queued jobs are finished unclaimed
  }

  void* alloc(int device, std::size_t bytes) override {
    DeviceScope scope(device);
    void* p = nullptr;
    TEMPO_CUDA(cudaMalloc(&p, bytes));
    return p;
  }
  void free(int device, void* p) noexcept override {
    if (p == nullptr) return;
    int prev = 0;
    if (cudaGetDevice(&prev) != cudaSuccess) prev = device;
    cudaSetDevice(device);
    cudaFree(p);
    cudaSetDevice(prev);
  }
  void upload(int device, void* dst, const void* src, std::size_t bytes) override {
    DeviceScope scope(device);
    TEMPO_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  void download(int device, void* dst, const void* src, std::size_t bytes) override {
    DeviceScope scope(device);
    TEMPO_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  }

  void launch_resident(int device, const BatchOp& op, const Chunk& chunk, std::function<void(int)> on_done) override {
    PerDevice& pd = *per_device_.at(static_cast<std::size_t>(device));
    DeviceScope scope(device);
    std::lock_guard lock(pd.resident_m);
    if (!pd.resident) pd.resident.emplace();
    const cudaStream_t st = pd.resident->get();
    check(static_cast<cudaError_t>(op.cuda(chunk, DeviceContext{device, st})), "BatchOp::cuda launch");
    auto box = std::make_unique<CallbackBox>(CallbackBox{std::move(on_done)});
    TEMPO_CUDA(cudaStreamAddCallback(st, on_resident_done, box.get(), 0));
    box.release();  // SAFETY: owned by the callback from here on
  }

  Engine::RawRoundTrip raw_round_trip(std::size_t bytes, int reps) override {
    DeviceScope scope(0);
    Stream st;
    PinnedBuf hin, hout;
    DeviceBuf din, dout;
    hin.ensure(bytes);
    hout.ensure(bytes);
    din.ensure(bytes);
    dout.ensure(bytes);
    std::memset(hin.get(), 0x5A, bytes);
    std::vector<double> us;
    for (int i = 0; i < reps + 10; ++i) {
      const auto t0 = Clock::now();
      TEMPO_CUDA(cudaMemcpyAsync(din.get(), hin.get(), bytes, cudaMemcpyHostToDevice, st.get()));
      check(static_cast<cudaError_t>(launch_copy_bytes(st.get(), static_cast<const std::uint8_t*>(din.get()),
                                                       static_cast<std::uint8_t*>(dout.get()), bytes)),
            "launch_copy_bytes");
      TEMPO_CUDA(cudaMemcpyAsync(hout.get(), dout.get(), bytes, cudaMemcpyDeviceToHost, st.get()));
      TEMPO_CUDA(cudaStreamSynchronize(st.get()));
      if (i >= 10) us.push_back(ms_between(t0, Clock::now()) * 1000.0);
    }
    std::sort(us.begin(), us.end());
    Engine::RawRoundTrip r;
    if (!us.empty()) {
      r.p50_us = us[us.size() / 2];
      r.p99_us = us[std::min(us.size() - 1, us.size() * 99 / 100)];
    }
    return r;
  }

  bool run_direct(Job& job) override {
    // Device 0's direct lane (a one-chunk batch gains nothing from another device).
    std::unique_lock lock(direct_m_, std::try_to_lock);
    if (!lock.owns_lock()) return false;  // another caller has it: go through the stream threads
    DeviceScope scope(0);
    if (!direct_) direct_.emplace(0, nt_copy_);
    drive(*direct_, job, stopping_, /*direct=*/true);
    return true;
  }

 private:
  bool nt_copy_;
  int devices_ = 0;
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<PerDevice>> per_device_;
  std::vector<std::unique_ptr<StreamWorker>> workers_;
  std::mutex direct_m_;
  std::optional<Lane> direct_;  // guarded by direct_m_
};

}  // namespace

namespace {

// StreamScratch's pools (cuda.hpp), one per device, and the bytes each keeps mapped.
struct ScratchPools {
  static constexpr int kMaxDevices = 64;
  std::mutex m;
  std::uint64_t keep = Tuning{}.scratch_keep_bytes;
  std::array<cudaMemPool_t, kMaxDevices> pool{};
};
ScratchPools& scratch_pools() {
  static ScratchPools* const p = new ScratchPools;  // never destroyed: pools outlive every stream
  return *p;
}

// The latest engine's TEMPO_GPU_SCRATCH_KEEP_MB, for the pools made and to be made.
void set_scratch_keep(std::uint64_t bytes) noexcept {
  ScratchPools& sp = scratch_pools();
  std::lock_guard lock(sp.m);
  sp.keep = bytes;
  for (cudaMemPool_t p : sp.pool)
    if (p != nullptr) (void)cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &bytes);
}

}  // namespace

cudaError_t scratch_pool(int device, cudaMemPool_t& pool) noexcept {
  ScratchPools& sp = scratch_pools();
  if (device < 0 || device >= ScratchPools::kMaxDevices) return cudaErrorInvalidDevice;
  std::lock_guard lock(sp.m);
  cudaMemPool_t& p = sp.pool[static_cast<std::size_t>(device)];
  if (p == nullptr) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t made = nullptr;
    cudaError_t e = cudaMemPoolCreate(&made, &props);
    if (e == cudaSuccess) e = cudaMemPoolSetAttribute(made, cudaMemPoolAttrReleaseThreshold, &sp.keep);
    if (e != cudaSuccess) {
      if (made != nullptr) cudaMemPoolDestroy(made);
      return e;
    }
    p = made;
  }
  pool = p;
  return cudaSuccess;
}

std::unique_ptr<DeviceSide> make_device_side(const EngineOptions& opt, const Tuning& tuning) {
  if (visible_devices() == 0 || opt.max_devices == 0) return nullptr;
  set_scratch_keep(tuning.scratch_keep_bytes);
  return std::make_unique<CudaDeviceSide>(opt, tuning);
}

}  // namespace tempo::gpu::detail
