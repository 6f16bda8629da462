// The cold half of Task: heartbeat promotion, waiting (help, then sleep), and
// Signal. docs/design.md gives the protocol and why no wake-up is lost.
#include <algorithm>
#include <chrono>
#include <thread>

#include "pool_core.hpp"
#include "tempo/detail/clock.hpp"
#include "tempo/task.hpp"

namespace tempo {

std::size_t Task::thread_count() const noexcept { return core_->threads(); }
using detail::JobBase;
using detail::PoolCore;

Task::Task(PoolCore& core, std::size_t index) noexcept : tail_(&head_), core_(&core), index_(index) {
  head_.prev = nullptr;
  head_.next = nullptr;
  head_.execute = nullptr;
}

namespace {
// Aged promotion (the default; TEMPO_AGED_PROMOTION=0 turns it off) marks a
// queued fork by setting the low bit of its `execute` pointer (run_promoted is
// at least 2-aligned). Every fork's constructor stores `execute`, so a new
// fork at a reused address never inherits a mark; only the owner reads or
// writes the bit, and promotion clears it before the job is published.
using Exec = void (*)(JobBase*, Task&) noexcept;
bool aged(const JobBase* j) noexcept { return (reinterpret_cast<std::uintptr_t>(j->execute) & 1u) != 0; }
void set_aged(JobBase* j) noexcept {
  j->execute = reinterpret_cast<Exec>(reinterpret_cast<std::uintptr_t>(j->execute) | 1u);
}
void clear_aged(JobBase* j) noexcept {
  j->execute = reinterpret_cast<Exec>(reinterpret_cast<std::uintptr_t>(j->execute) & ~std::uintptr_t{1});
}
}  // namespace

void Task::on_heartbeat() {
  // relaxed: only this thread clears it; a racing set by the heartbeat thread
  // at worst causes one more visit here.
  heartbeat_.store(false, std::memory_order_relaxed);
  heartbeats_.bump();
  share_oldest();
}

std::size_t Task::loop_heartbeat() {
  heartbeat_.store(false, std::memory_order_relaxed);
  heartbeats_.bump();
  const std::size_t idle = core_->idle_count_.load(std::memory_order_relaxed);
  if (idle == 0) return 0;
  const std::uint64_t beat = core_->beats_.load(std::memory_order_relaxed);
  if (beat < eligible_beat_) return 0;
  if (tail_ != &head_) {  // older forks hold more work: give those first
    share_oldest();
    return 0;
  }
  // A loop splits at most once per heartbeat on each worker. Idle requests
  // flag tasks between heartbeats too; those only promote forks (above), or
  // the end of a short loop became a storm of ever smaller pieces, one split
  // and one wake-up for every worker that ran dry.
  if (beat == loop_beat_) return 0;
  loop_beat_ = beat;
  return idle;
}

void Task::share_oldest() {
  // relaxed: a stale idle count costs one heartbeat of delay or one queued job
  // that the next idle worker (or its owner's join) picks up; never a lost job.
  std::size_t idle = core_->idle_count_.load(std::memory_order_relaxed);
  if (idle == 0) return;
  // Aging subsumes the eligibility gate (a fork shared at a heartbeat was
  // already queued at the one before, so it is at least one interval old):
  // with both, a run's first sharing came a heartbeat later than without.
  if (!core_->aged_promotion() && core_->beats_.load(std::memory_order_relaxed) < eligible_beat_) return;
  // One job per idle worker, oldest first: a heartbeat feeds every idle
  // worker at once instead of one per beat (Spice), which matters when the
  // shared jobs turn out small (unbalanced trees) or at start-up.
  if (!core_->aged_promotion()) {
    for (; idle > 0 && tail_ != &head_; --idle) promote_oldest_now();
    return;
  }
  // Aged: only forks already queued at an earlier heartbeat (marked then) are
  // shared, so work shorter than a heartbeat never leaves its thread, even
  // inside a long run; the oldest unmarked ones are marked for the next beat.
  const std::size_t want = idle;
  for (; idle > 0 && tail_ != &head_ && aged(head_.next); --idle) promote_oldest_now();
  if (tail_ == &head_) return;  // head_.next is only meaningful on a non-empty list
  JobBase* j = head_.next;
  for (std::size_t k = 0; k < want; ++k) {
    set_aged(j);
    if (j == tail_) break;
    j = j->next;
  }
}

std::size_t Task::heavy_loop_helpers() const noexcept { return core_->eager_loops() ? core_->threads() - 1 : 0; }

void Task::share_now() {
  std::size_t idle = core_->idle_count_.load(std::memory_order_relaxed);
  for (; idle > 0 && tail_ != &head_; --idle) promote_oldest_now();
}

void Task::promote_oldest_now() {
  JobBase* job = head_.next;
  if (job == tail_) {
    tail_ = &head_;
  } else {
    head_.next = job->next;
    job->next->prev = &head_;
  }
  publish_promoted(job);
}

// The tail's promotion (a heavy loop's helper, just forked): promote_oldest_now
// at the other end of the list. The new tail's `next` goes stale, which
// invariant 1 allows (only non-tail jobs' `next` is meaningful).
void Task::promote_newest_now() {
  JobBase* job = tail_;
  TEMPO_ASSERT(job != &head_, "tempo: internal error: no fork to promote");
  tail_ = job->prev;
  publish_promoted(job);
}

// A job just unlinked from this task's list becomes "promoted" and goes to
// the shared queue.
void Task::publish_promoted(JobBase* job) {
  detail::chaos();
  clear_aged(job);
  job->prev = nullptr;  // now "promoted": join will wait instead of popping
  ::new (static_cast<void*>(&job->shared)) detail::SharedState{this, nullptr};
  promoted_.bump();
  core_->push_shared(job);  // mutex_ release publishes the job to the thief
}

void Task::notify() noexcept {
  // seq_cst (a release is what publishes the event): also half of the Dekker
  // pair with sleep_on_wake(): bump wake_, then read sleeping_. Either we see
  // the sleeper and wake it, or it sees our bump and does not sleep.
  wake_.fetch_add(1, std::memory_order_seq_cst);
  detail::chaos();
  if (sleeping_.load(std::memory_order_seq_cst)) wake_.notify_one();
}

// Waits until wake_ differs from `seen`: spins for a few microseconds first
// (work handed over at a heartbeat then starts at once, and the notifier skips
// the system call), while a run is in progress keeps polling (yielding the
// core between polls) for up to one and a half heartbeats, then blocks in the
// futex.
void Task::sleep_on_wake(std::uint32_t seen) noexcept {
  // About 25 us at 2 GHz: longer than a futex round trip, short enough that
  // an idle pool is asleep within microseconds.
  constexpr std::uint64_t spin_ticks = 50'000;
  const std::uint64_t start = detail::cycle_clock();
  do {
    // acquire: as in wait_until, a bump read here makes its event visible.
    if (wake_.load(std::memory_order_acquire) != seen) return;
    detail::cpu_relax();
  } while (detail::cycle_clock() - start < spin_ticks);
  if (core_->runs_active()) {
    // The next heartbeat's work then reaches this worker without a futex
    // system call on the busy owner's side (notify() calls notify_one only for
    // sleepers): with short spins, every promotion of small work cost its
    // owner a system call. Bounded by 1.5 heartbeats (at most 1 ms), and
    // yielding, so that an idle pool or a crowded machine loses nothing.
    const auto now = std::chrono::steady_clock::now();
    const auto poll_for = std::min<std::chrono::nanoseconds>(core_->heartbeat() + core_->heartbeat() / 2,
                                                             std::chrono::milliseconds(1));
    const auto deadline = now + poll_for;
    do {
      for (int i = 0; i < 32; ++i) {
        if (wake_.load(std::memory_order_acquire) != seen) return;
        detail::cpu_relax();
      }
      std::this_thread::yield();
    } while (std::chrono::steady_clock::now() < deadline);
  }
  sleeps_.bump();
  sleeping_.store(true, std::memory_order_seq_cst);
  detail::chaos();
  if (wake_.load(std::memory_order_seq_cst) == seen) wake_.wait(seen, std::memory_order_acquire);
  sleeping_.store(false, std::memory_order_relaxed);  // only ever read to skip a notify_one
  wakes_.bump();
}

void Task::execute_shared(JobBase* job) noexcept {
  TEMPO_ASSERT(tail_ == &head_, "tempo: internal error: a worker took shared work with forks queued");
  Task* owner = job->shared.owner;
  if (owner != this) stolen_.bump();
  job->execute(job, *this);
  detail::chaos();
  // release: publishes the result; after this store the job's frame may be
  // gone, so only `owner` (pool-owned, outlives every run) is touched.
  job->shared.done.store(1, std::memory_order_release);
  detail::chaos();
  owner->notify();
}

// Runs shared jobs until done() holds; sleeps on wake_ when there are none.
// Protocol: a waiter reads wake_ and joins the idle list under mutex_, then
// re-checks done() and sleeps only while wake_ still holds what it read. Every
// event bumps wake_ after making itself visible (job queued under mutex_, done
// flag stored with release), so an event either shows in the re-check or
// changes wake_ and the futex wait returns at once.
template <class Done>
void Task::wait_until(Done done) {
  if (done()) return;
  PoolCore& core = *core_;
  for (;;) {
    std::unique_lock lock(core.mutex_);
    if (JobBase* job = core.pop_shared_locked()) {
      lock.unlock();
      execute_shared(job);
      if (done()) return;
      continue;
    }
    // acquire: if this reads a notifier's bump, its done flag is visible below.
    std::uint32_t seen = wake_.load(std::memory_order_acquire);
    core.add_idle_locked(this);
    lock.unlock();
    detail::chaos();
    if (!done()) {
      core.note_idle();
      core.request_work();
      sleep_on_wake(seen);
    }
    lock.lock();
    const bool picked = !idle_listed_;  // a pusher chose us for its job
    if (idle_listed_) core.remove_idle_locked(this);
    if (done()) {
      // Leaving with a job that was meant for us: pass the wake-up on.
      if (picked && core.has_shared_locked()) {
        if (Task* other = core.pop_idle_locked()) {
          lock.unlock();
          other->notify();
        }
      }
      return;
    }
  }
}

void Task::work_until_stopped() {
  // acquire: pairs with PoolCore::stop's store.
  wait_until([this] { return core_->stopping_.load(std::memory_order_acquire); });
}

void Task::wait_for_job(JobBase& job) {
  // acquire: pairs with execute_shared's release; the result is then visible.
  wait_until([&job] { return job.shared.done.load(std::memory_order_acquire) != 0; });
}

namespace detail {
void SchedulerAccess::promote_all(Task& t) {
  t.check_owner_thread();
  while (t.tail_ != &t.head_) t.promote_oldest_now();
}

// The thread's current Task is the one the fork was made on: a Fork lives in a
// frame inside that task's run, and nested runs restore `current` on exit.
void abandon_queued(JobBase& job) noexcept {
  Task& t = *current_task();
  TEMPO_ASSERT(t.tail_ == &job, "tempo::Fork destroyed out of order");
  t.tail_ = job.prev;
  job.execute = nullptr;
  if constexpr (assertions_enabled) --t.fork_depth_;
}

void abandon_taken(JobBase& job) noexcept {
  Task& t = *current_task();
  try {
    t.wait_for_job(job);
  } catch (...) {
    // only a throwing assertion handler gets here
  }
  job.execute = nullptr;
  if constexpr (assertions_enabled) --t.fork_depth_;
}
}  // namespace detail

void Task::wait(Signal& s) {
  check_owner_thread();
  std::uintptr_t expected = 0;
  // acq_rel: registers this task as the waiter; acquire on failure sees set()'s effects.
  if (!s.state_.compare_exchange_strong(expected, reinterpret_cast<std::uintptr_t>(this), std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
    TEMPO_ASSERT(expected == Signal::set_mark, "tempo::Signal waited on by two tasks at once");
    return;
  }
  // Forks queued here would be stuck while this worker sleeps: share them all
  // (this worker may still run them itself from the shared queue).
  while (tail_ != &head_) promote_oldest_now();
  const auto me = reinterpret_cast<std::uintptr_t>(this);
  wait_until([&s, me] { return s.state_.load(std::memory_order_acquire) != me; });
  // The setter is notifying this task (notifying_mark): it still touches this Task and the
  // Signal, so neither may go away (the caller would destroy them once wait returns) before
  // its last store. That is a few instructions away (one futex wake at most): yield, do not
  // sleep, since no further wake-up comes.
  while (s.state_.load(std::memory_order_acquire) != Signal::set_mark) std::this_thread::yield();
}

void Signal::set() noexcept {
  detail::chaos();
  std::uintptr_t waiter = 0;
  // Nobody waits yet: set in one step. acq_rel: release publishes what the setter wrote
  // (the waiter's failed CAS acquires it); acquire on failure reads the registered waiter.
  if (state_.compare_exchange_strong(waiter, set_mark, std::memory_order_acq_rel, std::memory_order_acquire)) return;
  // A Task waits (state_ holds it; only this call changes state_ from here). Tell it that a
  // notify is under way (relaxed: set_mark's release below publishes; the waiter's loop only
  // needs to see that the state is no longer itself), wake it, and only then mark the signal
  // set: until that store the waiter does not return, so its Task and this Signal outlive
  // every access here. Nothing is touched after it.
  TEMPO_ASSERT(waiter != set_mark && waiter != notifying_mark, "tempo::Signal set twice");
  state_.store(notifying_mark, std::memory_order_relaxed);
  reinterpret_cast<Task*>(waiter)->notify();
  // release: the waiter's acquire load of set_mark sees everything the setter wrote.
  state_.store(set_mark, std::memory_order_release);
}

}  // namespace tempo
