// Task: a worker's handle inside ThreadPool::run, and the fork/join hot path.
// Everything here that runs per fork or per call is inline; the heartbeat and
// waiting code is compiled in runtime/src and marked cold.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <utility>

#include "tempo/concepts.hpp"
#include "tempo/detail/assert.hpp"
#include "tempo/detail/chaos.hpp"
#include "tempo/detail/job.hpp"
#include "tempo/options.hpp"

namespace tempo {
namespace detail {
class PoolCore;
class RunScope;
struct SchedulerAccess;
template <class F, bool Owned = false>
class ForkCore;
// Scope exit of an unjoined Fork: drop the queued job / wait for the taken one.
void abandon_queued(JobBase& job) noexcept;
void abandon_taken(JobBase& job) noexcept;
Task* current_task() noexcept;
}  // namespace detail
class Signal;

// One per worker thread and pool. Only the thread that owns it may use it.
class alignas(64) Task {
 public:
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  // f(*this, args...) after a heartbeat check. Use it for calls that may fork.
  template <class F, class... Args>
  decltype(auto) call(F&& f, Args&&... args) {
    static_assert(std::invocable<F, Task&, Args...>,
                  "tempo::Task::call: f must be callable as f(task, args...) with a tempo::Task& first");
    if constexpr (std::invocable<F, Task&, Args...>) {
      tick();
      return std::invoke(std::forward<F>(f), *this, std::forward<Args>(args)...);
    }
  }

  // Runs fa here and fb here too unless an idle worker took it at a heartbeat.
  // Returns {result of fa, result of fb}; void results become tempo::unit.
  // Exceptions: if fa throws, fb is still run (or, if another thread took it,
  // waited for) and fa's exception propagates; fb's is then discarded. If only
  // fb throws, its exception propagates. Either way nothing is left running.
  template <class FA, class FB>
  auto join(FA&& fa, FB&& fb);

  // The heartbeat check: one relaxed load; the promotion code is out of line.
  void tick() {
    // relaxed: the flag carries no data; a late or early sighting only shifts
    // one promotion by a heartbeat.
    if (heartbeat_.load(std::memory_order_relaxed)) [[unlikely]]
      on_heartbeat();
  }

  // Blocks until s.set() was called, running other shared work meanwhile.
  void wait(Signal& s);

  // This task's number in its pool, unique among the pool's tasks in use at
  // one time (an index for per-worker arrays). The pool's own threads have
  // 0 .. thread_count()-2; a thread that calls run() from outside gets
  // thread_count()-1 or above: one number per outside caller running at the
  // same time (reused afterwards), so with k concurrent outside callers the
  // numbers stay below thread_count() - 1 + k.
  std::size_t worker_index() const noexcept { return index_; }
  // The number of worker threads of the pool this task belongs to (the pool's
  // thread_count()): what a cost model divides CPU work over.
  std::size_t thread_count() const noexcept;

 private:
  template <class F, bool Owned>
  friend class detail::ForkCore;
  friend class Signal;
  friend void detail::abandon_queued(detail::JobBase&) noexcept;
  friend void detail::abandon_taken(detail::JobBase&) noexcept;
  friend class detail::PoolCore;
  friend class detail::RunScope;
  friend struct detail::SchedulerAccess;

  Task(detail::PoolCore& core, std::size_t index) noexcept;

  void push(detail::JobBase& job) noexcept {
    // The sentinel makes the list never empty: no branch here.
    detail::JobBase* last = tail_;
    job.prev = last;
    last->next = &job;
    tail_ = &job;
  }
  void check_owner_thread() const {
    TEMPO_ASSERT(owner_thread_ == std::this_thread::get_id(),
                 "tempo::Task used on a thread other than the one running it");
  }

