// The intrusive job node that a fork places in its caller's stack frame.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace tempo {
class Task;

// The result of a branch that returns void.
struct unit {
  friend constexpr bool operator==(unit, unit) noexcept { return true; }
};

namespace detail {

// What a job needs only once it has been promoted; constructed by the owner at
// promotion (never on the fast path), so a queued fork costs three pointers.
struct SharedState {
  Task* owner;                           // worker to wake when the job completes
  struct JobBase* queue_next;            // link in the pool's shared FIFO (pool mutex)
  std::atomic<std::uint32_t> done{0};    // 0 -> 1 by the thief after the result is written
};

// Invariants (owner thread only, no atomics):
//  - queued: prev != nullptr; the job is on its owner's list, and when it is the
//    one being joined it is the list's tail (forks are joined in LIFO order).
//  - promoted: prev == nullptr; the job left the list at a heartbeat, `shared`
//    is live, and its frame must not be left before shared.done == 1.
//  - joined: execute == nullptr.
struct JobBase {
  JobBase* prev;
  JobBase* next;  // valid for every queued job but the tail
  void (*execute)(JobBase*, Task&) noexcept;
  union {
    SharedState shared;
  };
  JobBase() noexcept {}
  ~JobBase() {}
  JobBase(const JobBase&) = delete;
  JobBase& operator=(const JobBase&) = delete;
};

// Result type of a branch: references decay to values, void becomes unit.
template <class F>
using branch_result_t = std::conditional_t<std::is_void_v<std::invoke_result_t<F&, Task&>>, unit,
                                           std::remove_cvref_t<std::invoke_result_t<F&, Task&>>>;

template <class F>
branch_result_t<F> invoke_branch(F& f, Task& t) {
  if constexpr (std::is_void_v<std::invoke_result_t<F&, Task&>>) {
    std::invoke(f, t);
    return unit{};
  } else {
    return std::invoke(f, t);
  }
}

// A value or an exception, written by the thread that ran a promoted job.
// Storage only: the owner of the slot tracks which member is live.
template <class R>
struct ResultSlot {
  enum : std::uint8_t { empty, has_value, has_error };
  union {
    R value;
    std::exception_ptr error;
  };
  std::uint8_t state;  // written by the thief before done is released

  ResultSlot() noexcept {}
  ~ResultSlot() {}

  template <class F>
  void fill(F& f, Task& t) noexcept {
    try {
      ::new (static_cast<void*>(std::addressof(value))) R(invoke_branch(f, t));
      state = has_value;
    } catch (...) {
      ::new (static_cast<void*>(std::addressof(error))) std::exception_ptr(std::current_exception());
      state = has_error;
    }
  }
  // Out of line and cold: keeps the exception path out of every join.
  [[noreturn, gnu::cold, gnu::noinline]] void rethrow() {
    std::exception_ptr e = std::move(error);
    error.~exception_ptr();
    state = empty;
    std::rethrow_exception(std::move(e));
  }
  void destroy() noexcept {
    if (state == has_value) value.~R();
    else if (state == has_error) [[unlikely]] drop_error();
    state = empty;
  }
  [[gnu::cold, gnu::noinline]] void drop_error() noexcept { error.~exception_ptr(); }
};

}  // namespace detail
}  // namespace tempo
