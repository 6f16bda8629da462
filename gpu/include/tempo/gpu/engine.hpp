// The offload engine: runs any BatchOp over a batch on the pool's workers, on every
// visible CUDA device, or on both at once from the two ends of the batch.
//
//   tempo::gpu::Engine& e = tempo::gpu::Engine::shared();      // or an Engine of your own
//   pool.run([&](tempo::Task& t) {
//     BatchReport r = e.run(t, op, {Operand::fixed(in, 64)}, out);       // blocking
//     Offload o = e.submit(t, op, {Operand::fixed(in, 64)}, out);        // async
//     ...other tempo work...
//     r = o.join(t);                                                       // waits like a fork join
//   });
//
// Placement follows the backend contract (backend.hpp) and, under auto, the op's cost
// model. Results are the same bytes whichever side computes an item: the op's CPU and
// CUDA implementations must agree (each workload's tests check this).
//
// docs/gpu-engine.md describes the model: jobs, chunks, streams, two-ended claiming,
// placement, memory and the thread-safety argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <tempo/gpu/backend.hpp>
#include <tempo/gpu/cost_model.hpp>
#include <tempo/gpu/op.hpp>

namespace tempo {
class Task;
}

namespace tempo::gpu {

namespace detail {
struct Job;
struct EngineCore;
struct ConstantsState;
struct ResidentState;
}  // namespace detail


// Where one batch ran and what it cost. Millisecond sums over chunks: chunks on
// different streams overlap, so copy_in_ms + kernel_ms + copy_out_ms can exceed
// total_ms (that overlap is the point of the pipeline).
struct BatchReport {
  Placement ran_on = Placement::cpu;  // gpu: every item on devices; split: both sides
  std::size_t items = 0;
  std::size_t cpu_items = 0;
  std::size_t gpu_items = 0;
  std::size_t gpu_chunks = 0;
  int devices_used = 0;
  // Device times (CUDA events; 0 for a small batch the caller drove itself, where
  // recording them would cost more than the batch: see total_ms).
  double copy_in_ms = 0;   // host->device copies, plus staging memcpy when pageable
  double kernel_ms = 0;    // kernels
  double copy_out_ms = 0;  // device->host copies, plus staging memcpy when pageable
  double cpu_ms = 0;       // wall time of the CPU share (0 when none)
  double total_ms = 0;     // wall time of the whole call
  bool fell_back = false;  // device memory ran out: smaller chunks or the CPU took over
  std::string reason;      // why this placement, e.g. "cost model: cpu (cpu 0.08 ms, gpu 0.31 ms, ...)"
};

// Per-call options of every batch call of every family (the last argument of
// keccak::hash_batch, ntt::forward_batch, tfhe::eval_gates, faest::sign_batch, ... and of
// Engine::run). Backend defaults to TEMPO_BACKEND (read at the call); a Backend converts
// implicitly, so `hash_batch(..., tempo::Backend::cpu)` reads as it says.
struct RunOptions {
  RunOptions() = default;
  RunOptions(Backend b) : backend(b) {}  // NOLINT(google-explicit-constructor): the common case
  Backend backend = backend_from_env();
  // Testing and tuning: force a placement under auto (TEMPO_GPU_PLACEMENT does the same).
  bool force = false;
  Placement forced = Placement::cpu;
};

class Offload;
class DeviceConstants;
class DeviceBatch;

struct EngineOptions {
  int max_devices = -1;                // -1: every visible device
  std::size_t streams_per_device = 0;  // 0: TEMPO_GPU_STREAMS or 12
  // Testing: this many simulated devices instead of CUDA ones (host threads that run
  // the op's CPU code on chunks claimed like a device's), with an optional injected
  // failure of one device (simulated_failure_code: a cudaError_t; 2 = out of memory).
  int simulated_devices = 0;
  int simulated_failing_device = -1;
  int simulated_failure_code = 0;
};

// One engine drives every visible device: per device a few stream threads, each with
// its own CUDA stream, device buffers and pinned staging slots. Engines are
// independent; Engine::shared() is the process-wide one the workloads use by default.
// Thread-safe: any number of tasks may run batches on one engine at once.
class Engine {
 public:
  // Reads TEMPO_GPU_STREAMS, TEMPO_GPU_PINNED_STREAMS, TEMPO_GPU_CHUNK_MB and
  // TEMPO_GPU_NT_COPY (docs/environment.md): std::invalid_argument names a bad value.
  explicit Engine(EngineOptions opt = {});
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  // Shuts down: waits for batches in flight on the devices (their remaining items
  // are left to their joiners, which finish them on the CPU), frees device memory.
  // Constants and resident batches of this engine then throw on use.
  ~Engine();

  static Engine& shared();

  int devices() const noexcept;           // devices this engine drives (0: CPU only)
  std::size_t stream_workers() const noexcept;

  // Runs op over the batch; returns when every item's output is written.
  // Throws std::invalid_argument for a malformed batch (before any work), CudaError
  // for a device failure that the CPU cannot cover (never a wrong answer).
  BatchReport run(Task& t, const BatchOp& op, std::initializer_list<Operand> inputs, Output out,
                  RunOptions opt = {});
  BatchReport run(Task& t, const BatchOp& op, std::span<const Operand> inputs, Output out, RunOptions opt = {});

