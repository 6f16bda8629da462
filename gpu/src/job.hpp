// One batch's shared state between the dispatching task and the engine's stream
// threads. Internal header.
//
// Work division (two-ended claiming): the unclaimed items are [front, back). The
// CPU side claims blocks from the front, the stream threads (all streams of all
// devices) claim chunks from the back, under one mutex (claims are coarse: tens of
// microseconds of work or more, so the mutex is never hot). When the two meet, both
// sides finish at about the same time whatever the cost model's estimate was: the
// estimate only decides who takes part and how big the chunks are.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <tempo/gpu/cost_model.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/gpu/op.hpp>
#include <tempo/tempo.hpp>

namespace tempo::gpu::detail {

using Clock = std::chrono::steady_clock;

inline double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct Range {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
  bool empty() const { return begin >= end; }
};

// The validated batch: inputs, output, and byte arithmetic over item ranges.
struct BatchView {
  std::array<Operand, kMaxInputs> in{};
  std::size_t inputs = 0;
  std::size_t n = 0;
  std::uint8_t* out = nullptr;
  std::size_t out_stride = 0;

  std::uint64_t begin(std::size_t k, std::size_t i) const {
    const Operand& o = in[k];
    return o.offsets.empty() ? static_cast<std::uint64_t>(i) * o.stride : o.offsets[i];
  }
  std::uint64_t bytes(std::size_t k, std::size_t s, std::size_t e) const { return begin(k, e) - begin(k, s); }
  // All inputs' bytes of items [s, e): non-decreasing in e, non-increasing in s.
  std::uint64_t in_bytes(std::size_t s, std::size_t e) const {
    std::uint64_t b = 0;
    for (std::size_t k = 0; k < inputs; ++k) b += bytes(k, s, e);
    return b;
  }
  // The chunk of items [r.begin, r.end) in host memory.
  Chunk host_chunk(Range r) const {
    Chunk c;
    c.begin = r.begin;
    c.count = r.size();
    c.batch = n;
    c.inputs = inputs;
    for (std::size_t k = 0; k < inputs; ++k) {
      const Operand& o = in[k];
      c.in[k].stride = o.stride;
      c.in[k].data = o.data.data() + begin(k, r.begin);
      c.in[k].offsets = o.offsets.empty() ? nullptr : o.offsets.data() + r.begin;
    }
    c.out = out + r.begin * out_stride;
    c.out_stride = out_stride;
    return c;
  }
};

// Throws std::invalid_argument naming the problem. Returns the item count.
BatchView validate(const BatchOp& op, std::span<const Operand> inputs, Output out);

struct EngineCore;

struct Job {
  const BatchOp* op = nullptr;
  std::shared_ptr<const BatchOp> owned_op;  // set when the Offload keeps the op alive
  CostModel* model = nullptr;
  BatchView v;
  std::array<bool, kMaxInputs> in_pinned{};  // the copy engines may read input k directly
  bool out_pinned = false;                   // ... and write the output directly
  std::uint64_t max_device_item = 0;         // longer items (input 0) are left to the CPU
  std::size_t min_device_chunk = 1;          // op.min_device_chunk(): device chunks' floor in items
  double work_per_item = 1;                  // op.work at the average item size

  std::size_t streams_per_device = 0;        // stream threads per device that take part
  // Chunk caps for the stream threads (input bytes, items).
  std::size_t chunk_bytes = 0, chunk_items = 0;

  std::mutex m;  // guards everything below it up to `pending`
  std::size_t front = 0, back = 0;
  std::vector<Range> leftovers;      // ranges the devices gave back (memory ran out, shutdown)
  std::vector<std::size_t> skipped;  // items over max_device_item inside enqueued GPU chunks
  std::exception_ptr error;          // first non-recoverable failure
  bool fell_back = false;
  double copy_in_ms = 0, kernel_ms = 0, copy_out_ms = 0;
  std::size_t gpu_items = 0, gpu_chunks = 0;  // items in completed GPU chunks (skipped included)
  double gpu_work = 0, gpu_bytes = 0;
  unsigned devices_mask = 0;
  Clock::time_point gpu_last{};
  bool finished = false;  // every stream thread is done with the job
  std::condition_variable finished_cv;

  std::atomic<int> pending{0};  // stream threads still on this job
  Signal done;                  // set with `finished`, for tempo waiters

  // The async form's deferred CPU placement: join() does the work.
  bool deferred_cpu = false;
  // A staged op placed on the devices (BatchOp::gpu_staged): runs inside join() through
  // this engine, or on the CPU when the engine is gone by then.
  Engine* staged_engine = nullptr;
  bool joined = false;
  std::string reason;
  Clock::time_point submitted{};
  // SAFETY: keeps the engine core (and its stream threads) alive while the job exists.
  std::shared_ptr<EngineCore> engine;

  // Called by the last stream thread; that thread holds its own reference, so the Job
  // outlives this call even if the waiter drops its reference at once.
  void mark_finished() {
    {
      std::lock_guard lock(m);
      finished = true;
    }
    finished_cv.notify_all();
    done.set();
  }
  void wait_finished_blocking() {
    std::unique_lock lock(m);
    finished_cv.wait(lock, [&] { return finished; });
  }
  // Claims up to max_items items / max_bytes input bytes from the back (from the front).
  // A single item over max_bytes is still claimed alone. Empty: none left.
  Range claim_back(std::size_t max_bytes, std::size_t max_items);
  Range claim_front(std::size_t max_bytes, std::size_t max_items);
  void give_back(Range r) {
    std::lock_guard lock(m);
    leftovers.push_back(r);
  }
  void fail(std::exception_ptr e) {
    std::lock_guard lock(m);
    if (!error) error = e;
  }
  bool failed() {
    std::lock_guard lock(m);
    return error != nullptr;
  }
};

// A device side's worker: one thread that runs the jobs posted to it in posting order, each
// through `run`, then counts itself off the job (the last worker off marks it finished).
// `start` runs first on the thread (e.g. cudaSetDevice). Destruction runs what was posted,
// then joins; an owner whose `run` uses its other members declares the JobThread last, so it
// is destroyed (and joined) before them.
class JobThread {
 public:
  JobThread(std::function<void()> start, std::function<void(Job&)> run)
      : start_(std::move(start)), run_(std::move(run)), thread_([this] { loop(); }) {}
  ~JobThread() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  JobThread(const JobThread&) = delete;
  JobThread& operator=(const JobThread&) = delete;
  void post(std::shared_ptr<Job> job) {
    {
      std::lock_guard lock(m_);
      queue_.push_back(std::move(job));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    if (start_) start_();
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stop_ and nothing left
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      run_(*job);
      // acq_rel: the last worker off sees every other worker's writes to the job before
      // it marks the job finished (each released them here).
      if (job->pending.fetch_sub(1, std::memory_order_acq_rel) == 1) job->mark_finished();
    }
  }

  std::function<void()> start_;
  std::function<void(Job&)> run_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace tempo::gpu::detail
