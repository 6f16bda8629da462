// fork_shapes_returning: the fork-shape study of bench/results/2026-12-02-h200-s4
// (fork_shapes.cpp) with two changes, a design check and not part of the build:
//  - "scoped" replaces "frame_reg": tempo's frame job, but the job's scope ends
//    before the second branch runs, so its escaped address is dead at that call;
//  - -DTAKEN=1 makes the stolen path of "scoped" and "arena" return a value
//    (as a real join must) instead of calling a function that never returns
//    (-DTAKEN=0, the original study; -DTAKEN=2 passes the job to it).
// g++ -O3 -std=c++20 -static -DTAKEN=1 -o exp fork_shapes_returning.cpp; taskset -c 1 ./exp
// Count the recursive calls GCC kept (2 = the second branch became a loop):
// objdump -d -C exp | awk '/<long sum_byval<ArenaTask>.*>:$/,/^$/' | grep -c 'call.*sum_byval'
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>
#include <algorithm>
#include <new>
#include <functional>

struct Node { std::int64_t value; Node* left; Node* right; };
Node* build(std::vector<Node>& v, std::size_t& next, std::int64_t lo, std::int64_t hi) {
  if (lo >= hi) return nullptr;
  std::int64_t mid = lo + (hi - lo) / 2; Node* n = &v[next++]; n->value = mid;
  n->left = build(v, next, lo, mid); n->right = build(v, next, mid + 1, hi); return n;
}

struct SerialTask {
  template <class F, class... A> decltype(auto) call(F&& f, A&&... a) { return f(*this, a...); }
  template <class FA, class FB> auto join(FA&& fa, FB&& fb) { auto a = fa(*this); auto b = fb(*this); return std::pair(a, b); }
};

[[gnu::noinline, gnu::cold]] void cold_beat(std::atomic<bool>& b) { b.store(false); }
[[gnu::noinline, gnu::cold]] void cold_taken() { std::abort(); }
struct JobBase;
[[gnu::noinline, gnu::cold]] void cold_taken_arg(JobBase*) { std::abort(); }
template <class R> [[gnu::noinline, gnu::cold]] R taken_value(JobBase* j) { asm volatile("" :: "r"(j) : "memory"); return R{}; }

// --- frame-resident job (tempo's current shape)
struct JobBase { JobBase* prev; JobBase* next; void (*execute)(JobBase*); };
template <int RestoreFromReg>
struct FrameTask {
  JobBase* tail_; JobBase head_; std::atomic<bool> hb_{false};
  FrameTask() { tail_ = &head_; head_.prev = &head_; }
  void tick() { if (hb_.load(std::memory_order_relaxed)) [[unlikely]] cold_beat(hb_); }
  template <class F, class... A> decltype(auto) call(F&& f, A&&... a) { tick(); return f(*this, a...); }
  template <class F> struct Job : JobBase { F fn; static void run(JobBase* b) { (void)b; } };
  template <class FA, class FB> [[gnu::always_inline]] inline auto join(FA&& fa, FB&& fb) {
    using FBv = std::remove_cvref_t<FB>;
    Job<FBv> job{{nullptr, nullptr, &Job<FBv>::run}, fb};
    JobBase* last = tail_; job.prev = last; last->next = &job; tail_ = &job;
    tick();
    auto a = fa(*this);
    if (job.prev == nullptr) [[unlikely]] cold_taken();
    tail_ = RestoreFromReg ? last : job.prev;
    auto b = job.fn(*this);
    return std::pair(a, b);
  }
};
// --- frame job whose scope ends before the second branch runs
struct ScopedTask {
  JobBase* tail_; JobBase head_; std::atomic<bool> hb_{false};
  ScopedTask() { tail_ = &head_; head_.prev = &head_; }
  void tick() { if (hb_.load(std::memory_order_relaxed)) [[unlikely]] cold_beat(hb_); }
  template <class F, class... A> decltype(auto) call(F&& f, A&&... a) { tick(); return f(*this, a...); }
  template <class F> struct Job : JobBase { F fn; static void run(JobBase* b) { (void)b; } };
  template <class FA, class FB> [[gnu::always_inline]] inline auto join(FA&& fa, FB&& fb) {
    using FBv = std::remove_cvref_t<FB>;
    using RA = decltype(fa(*this));
    RA a;
    {
      Job<FBv> job{{nullptr, nullptr, &Job<FBv>::run}, fb};
      JobBase* last = tail_; job.prev = last; last->next = &job; tail_ = &job;
      tick();
      a = fa(*this);
      if (job.prev == nullptr) [[unlikely]] {
#if TAKEN == 1
        return std::pair(a, taken_value<decltype(fb(*this))>(&job));
#elif TAKEN == 2
        cold_taken_arg(&job);
#else
        cold_taken();
#endif
      }
      tail_ = job.prev;
    }
    auto b = fb(*this);
    return std::pair(a, b);
  }
};