  // The async form: starts the device part now and returns; join() waits like a fork
  // join. A CPU placement, and a staged op's stages (BatchOp::gpu_staged), run inside join(). The caller keeps inputs and out alive
  // and untouched until join() returns (or the Offload is destroyed, which waits).
  Offload submit(Task& t, const BatchOp& op, std::initializer_list<Operand> inputs, Output out, RunOptions opt = {});
  Offload submit(Task& t, const BatchOp& op, std::span<const Operand> inputs, Output out, RunOptions opt = {});
  // The same, with the Offload keeping the op alive until joined (for ops made per call).
  Offload submit(Task& t, std::shared_ptr<const BatchOp> op, std::span<const Operand> inputs, Output out,
                 RunOptions opt = {});

  // Runs op over device-resident batches (DeviceBatch below) and leaves the result
  // there: no host round trip. All batches must live in the same place (one device,
  // or host memory when they were placed on the CPU). `out` may be inputs[0] when
  // op.in_place_ok().
  BatchReport run_resident(Task& t, const BatchOp& op, std::initializer_list<const DeviceBatch*> inputs,
                           DeviceBatch& out);

  // The cost model of an operation key (created from the op's prior on first use).
  CostModel& cost_model(const BatchOp& op);

  // Benchmarks and tests: the raw cost of a small round trip on device 0 (n bytes in,
  // a trivial kernel, n bytes out, stream synchronize), median and p99 over reps, in us.
  struct RawRoundTrip {
    double p50_us = 0, p99_us = 0;
  };
  RawRoundTrip raw_round_trip(std::size_t bytes, int reps);

 private:
  friend class DeviceConstants;
  friend class DeviceBatch;
  friend class Offload;
  std::shared_ptr<detail::EngineCore> core_;
};

// The async form of Engine::run.
class Offload {
 public:
  Offload() = default;
  Offload(Offload&&) noexcept;
  Offload& operator=(Offload&&) noexcept;  // waits for a batch it replaces
  ~Offload();  // unjoined: blocks until the device work is over (memory safety), drops the result
  bool valid() const noexcept { return job_ != nullptr; }
  bool ready() const noexcept;  // join() would not wait for the device
  BatchReport join(Task& t);

 private:
  friend class Engine;
  friend class Pipeline;
  std::shared_ptr<detail::Job> job_;
};

// Bytes uploaded once per device and reused by every later batch (twiddle tables,
// bootstrapping keys, round keys). The host copy stays for the CPU path. Copies of a
// handle share one state; the user controls its lifetime with release().
//   DeviceConstants tw(engine, bytes);
//   ... in BatchOp::cuda: const void* d = tw.on(ctx);   ... in BatchOp::cpu: tw.host()
class DeviceConstants {
 public:
  DeviceConstants() = default;
  DeviceConstants(Engine& engine, std::span<const std::uint8_t> bytes);
  // The device copy on ctx.device, uploaded on first use there (synchronously on
  // ctx.stream). Throws std::logic_error after release() or once the engine is gone.
  const void* on(const DeviceContext& ctx) const;
  std::span<const std::uint8_t> host() const;  // throws std::logic_error after release()
  std::size_t size() const noexcept;
  // Frees the host and device copies now (cudaFree waits for kernels using them).
  // A batch still running that needs them again fails with std::logic_error.
  void release() noexcept;
  bool released() const noexcept;
  explicit operator bool() const noexcept { return state_ != nullptr; }

 private:
  std::shared_ptr<detail::ConstantsState> state_;
};

// A batch of `count` items of `stride` bytes that stays where it was placed, on one
// device or (when no device is used: backend cpu, no CUDA, or auto deciding so) in
// host memory, between operations. Comes back only through download().
class DeviceBatch {
 public:
  DeviceBatch() = default;
  // Uninitialised storage for count items of stride bytes. Placement: Backend::cpu ->
  // host; cuda -> device 0.. (round robin) or throws; auto -> a device when there is one.
  DeviceBatch(Engine& engine, std::size_t count, std::size_t stride, Backend backend = backend_from_env());
  static DeviceBatch upload(Engine& engine, std::span<const std::uint8_t> host, std::size_t stride,
                            Backend backend = backend_from_env());
  void download(std::span<std::uint8_t> host) const;  // host.size() == count * stride
  std::vector<std::uint8_t> download() const;
  std::size_t count() const noexcept;
  std::size_t stride() const noexcept;
  bool on_device() const noexcept;
  int device() const noexcept;  // -1 on the host
  explicit operator bool() const noexcept { return state_ != nullptr; }

 private:
  friend class Engine;
  std::shared_ptr<detail::ResidentState> state_;
};

// The streaming form for many successive batches: at most `depth` batches in flight;
// submit() joins the oldest first when full, so memory stays bounded while reading the
// next batch, computing this one and writing the previous one overlap.
//   Pipeline p(engine, 2);
//   for (each request) { prepare(buf[k % 3]); p.submit(t, op, {...buf...}, out[k % 3]);
//                         if (auto r = p.completed()) write(r->...); }
//   p.drain(t);
class Pipeline {
 public:
  explicit Pipeline(Engine& engine, std::size_t depth = 2);
  struct Done {
    std::uint64_t tag = 0;
    BatchReport report;
  };
  // Submits a batch; if `depth` were in flight, first joins the oldest and returns it.
  std::optional<Done> submit(Task& t, const BatchOp& op, std::initializer_list<Operand> inputs, Output out,
                           std::uint64_t tag, RunOptions opt = {});
  // Joins every batch in flight, oldest first.
  std::vector<Done> drain(Task& t);
  std::size_t in_flight() const noexcept { return queue_.size(); }

 private:
  Engine& engine_;
  std::size_t depth_;
  struct Entry {
    std::uint64_t tag;
    Offload offload;
  };
  std::vector<Entry> queue_;  // oldest first; depth is small
};

}  // namespace tempo::gpu