  // True when a heartbeat is pending; loops poll this between chunks.
  bool heartbeat_pending() const noexcept { return heartbeat_.load(std::memory_order_relaxed); }
  // Cold: handles a pending heartbeat inside a loop. Returns how many workers
  // are idle when nothing older is queued here (the loop should split for
  // them), else 0.
  std::size_t loop_heartbeat();
  // Cold: hands the oldest queued forks to idle workers, one each, if any are
  // idle: only forks already queued at an earlier heartbeat (any queued fork
  // with TEMPO_AGED_PROMOTION=0).
  void share_oldest();
  // Cold: the same at once, whatever their age (a loop's split pieces).
  void share_now();
  std::size_t heavy_loop_helpers() const noexcept;

  template <class FA, class FB>
  std::pair<detail::branch_result_t<FA>, detail::branch_result_t<FB>> join_branches(FA& fa, FB& fb);
  template <class FA, class Fork>
  detail::branch_result_t<FA> run_first(FA& fa, Fork& fork);
  [[gnu::cold, gnu::noinline]] void on_heartbeat();
  void promote_oldest_now();
  void promote_newest_now();
  void publish_promoted(detail::JobBase* job);
  void wait_for_job(detail::JobBase& job);
  void execute_shared(detail::JobBase* job) noexcept;
  void notify() noexcept;
  void sleep_on_wake(std::uint32_t seen) noexcept;
  template <class Done>
  void wait_until(Done done);
  void work_until_stopped();

  // --- hot, owner thread only
  detail::JobBase* tail_;
  detail::JobBase head_;  // sentinel: head_.next is the oldest queued fork
  // Set by the heartbeat thread, cleared by the owner.
  std::atomic<bool> heartbeat_{false};
  std::uint32_t fork_depth_ = 0;  // debug bookkeeping for join-order checks

  // --- cold
  detail::PoolCore* core_;
  std::size_t index_;
  std::thread::id owner_thread_{};
  std::uint64_t eligible_beat_ = 0;  // no promotion before the pool's beat count reaches this
  std::uint64_t loop_beat_ = 0;      // the beat at which a loop on this task last split
  Task* outer_ = nullptr;            // the task this thread ran before entering this one

  // Wake-up word: bumped by whoever wants this worker to look again (new shared
  // work, completion of a job it waits for, a Signal), then futex-notified.
  alignas(64) std::atomic<std::uint32_t> wake_{0};
  // True while this worker is (about to be) blocked in the futex on wake_;
  // notify() makes the system call only then (Dekker pair with wake_).
  std::atomic<bool> sleeping_{false};
  Task* idle_prev_ = nullptr;  // idle list links, pool mutex
  Task* idle_next_ = nullptr;
  bool idle_listed_ = false;   // pool mutex

  // Statistics: written by the owner only (load+store, no lock prefix), read by stats().
  struct Counter {
    std::atomic<std::uint64_t> n{0};
    void bump() noexcept { n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  };
  Counter heartbeats_, promoted_, stolen_, sleeps_, wakes_;
};

namespace detail {
// The scheduler's hooks, for tempo's own loops and tests only (not API).
struct SchedulerAccess {
  static bool heartbeat_pending(const Task& t) noexcept { return t.heartbeat_pending(); }
  static std::size_t loop_heartbeat(Task& t) { return t.loop_heartbeat(); }
  static void share_now(Task& t) { t.share_now(); }
  // How many helpers a heavy loop recruits at its start: the pool's other
  // workers, or 0 with TEMPO_EAGER_LOOPS=0.
  static std::size_t heavy_loop_helpers(const Task& t) noexcept { return t.heavy_loop_helpers(); }
  // Hands t's newest queued fork (the one just made) to the shared queue now,
  // whatever the idle count: the first worker to look for work takes it.
  static void share_newest(Task& t) { t.promote_newest_now(); }
  // Test hook: hands every fork queued on t to the shared queue now, as a
  // heartbeat with idle workers would, whatever the idle count and the
  // eligibility gate say; an idle worker (or t's own join) then runs them.
  static void promote_all(Task& t);
};

// The fork itself, without clean-up on scope exit: Task::join uses it directly
// so that its fast path is only the push, the heartbeat check and the pop.
template <class F, bool Owned>
class ForkCore : protected JobBase {
  // Owned: the job holds its own copy of the callable (small, trivially
  // copyable branches of Task::join), so no pointer to it is stored.
  static_assert(branch<F>, "tempo::Fork: the job must be callable as f(task) with a tempo::Task&");
  friend class tempo::Task;  // join: after_first_threw, fn()

