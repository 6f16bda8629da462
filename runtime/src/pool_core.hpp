// PoolCore: the shared state of one ThreadPool. See docs/design.md for the
// protocol and the argument that no wake-up is lost.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "tempo/task.hpp"

namespace tempo::detail {

class PoolCore {
 public:
  PoolCore(std::size_t threads, std::chrono::nanoseconds heartbeat);
  ~PoolCore();

  std::size_t threads() const noexcept { return threads_; }
  std::chrono::nanoseconds heartbeat() const noexcept { return heartbeat_; }
  Stats stats() const noexcept;

  // Outside callers of run(): take a Task (reused from a free list, owned by the
  // pool, so that a thief may touch it until the pool dies) and give it back.
  Task* acquire_external();
  void release_external(Task* t) noexcept;
  void enter_run() noexcept;
  void leave_run() noexcept;
  // Share only forks queued at an earlier heartbeat (TEMPO_AGED_PROMOTION=0:
  // the oldest ones, whatever their age).
  bool aged_promotion() const noexcept { return aged_promotion_; }
  // TEMPO_EAGER_LOOPS=0: heavy loop call sites wait for a heartbeat like the rest.
  bool eager_loops() const noexcept { return eager_loops_; }
  // A hint (relaxed): some run() is in progress, so work may soon be shared.
  bool runs_active() const noexcept { return active_runs_.load(std::memory_order_relaxed) > 0; }

  // Shared queue of promoted jobs (FIFO) and the idle list, both under mutex_.
  void push_shared(JobBase* job);
  JobBase* pop_shared_locked() noexcept;
  bool has_shared_locked() const noexcept { return queue_head_ != nullptr; }
  // Called by a worker about to sleep: brings the next heartbeat forward
  // (flags every task now) unless that was done less than a quarter heartbeat
  // ago, so idle workers get work without waiting a whole heartbeat, at a
  // bounded rate. On by default; TEMPO_IDLE_REQUESTS=0 turns it off.
  void request_work() noexcept;
  void add_idle_locked(Task* t) noexcept;
  // Called by a worker after add_idle_locked, outside mutex_: wakes the
  // heartbeat thread if it parked because nobody was idle.
  void note_idle() noexcept;
  void remove_idle_locked(Task* t) noexcept;
  Task* pop_idle_locked() noexcept;

  std::mutex mutex_;
  // relaxed reads only: a hint for the heartbeat (is anyone idle?); the idle
  // list itself is the truth and lives under mutex_.
  std::atomic<std::size_t> idle_count_{0};
  // Heartbeats since the pool started; read relaxed to gate promotion timing.
  std::atomic<std::uint64_t> beats_{0};
  // Set once by the destructor; read acquire by idle workers.
  std::atomic<bool> stopping_{false};

 private:
  void stop() noexcept;
  void worker_main(Task* t);
  void heartbeat_main();

  const std::size_t threads_;
  const std::chrono::nanoseconds heartbeat_;
  // A heartbeat is useless while fewer runs than this are in progress: nobody
  // could take work (no run, or a one-thread pool with a single caller).
  const std::size_t runs_needed_;

  // Under mutex_.
  JobBase* queue_head_ = nullptr;
  JobBase* queue_tail_ = nullptr;
  Task* idle_head_ = nullptr;
  std::vector<std::unique_ptr<Task>> tasks_;  // every Task ever made; freed with the pool
  std::vector<Task*> free_external_;

  // Heartbeat thread parking (see enter_run / heartbeat_main).
  std::mutex hb_mutex_;
  std::condition_variable hb_cv_;
  std::atomic<std::size_t> active_runs_{0};  // seq_cst, paired with hb_parked_
  std::atomic<bool> hb_parked_{false};       // seq_cst, paired with active_runs_
  // True while the heartbeat thread sleeps because nobody is idle; seq_cst,
  // paired with idle_count_ (add_idle_locked, note_idle).
  std::atomic<bool> hb_awaits_idle_{false};
  const bool idle_requests_;
  const bool aged_promotion_;
  const bool eager_loops_;
  // steady_clock ns of the last early heartbeat; relaxed CAS: only rate-limits.
  std::atomic<std::int64_t> last_request_ns_{0};

  std::vector<std::thread> workers_;
  std::thread heartbeat_thread_;
};

}  // namespace tempo::detail
