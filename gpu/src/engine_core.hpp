// The engine's internals shared by dispatch.cpp and the device side
// (engine_cuda.cpp with CUDA, engine_none.cpp without). Internal header.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tempo/gpu/engine.hpp>

namespace tempo::gpu::detail {

struct Job;

// What the engine needs from the devices. One instance per Engine; every member is
// thread-safe. Device memory calls throw CudaError.
class DeviceSide {
 public:
  virtual ~DeviceSide() = default;
  virtual int devices() const noexcept = 0;
  // Simulated devices (tests): they run the op's CPU code, so any op can use them.
  virtual bool simulated() const noexcept { return false; }
  virtual std::size_t workers() const noexcept = 0;
  // Hands the job to every stream thread; the last one to finish calls job->mark_finished().
  virtual void post(const std::shared_ptr<Job>& job) = 0;
  // Runs a one-chunk job on the calling thread (spinning briefly on its completion,
  // as a plain cudaStreamSynchronize would). False: the direct lane is busy; post instead.
  virtual bool run_direct(Job& job) = 0;
  // Stops the stream threads after their current chunk; unclaimed items stay in the jobs.
  virtual void shutdown() noexcept = 0;
  virtual void* alloc(int device, std::size_t bytes) = 0;
  virtual void free(int device, void* p) noexcept = 0;
  virtual void upload(int device, void* dst, const void* src, std::size_t bytes) = 0;
  virtual void download(int device, void* dst, const void* src, std::size_t bytes) = 0;
  // Enqueues op.cuda(chunk) on the device's resident stream and calls on_done(cuda
  // error code, 0 = success) from a CUDA callback thread once it has run.
  virtual void launch_resident(int device, const BatchOp& op, const Chunk& chunk,
                               std::function<void(int)> on_done) = 0;
  virtual Engine::RawRoundTrip raw_round_trip(std::size_t bytes, int reps) = 0;

};

// The engine's settings from the environment (docs/environment.md), read when an Engine
// is made, so that a bad value fails there (std::invalid_argument naming the variable)
// and not in a stream thread.
struct Tuning {
  std::size_t streams_per_device = 12;       // TEMPO_GPU_STREAMS; EngineOptions wins
  std::size_t pinned_streams = 4;            // TEMPO_GPU_PINNED_STREAMS
  double max_chunk_bytes = double(8 << 20);  // TEMPO_GPU_CHUNK_MB
  bool nt_copy = true;                       // TEMPO_GPU_NT_COPY
  std::uint64_t scratch_keep_bytes = std::uint64_t{4} << 30;  // TEMPO_GPU_SCRATCH_KEEP_MB
};
Tuning tuning_from_env(const EngineOptions& opt);

// Devices visible to the process (cached; 0 without CUDA).
int visible_devices() noexcept;
// nullptr without CUDA or devices.
std::unique_ptr<DeviceSide> make_device_side(const EngineOptions& opt, const Tuning& tuning);
std::unique_ptr<DeviceSide> make_simulated_device_side(const EngineOptions& opt);
// Whether [p, p+n) is page-locked host memory (false without CUDA).
bool is_pinned(const void* p, std::size_t n) noexcept;
void* host_alloc_pinned(std::size_t n) noexcept;  // nullptr when not possible
void host_free_pinned(void* p) noexcept;
std::string cuda_error_text(int code);  // cudaGetErrorString, or a plain number without CUDA
bool cuda_error_is_oom(int code) noexcept;

struct EngineCore {
  Tuning tuning;
  std::unique_ptr<DeviceSide> dev;  // null: CPU only
  std::atomic<bool> alive{true};
  std::mutex models_m;
  std::map<std::string, std::unique_ptr<CostModel>, std::less<>> models;
  std::atomic<int> next_device{0};

  int devices() const noexcept { return dev ? dev->devices() : 0; }
  CostModel& model(const BatchOp& op);
  void require_alive(const char* what) const;
};

struct ConstantsState {
  std::weak_ptr<EngineCore> engine;
  std::mutex m;
  std::vector<std::uint8_t> host;
  std::vector<void*> device;  // per device, nullptr until first use
  bool released = false;
  ~ConstantsState();
  void free_device() noexcept;
};

struct ResidentState {
  std::weak_ptr<EngineCore> engine;
  std::size_t count = 0, stride = 0;
  int device = -1;                 // -1: host memory
  std::vector<std::uint8_t> host;  // when device == -1
  void* dptr = nullptr;            // when device >= 0
  ~ResidentState();
  std::shared_ptr<EngineCore> lock_engine(const char* what) const;
};

}  // namespace tempo::gpu::detail