 public:
  using result_type = branch_result_t<F>;

  ForkCore(Task& t, F& f) noexcept(!assertions_enabled) : fn_(init(f)) {
    execute = &run_promoted;
    if constexpr (assertions_enabled) {
      t.check_owner_thread();
      depth_ = ++t.fork_depth_;
    }
    t.push(*this);
    chaos();
  }
  ForkCore(const ForkCore&) = delete;
  ForkCore& operator=(const ForkCore&) = delete;

  // nullptr: the job was still queued and has been removed; run it yourself.
  // Otherwise another thread ran it: waits for it (doing other work meanwhile),
  // rethrows its exception, or returns its result (valid until release_result).
  [[nodiscard]] result_type* join(Task& t) {
    TEMPO_ASSERT(execute != nullptr, "tempo::Fork::join called twice (join without a matching fork)");
    check_order(t);
    chaos();
    if (prev != nullptr) [[likely]] {
      TEMPO_ASSERT(t.tail_ == this, "tempo::Fork joined out of order (forks must be joined in reverse order)");
      t.tail_ = prev;
      if constexpr (assertions_enabled) execute = nullptr;  // Fork::join marks it always
      return nullptr;
    }
    return join_taken(t, *this);
  }
  // Destroys the thief's value or exception, if another thread ran the job
  // (the slot is never written otherwise). Safe to call more than once.
  void release_result() noexcept {
    if (prev == nullptr) result_.destroy();
  }

 protected:
  void check_order(Task& t) {
    if constexpr (assertions_enabled) {
      t.check_owner_thread();
      TEMPO_ASSERT(depth_ == t.fork_depth_, "tempo::Fork joined out of order (forks must be joined in reverse order)");
      --t.fork_depth_;
    }
  }

  // Out of line: the inlined join keeps only the pop, so the caller's frame
  // needs fewer registers.
  [[gnu::noinline, gnu::cold]] static result_type* join_taken(Task& t, ForkCore& self) {
    t.wait_for_job(self);  // may run this very job here, if it is still in the shared queue
    self.execute = nullptr;
    if (self.result_.state == ResultSlot<result_type>::has_error) self.result_.rethrow();  // empties the slot
    return &self.result_.value;
  }

  // The first branch of a join threw: this job still runs here (or, if another
  // thread took it, is waited for); its outcome is discarded. Reaches the
  // callable through fn_, so that the caller's landing pad needs only `this`.
  [[gnu::cold, gnu::noinline]] void after_first_threw(Task& t) {
    try {
      if (join(t) == nullptr) invoke_branch(fn(), t);
      else release_result();
    } catch (...) {
      release_result();
    }
  }

  // Aligned so that aged promotion can mark a queued job in execute's low bit.
  [[gnu::aligned(4)]] static void run_promoted(JobBase* base, Task& thief) noexcept {
    auto* self = static_cast<ForkCore*>(base);
    self->result_.fill(self->fn(), thief);
  }