// --- arena job: slots in a task-owned array; frame keeps no escaped local (byval)
struct Slot { void (*execute)(Slot*); alignas(8) unsigned char storage[32]; };
struct ArenaTask {
  Slot* top_; Slot* bottom_; std::atomic<bool> hb_{false}; Slot slots_[4096];
  ArenaTask() { top_ = slots_; bottom_ = slots_; }
  void tick() { if (hb_.load(std::memory_order_relaxed)) [[unlikely]] cold_beat(hb_); }
  template <class F, class... A> decltype(auto) call(F&& f, A&&... a) { tick(); return f(*this, a...); }
  template <class F> static void run(Slot* s) { (void)s; }
  template <class FA, class FB> [[gnu::always_inline]] inline auto join(FA&& fa, FB&& fb) {
    using FBv = std::remove_cvref_t<FB>;
    Slot* s = top_;
    s->execute = &run<FBv>;
    ::new (s->storage) FBv(fb);
    top_ = s + 1;
    tick();
    auto a = fa(*this);
#if TAKEN == 1
    if (s < bottom_) [[unlikely]] return std::pair(a, taken_value<decltype(fb(*this))>(nullptr));
#else
    if (s < bottom_) [[unlikely]] cold_taken();
#endif
    top_ = s;
    auto b = fb(*this);   // the caller's own closure: not escaped
    return std::pair(a, b);
  }
};

// --- arena, realistic: variable-size slots, limit check, promoted tag in the slot
struct VT { void (*run)(void*); std::size_t size; };
struct alignas(16) ArenaSlot { std::uintptr_t vt; };
struct Arena2Task {
  unsigned char* top_; unsigned char* limit_; std::atomic<bool> hb_{false};
  alignas(64) unsigned char mem_[1 << 16];
  Arena2Task() { top_ = mem_; limit_ = mem_ + sizeof mem_; }
  void tick() { if (hb_.load(std::memory_order_relaxed)) [[unlikely]] cold_beat(hb_); }
  template <class F, class... A> decltype(auto) call(F&& f, A&&... a) { tick(); return f(*this, a...); }
  template <class F, class R> struct Job { std::uintptr_t vt; F fn; R result; void* shared[3]; };
  template <class F, class R> static void run(void*) {}
  template <class F, class R> static constexpr VT vt{&run<F, R>, sizeof(Job<F, R>)};
  template <class FA, class FB> [[gnu::always_inline]] inline auto join(FA&& fa, FB&& fb) {
    using FBv = std::remove_cvref_t<FB>;
    using R = decltype(fb(*this));
    using J = Job<FBv, R>;
    constexpr std::size_t size = (sizeof(J) + 15) & ~std::size_t{15};
    unsigned char* s = top_;
    const bool room = static_cast<std::size_t>(limit_ - s) >= size;
    J* j = reinterpret_cast<J*>(s);
    if (room) [[likely]] {
      j->vt = reinterpret_cast<std::uintptr_t>(&vt<FBv, R>);
      ::new (&j->fn) FBv(fb);
      top_ = s + size;
    }
    tick();
    auto a = fa(*this);
    if (room) [[likely]] {
      if (j->vt & 1) [[unlikely]] cold_taken();
      top_ = s;
    }
    auto b = fb(*this);
    return std::pair(a, b);
  }
};

