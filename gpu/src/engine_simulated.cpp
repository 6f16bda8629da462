// Simulated devices for tests (EngineOptions::simulated_devices): each "device" is a
// thread that claims chunks from the back of a job like a stream thread and computes
// them with the op's CPU code, in host memory. They exercise the multi-device paths
// (claiming across devices, devices_used, per-device faults, out-of-memory fallback,
// resident batches, constants) on machines with fewer GPUs than the code supports.
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "engine_core.hpp"
#include "job.hpp"

namespace tempo::gpu::detail {
namespace {

constexpr int kOutOfMemory = 2;  // cudaErrorMemoryAllocation

class SimDevice {
 public:
  SimDevice(int device, const EngineOptions& opt, const std::atomic<bool>& stopping)
      : device_(device), opt_(opt), stopping_(stopping), thread_(nullptr, [this](Job& job) { run(job); }) {}
  void post(std::shared_ptr<Job> job) { thread_.post(std::move(job)); }

 private:
  void run(Job& job) {
    while (!job.failed() && !stopping_.load(std::memory_order_acquire)) {
      const Range r = job.claim_back(job.chunk_bytes, job.chunk_items);
      if (r.empty()) return;
      if (device_ == opt_.simulated_failing_device) {
        if (opt_.simulated_failure_code == kOutOfMemory) {  // as a real lane: the CPU takes it
          std::lock_guard lock(job.m);
          job.leftovers.push_back(r);
          job.fell_back = true;
          return;
        }
        job.give_back(r);
        job.fail(std::make_exception_ptr(CudaError(opt_.simulated_failure_code, "simulated device " +
                                                   std::to_string(device_), "injected failure")));
        return;
      }
      try {
        job.op->cpu(job.v.host_chunk(r));
      } catch (...) {
        job.fail(std::current_exception());
        return;
      }
      std::lock_guard lock(job.m);
      job.gpu_items += r.size();
      job.gpu_chunks += 1;
      job.gpu_work += job.work_per_item * static_cast<double>(r.size());
      job.gpu_bytes += static_cast<double>(job.v.in_bytes(r.begin, r.end) + r.size() * job.v.out_stride);
      job.devices_mask |= 1u << (device_ & 31);
      job.gpu_last = Clock::now();
    }
  }

  int device_;
  const EngineOptions& opt_;
  const std::atomic<bool>& stopping_;
  JobThread thread_;  // last: its thread uses the members above
};

class SimulatedDeviceSide final : public DeviceSide {
 public:
  explicit SimulatedDeviceSide(const EngineOptions& opt) : opt_(opt) {
    for (int d = 0; d < opt.simulated_devices; ++d) devices_.push_back(std::make_unique<SimDevice>(d, opt_, stopping_));
  }
  ~SimulatedDeviceSide() override { shutdown(); }
  int devices() const noexcept override { return opt_.simulated_devices; }
  std::size_t workers() const noexcept override { return devices_.size(); }
  bool simulated() const noexcept override { return true; }
  void post(const std::shared_ptr<Job>& job) override {
    job->pending.store(static_cast<int>(devices_.size()), std::memory_order_relaxed);
    if (devices_.empty() || stopping_.load(std::memory_order_acquire)) {
      job->mark_finished();
      return;
    }
    for (auto& d : devices_) d->post(job);
  }
  bool run_direct(Job&) override { return false; }  // always through the device threads
  void shutdown() noexcept override {
    stopping_.store(true, std::memory_order_release);
    devices_.clear();
  }
  void* alloc(int device, std::size_t bytes) override {
    if (device == opt_.simulated_failing_device && opt_.simulated_failure_code == kOutOfMemory)
      throw CudaError(kOutOfMemory, "simulated cudaMalloc", "out of memory");
    void* p = std::malloc(std::max<std::size_t>(bytes, 1));
    if (p == nullptr) throw CudaError(kOutOfMemory, "simulated cudaMalloc", "out of memory");
    return p;
  }
  void free(int, void* p) noexcept override { std::free(p); }
  void upload(int, void* dst, const void* src, std::size_t bytes) override { if (bytes > 0) std::memcpy(dst, src, bytes); }
  void download(int, void* dst, const void* src, std::size_t bytes) override { if (bytes > 0) std::memcpy(dst, src, bytes); }
  void launch_resident(int, const BatchOp& op, const Chunk& chunk, std::function<void(int)> on_done) override {
    op.cpu(chunk);  // host memory: the op's CPU code is the simulated kernel
    on_done(0);
  }
  Engine::RawRoundTrip raw_round_trip(std::size_t, int) override {
    throw std::runtime_error("tempo::gpu: raw_round_trip needs a CUDA device (simulated devices have none)");
  }

 private:
  EngineOptions opt_;
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<SimDevice>> devices_;
};

}  // namespace

std::unique_ptr<DeviceSide> make_simulated_device_side(const EngineOptions& opt) {
  return std::make_unique<SimulatedDeviceSide>(opt);
}

}  // namespace tempo::gpu::detail