  static auto init(F& f) noexcept {
    if constexpr (Owned) return std::remove_const_t<F>(f);
    else return &f;
  }
  F& fn() noexcept {
    if constexpr (Owned) return fn_;
    else return *fn_;
  }
  std::conditional_t<Owned, std::remove_const_t<F>, F*> fn_;
  std::uint32_t depth_;  // set only when assertions are on
  ResultSlot<result_type> result_;
};
}  // namespace detail

// A fork in the caller's stack frame (Spice's shape): the constructor queues
// `f` on t's list; join() reports whether another thread took it.
//
//   tempo::Fork fork(t, right);
//   auto a = left(t);
//   if (auto* b = fork.join(t)) use(*b);   // another thread ran it
//   else use(right(t));                    // nobody took it: run it here
//
// If the Fork goes out of scope unjoined (an exception passed), a queued job is
// dropped without running and a taken one is waited for, its outcome discarded.
template <class F>
class Fork : public detail::ForkCore<F> {
 public:
  Fork(Task& t, F& f) noexcept(!detail::assertions_enabled) : detail::ForkCore<F>(t, f) {}
  [[nodiscard]] typename detail::ForkCore<F>::result_type* join(Task& t) {
    auto* result = detail::ForkCore<F>::join(t);
    this->execute = nullptr;  // joined: nothing left for the destructor
    return result;
  }
  ~Fork() {
    if (this->prev == nullptr) {
      if (this->execute != nullptr) detail::abandon_taken(*this);
      this->release_result();
    } else if (this->execute != nullptr) [[unlikely]] {
      detail::abandon_queued(*this);
    }
  }
};

// A one-shot completion flag that another thread (a CUDA callback, an I/O
// thread) sets; Task::wait on it runs other tempo work and then sleeps.
class Signal {
 public:
  Signal() = default;
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;
  // May be called from any thread, once. The waiter's wait returns only after set's last
  // access to *this and to the waiting Task, so the waiter may destroy the Signal (and its
  // pool) as soon as wait returns.
  void set() noexcept;
  bool is_set() const noexcept { return state_.load(std::memory_order_acquire) == set_mark; }
  // Makes a set Signal reusable. Not while anyone waits on it.
  void reset() noexcept { state_.store(0, std::memory_order_relaxed); }

 private:
  friend class Task;
  static constexpr std::uintptr_t set_mark = 1;
  static constexpr std::uintptr_t notifying_mark = 2;  // Tasks are 64-byte aligned: never a Task*
  // 0: not set, nobody waits; 1: set; 2: being set (set() is waking the waiter); otherwise
  // the waiting Task*.
  std::atomic<std::uintptr_t> state_{0};
};


// Both always inlined: in the caller's frame the fork costs its stores; as a
// separate function GCC kept it (a call, a prologue and an epilogue per join).
template <class FA, class FB>
[[gnu::always_inline]] inline auto Task::join(FA&& fa, FB&& fb) {
  static_assert(branch<FA>, "tempo::Task::join: the first branch must be callable as f(task) with a tempo::Task&");
  static_assert(branch<FB>, "tempo::Task::join: the second branch must be callable as f(task) with a tempo::Task&");
  if constexpr (branch<FA> && branch<FB>) return join_branches<FA, FB>(fa, fb);
}

template <class FA, class Fork>
[[gnu::always_inline]] inline detail::branch_result_t<FA> Task::run_first(FA& fa, Fork& fork) {
  try {
    return detail::invoke_branch(fa, *this);
  } catch (...) {
    fork.after_first_threw(*this);
    throw;
  }
}

template <class FA, class FB>
[[gnu::always_inline]] inline std::pair<detail::branch_result_t<FA>, detail::branch_result_t<FB>> Task::join_branches(FA& fa, FB& fb) {
  using RA = detail::branch_result_t<FA>;
  using RB = detail::branch_result_t<FB>;
  using FBv = std::remove_reference_t<FB>;
  // Small, trivially copyable branches (lambdas capturing a few values) are
  // copied into the job: no pointer to them is stored, the caller's temporary
  // disappears, and both a thief and the inline call below run the copy.
  // Only for const-callable branches: a mutable functor's state must change in
  // the object the caller passed.
  constexpr bool copy_fb = std::is_trivially_copyable_v<FBv> && sizeof(FBv) <= 4 * sizeof(void*) &&
                           std::is_invocable_v<const FBv&, Task&>;
  detail::ForkCore<FBv, copy_fb> fork(*this, fb);
  tick();  // makes even a single, un-nested fork shareable
  // A try block rather than a guard object: the guard's fields were stored
  // on every join; the landing pad needs nothing the frame does not hold.
  RA a = run_first(fa, fork);
  if (RB* taken = fork.join(*this)) [[unlikely]] {
    RB b = std::move(*taken);
    fork.release_result();
    return {std::move(a), std::move(b)};
  }
  return {std::move(a), detail::invoke_branch(fork.fn(), *this)};  // fb itself, or the job's copy of it
}

}  // namespace tempo