template <class Task> std::int64_t sum_byval(Task& t, const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    auto [a, b] = t.join([n](Task& t) { return sum_byval(t, n->left); }, [n](Task& t) { return sum_byval(t, n->right); });
    return r + a + b;
  }
  if (n->left) r += sum_byval(t, n->left);
  if (n->right) r += sum_byval(t, n->right);
  return r;
}
template <class Task> std::int64_t sum_byref(Task& t, const Node* n) {
  std::int64_t r = n->value;
  if (n->left && n->right) {
    auto [a, b] = t.join([&](Task& t) { return sum_byref(t, n->left); }, [&](Task& t) { return sum_byref(t, n->right); });
    return r + a + b;
  }
  if (n->left) r += t.call(sum_byref<Task>, n->left);
  if (n->right) r += t.call(sum_byref<Task>, n->right);
  return r;
}
template <class Task> std::uint64_t fib_byval(Task& t, int n) {
  if (n < 2) return (std::uint64_t)n;
  auto [a, b] = t.join([n](Task& t) { return fib_byval(t, n - 1); }, [n](Task& t) { return fib_byval(t, n - 2); });
  return a + b;
}
template <class Task> std::uint64_t fib_byref(Task& t, int n) {
  if (n < 2) return (std::uint64_t)n;
  auto [a, b] = t.join([&](Task& t) { return fib_byref(t, n - 1); }, [&](Task& t) { return fib_byref(t, n - 2); });
  return a + b;
}
std::uint64_t plain_fib(int n) { return n < 2 ? (std::uint64_t)n : plain_fib(n - 1) + plain_fib(n - 2); }

using Clock = std::chrono::steady_clock;
template <class F> double ns(F f) { auto t0 = Clock::now(); f(); return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

int main() {
  std::vector<Node> v(1023); std::size_t next = 0; build(v, next, 0, 1023);
  const Node* root = v.data();
  const int reps = 2000;
  static FrameTask<0> f0; static ScopedTask f1; static ArenaTask ar; static Arena2Task a2; SerialTask st;
  auto tree = [&](auto& task, auto fn) { return [&task, fn, root, reps] { std::int64_t acc = 0; for (int r = 0; r < reps; ++r) { const Node* n = root; asm volatile("" : "+r"(n)); acc += fn(task, n); } if (acc != (std::int64_t)1023 * 1022 / 2 * reps) std::abort(); }; };
  struct C { const char* name; double units; std::vector<std::function<void()>> fs; };
  std::vector<C> cs;
  cs.push_back({"tree byval", 1023.0 * reps, {tree(st, sum_byval<SerialTask>), tree(f0, sum_byval<FrameTask<0>>), tree(f1, sum_byval<ScopedTask>), tree(ar, sum_byval<ArenaTask>), tree(a2, sum_byval<Arena2Task>)}});
  cs.push_back({"tree byref", 1023.0 * reps, {tree(st, sum_byref<SerialTask>), tree(f0, sum_byref<FrameTask<0>>), tree(f1, sum_byref<ScopedTask>), tree(ar, sum_byref<ArenaTask>), tree(a2, sum_byref<Arena2Task>)}});
  auto fib = [](auto& task, auto fn) { return [&task, fn] { volatile int m = 30; if (fn(task, m) != 832040) std::abort(); }; };
  auto pf = [] { volatile int m = 30; if (plain_fib(m) != 832040) std::abort(); };
  const double calls = 2692537;
  cs.push_back({"fib byval", calls, {pf, fib(f0, fib_byval<FrameTask<0>>), fib(f1, fib_byval<ScopedTask>), fib(ar, fib_byval<ArenaTask>), fib(a2, fib_byval<Arena2Task>)}});
  cs.push_back({"fib byref", calls, {pf, fib(f0, fib_byref<FrameTask<0>>), fib(f1, fib_byref<ScopedTask>), fib(ar, fib_byref<ArenaTask>), fib(a2, fib_byref<Arena2Task>)}});
  for (auto& c : cs) {
    std::vector<std::vector<double>> t(c.fs.size()), ratio(c.fs.size());
    for (auto& f : c.fs) f();
    for (int p = 0; p < 31; ++p) {
      std::vector<double> x(c.fs.size());
      for (std::size_t i = 0; i < c.fs.size(); ++i) { std::size_t k = (i + p) % c.fs.size(); x[k] = ns(c.fs[k]) / c.units; }
      for (std::size_t i = 0; i < c.fs.size(); ++i) { t[i].push_back(x[i]); ratio[i].push_back(x[i] / x[0]); }
    }
    std::printf("%-11s", c.name);
    const char* names[] = {"serial", "frame", "scoped", "arena", "arena2"};
    for (std::size_t i = 0; i < c.fs.size(); ++i) {
      std::sort(t[i].begin(), t[i].end()); std::sort(ratio[i].begin(), ratio[i].end());
      std::printf("  %s %.3f ns (x%.3f)", names[i], t[i][15], ratio[i][15]);
    }
    std::printf("\n");
  }
}
