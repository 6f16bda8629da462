// ThreadPool: owns the worker threads and the heartbeat thread.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include "tempo/grain.hpp"
#include "tempo/task.hpp"

namespace tempo {
namespace detail {
// Binds the calling thread to a Task of `core` for the duration of one run():
// a fresh one for an outside thread, the same one for a nested run on a thread
// that already works for this pool.
class RunScope {
 public:
  explicit RunScope(PoolCore& core);
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;
  Task& task() noexcept { return *task_; }

 private:
  PoolCore& core_;
  Task* task_;
  Task* previous_;  // the thread's current task before this scope
  bool owns_;
};
}  // namespace detail

class ThreadPool {
 public:
  explicit ThreadPool(Options options = {});
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs f(task) on the calling thread, which works as one of the pool's
  // threads until f returns; blocks until then. May be called from many threads
  // at once and from inside tasks of this or another pool. f's exception, if
  // any, propagates after every fork it made has been joined or dropped.
  template <class F>
  decltype(auto) run(F&& f) {
    TEMPO_ASSERT(magic_ == alive_magic, "tempo::ThreadPool::run called on a destroyed pool");
    detail::RunScope scope(*core_);
    return std::invoke(std::forward<F>(f), scope.task());
  }

  // run + tempo::parallel_for / tempo::parallel_reduce (defined in
  // tempo/parallel.hpp, which tempo/tempo.hpp includes).
  template <class Body>
  void parallel_for(std::size_t first, std::size_t last, Body&& body);
  template <class Body>
  void parallel_for(std::size_t first, std::size_t last, grain g, Body&& body);
  template <class Identity, class Map, class Combine>
  auto parallel_reduce(std::size_t first, std::size_t last, Identity&& identity, Map&& map, Combine&& combine);
  template <class Identity, class Map, class Combine>
  auto parallel_reduce(std::size_t first, std::size_t last, grain g, Identity&& identity, Map&& map,
                       Combine&& combine);

  std::size_t thread_count() const noexcept;
  std::chrono::nanoseconds heartbeat() const noexcept;
  Stats stats() const noexcept;

 private:
  static constexpr std::uint64_t alive_magic = 0x7e3b0a11ce5eed01ull;
  std::uint64_t magic_ = alive_magic;
  std::unique_ptr<detail::PoolCore> core_;
};
}  // namespace tempo
