// ThreadPool, PoolCore (threads, shared queue, idle list, heartbeat thread),
// RunScope and the small global pieces (environment, assertion handler).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "pool_core.hpp"
#include "tempo/env.hpp"
#include "tempo/thread_pool.hpp"

namespace tempo {
namespace {
thread_local Task* current = nullptr;  // innermost Task this thread runs

void default_assertion_handler(const char* message, const char* file, int line) {
  std::fprintf(stderr, "tempo: %s (%s:%d)\n", message, file, line);
  std::abort();
}
std::atomic<AssertionHandler> assertion_handler{&default_assertion_handler};

// An integer in [1, max] from the environment (tempo/env.hpp's rule), or 0 when unset.
std::size_t env_positive(const char* name, std::size_t max) {
  return static_cast<std::size_t>(tempo::env_integer(name, 1, max).value_or(0));
}

// Heartbeats longer than this are refused: a minute between heartbeats means
// no sharing at all, and far larger values overflow the clock arithmetic.
constexpr std::chrono::nanoseconds max_heartbeat = std::chrono::seconds(60);
}  // namespace

AssertionHandler set_assertion_handler(AssertionHandler handler) noexcept {
  return assertion_handler.exchange(handler ? handler : &default_assertion_handler);
}

namespace detail {
void assertion_failed(const char* message, const char* file, int line) {
  assertion_handler.load()(message, file, line);
  std::abort();  // a handler that returns is itself a mistake
}

std::chrono::nanoseconds default_heartbeat() {
  const auto max_us = static_cast<std::size_t>(std::chrono::duration_cast<std::chrono::microseconds>(max_heartbeat).count());
  std::size_t us = env_positive("TEMPO_HEARTBEAT_US", max_us);
  return std::chrono::microseconds(us ? us : 100);
}

Task* current_task() noexcept { return current; }

// ---------------------------------------------------------------- PoolCore

namespace {
bool env_flag(const char* name, bool fallback) { return tempo::env_flag(name).value_or(fallback); }
}  // namespace

PoolCore::PoolCore(std::size_t threads, std::chrono::nanoseconds heartbeat)
    : threads_(threads),
      heartbeat_(heartbeat),
      runs_needed_(threads > 1 ? 1 : 2),
      // On together by default (docs/design.md, section 4, "Promotion
      // defaults"): aging keeps work shorter than a heartbeat on its thread,
      // idle requests hand longer work to a worker soon after it runs dry.
      idle_requests_(env_flag("TEMPO_IDLE_REQUESTS", true)),
      aged_promotion_(env_flag("TEMPO_AGED_PROMOTION", true)),
      eager_loops_(env_flag("TEMPO_EAGER_LOOPS", true)) {
  for (std::size_t i = 1; i < threads_; ++i) tasks_.push_back(std::unique_ptr<Task>(new Task(*this, i - 1)));
  workers_.reserve(threads_ - 1);
  try {
    for (std::size_t i = 1; i < threads_; ++i) workers_.emplace_back([this, t = tasks_[i - 1].get()] { worker_main(t); });
    heartbeat_thread_ = std::thread([this] { heartbeat_main(); });
  } catch (...) {
    stop();  // threads that started must end before the members go
    throw;
  }
}

PoolCore::~PoolCore() { stop(); }

void PoolCore::stop() noexcept {
  // seq_cst pairs with the reads in heartbeat_main's predicates (under hb_mutex_)
  // and in the idle loop (acquire): every sleeper either sees it or is woken below.
  stopping_.store(true);
  {
    std::lock_guard lock(hb_mutex_);
    hb_cv_.notify_all();
  }
  {
    std::lock_guard lock(mutex_);
    while (Task* t = pop_idle_locked()) t->notify();
  }
  for (auto& w : workers_)
    if (w.joinable()) w.join();
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
}

Stats PoolCore::stats() const noexcept {
  Stats s;
  std::lock_guard lock(const_cast<std::mutex&>(mutex_));
  for (const auto& t : tasks_) {
    // relaxed: statistics, read without ordering against the owner's work.
    s.heartbeats += t->heartbeats_.n.load(std::memory_order_relaxed);
    s.promoted += t->promoted_.n.load(std::memory_order_relaxed);
    s.stolen += t->stolen_.n.load(std::memory_order_relaxed);
    s.sleeps += t->sleeps_.n.load(std::memory_order_relaxed);
    s.wakes += t->wakes_.n.load(std::memory_order_relaxed);
  }
  return s;
}

Task* PoolCore::acquire_external() {
  Task* t;
  {
    std::lock_guard lock(mutex_);
    if (!free_external_.empty()) {
      t = free_external_.back();
      free_external_.pop_back();
    } else {
      tasks_.push_back(std::unique_ptr<Task>(new Task(*this, tasks_.size())));
      t = tasks_.back().get();
    }
  }
  t->owner_thread_ = std::this_thread::get_id();
  // Work shorter than one full heartbeat interval never leaves this thread.
  t->eligible_beat_ = beats_.load(std::memory_order_relaxed) + 2;
  return t;
}

void PoolCore::release_external(Task* t) noexcept {
  t->owner_thread_ = std::thread::id{};
  std::lock_guard lock(mutex_);
  free_external_.push_back(t);
}

void PoolCore::enter_run() noexcept {
  // seq_cst store/load pair with heartbeat_main's (hb_parked_ store, active_runs_
  // load): at least one side sees the other, so the heartbeat never sleeps
  // through a run.
  // Only a run that makes the heartbeat useful wakes it: in a one-thread pool
  // a single caller would wake it for nothing (a futex call per run).
  if (active_runs_.fetch_add(1) + 1 >= runs_needed_ && hb_parked_.load()) {
    std::lock_guard lock(hb_mutex_);
    hb_cv_.notify_one();
  }
}

void PoolCore::leave_run() noexcept { active_runs_.fetch_sub(1); }

void PoolCore::push_shared(JobBase* job) {
  Task* wake = nullptr;
  {
    std::lock_guard lock(mutex_);
    job->shared.queue_next = nullptr;
    if (queue_tail_) queue_tail_->shared.queue_next = job;
    else queue_head_ = job;
    queue_tail_ = job;
    detail::chaos();
    wake = pop_idle_locked();
  }
  detail::chaos();
  if (wake) wake->notify();
}

JobBase* PoolCore::pop_shared_locked() noexcept {
  JobBase* job = queue_head_;
  if (job) {
    queue_head_ = job->shared.queue_next;
    if (!queue_head_) queue_tail_ = nullptr;
  }
  return job;
}

void PoolCore::request_work() noexcept {
  if (!idle_requests_ || active_runs_.load(std::memory_order_relaxed) == 0) return;
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now().time_since_epoch()).count();
  std::int64_t last = last_request_ns_.load(std::memory_order_relaxed);
  if (now - last < heartbeat_.count() / 4) return;
  if (!last_request_ns_.compare_exchange_strong(last, now, std::memory_order_relaxed)) return;  // someone else just did
  std::lock_guard lock(mutex_);
  // relaxed: as in heartbeat_main, the flag carries no data.
  for (auto& t : tasks_) t->heartbeat_.store(true, std::memory_order_relaxed);
}

void PoolCore::add_idle_locked(Task* t) noexcept {
  t->idle_prev_ = nullptr;
  t->idle_next_ = idle_head_;
  if (idle_head_) idle_head_->idle_prev_ = t;
  idle_head_ = t;
  t->idle_listed_ = true;
  // seq_cst: the increment pairs with heartbeat_main's idle parking (its
  // predicate reads the count after storing hb_awaits_idle_; note_idle reads
  // hb_awaits_idle_ after this). Elsewhere the count is a hint; the list is the truth.
  idle_count_.fetch_add(1);
}

void PoolCore::remove_idle_locked(Task* t) noexcept {
  if (t->idle_prev_) t->idle_prev_->idle_next_ = t->idle_next_;
  else idle_head_ = t->idle_next_;
  if (t->idle_next_) t->idle_next_->idle_prev_ = t->idle_prev_;
  t->idle_listed_ = false;
  idle_count_.fetch_sub(1, std::memory_order_relaxed);
}

Task* PoolCore::pop_idle_locked() noexcept {
  Task* t = idle_head_;
  if (t) remove_idle_locked(t);
  return t;
}

void PoolCore::worker_main(Task* t) {
  current = t;
  t->owner_thread_ = std::this_thread::get_id();
  t->work_until_stopped();
}

void PoolCore::heartbeat_main() {
  std::unique_lock lock(hb_mutex_);
  auto next_beat = std::chrono::steady_clock::now() + heartbeat_;
  while (!stopping_.load()) {
    if (active_runs_.load() < runs_needed_) {
      hb_parked_.store(true);
      hb_cv_.wait(lock, [&] { return active_runs_.load() >= runs_needed_ || stopping_.load(); });
      hb_parked_.store(false);
      next_beat = std::chrono::steady_clock::now() + heartbeat_;
      continue;
    }
    // Nobody idle: a beat could hand work to nobody, and on a machine with
    // no spare core its wake-up only preempts a worker (design.md, section 4,
    // "Heartbeat parking"). Sleep until a worker joins the idle list
    // (note_idle). The beat count stands still meanwhile; the first beat after
    // waking comes at once if a whole interval has passed since the last one.
    // seq_cst: the hb_awaits_idle_ store / idle_count_ load pair with
    // add_idle_locked's increment and note_idle's hb_awaits_idle_ load.
    // enter_run's wake-up is not needed here: a run that ends is seen by the
    // predicate when the next worker goes idle, or by the next park.
    if (idle_count_.load() == 0) {
      hb_awaits_idle_.store(true);
      hb_cv_.wait(lock, [&] {
        return idle_count_.load() != 0 || active_runs_.load() < runs_needed_ || stopping_.load();
      });
      hb_awaits_idle_.store(false);
      continue;
    }
    if (hb_cv_.wait_until(lock, next_beat, [this] { return stopping_.load(); })) break;
    next_beat = std::chrono::steady_clock::now() + heartbeat_;
    // relaxed: single writer; readers only compare against it to delay promotion.
    beats_.store(beats_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (idle_count_.load(std::memory_order_relaxed) == 0) continue;  // nobody to hand work to
    detail::chaos();
    lock.unlock();
    {
      std::lock_guard tasks_lock(mutex_);
      // relaxed: a request to look at the idle list; the promotion itself is
      // ordered by mutex_.
      for (auto& t : tasks_) t->heartbeat_.store(true, std::memory_order_relaxed);
    }
    lock.lock();
  }
}

void PoolCore::note_idle() noexcept {
  // seq_cst: pairs with heartbeat_main's idle parking (see there). A parked
  // heartbeat thread is woken under hb_mutex_, so the wake-up cannot fall
  // between its predicate check and its wait.
  if (hb_awaits_idle_.load()) {
    std::lock_guard lock(hb_mutex_);
    hb_cv_.notify_one();
  }
}

// ---------------------------------------------------------------- RunScope

RunScope::RunScope(PoolCore& core) : core_(core), task_(nullptr), owns_(false) {
  for (Task* t = current; t != nullptr; t = t->outer_) {
    if (t->core_ == &core) {  // this thread already works for this pool: run inline
      task_ = t;
      break;
    }
  }
  if (task_ == nullptr) {
    task_ = core.acquire_external();
    owns_ = true;
    task_->outer_ = current;
    core.enter_run();
  }
  previous_ = current;
  current = task_;
}

RunScope::~RunScope() {
  current = previous_;
  if (owns_) {
    TEMPO_ASSERT(task_->tail_ == &task_->head_, "tempo::ThreadPool::run returned with a fork that was never joined");
    task_->outer_ = nullptr;
    core_.leave_run();
    core_.release_external(task_);
  }
}

}  // namespace detail

// ---------------------------------------------------------------- ThreadPool

ThreadPool::ThreadPool(Options options) {
  std::size_t threads = options.threads;
  if (threads > max_threads)
    throw std::invalid_argument("tempo::Options::threads must be at most " + std::to_string(max_threads) + ", got " +
                                std::to_string(threads));
  if (threads == 0) threads = env_positive("TEMPO_THREADS", max_threads);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  if (options.heartbeat <= std::chrono::nanoseconds::zero() || options.heartbeat > max_heartbeat)
    throw std::invalid_argument("tempo::Options::heartbeat must be positive and at most 60 s");
  core_ = std::make_unique<detail::PoolCore>(threads, options.heartbeat);
}

ThreadPool::~ThreadPool() {
  magic_ = 0;
  core_.reset();
}

std::size_t ThreadPool::thread_count() const noexcept { return core_->threads(); }
std::chrono::nanoseconds ThreadPool::heartbeat() const noexcept { return core_->heartbeat(); }
Stats ThreadPool::stats() const noexcept { return core_->stats(); }

}  // namespace tempo
