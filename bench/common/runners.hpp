// How each runtime is given exactly k threads. Everything here is created once
// per benchmark, outside the timed loop.
#pragma once
#include <stdexcept>
#include <string>

#if defined(TB_WITH_TBB)
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#endif
#if defined(TB_WITH_OMP)
#include <omp.h>
#endif

namespace tb {

#if defined(TB_WITH_TBB)
// oneTBB caps its worker count at the hardware concurrency unless a
// global_control raises it, so 32 threads on a 16-core host needs both.
class TbbEnv {
 public:
  explicit TbbEnv(int k)
      : gc_(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(k)), arena_(k) {
    arena_.initialize();
  }
  template <class F>
  decltype(auto) run(F&& f) {
    return arena_.execute(std::forward<F>(f));
  }

 private:
  tbb::global_control gc_;
  tbb::task_arena arena_;
};
#endif

#if defined(TB_WITH_OMP)
// Runs f once on one thread of a team of exactly k threads (the others pick up
// the tasks f creates). libgomp keeps the team alive between regions.
template <class F>
void omp_run(int k, F&& f) {
  omp_set_dynamic(0);
#pragma omp parallel num_threads(k)
  {
#pragma omp single
    f();
  }
}

// libgomp silently gives fewer threads when OMP_THREAD_LIMIT is set; refuse to
// report such a run under the wrong thread count.
inline void omp_require_threads(int k) {
  int got = 0;
  omp_set_dynamic(0);
#pragma omp parallel num_threads(k)
  {
#pragma omp single
    got = omp_get_num_threads();
  }
  if (got != k)
    throw std::runtime_error("OpenMP gave " + std::to_string(got) + " threads, asked for " +
                             std::to_string(k) + " (OMP_THREAD_LIMIT?)");
}
#endif

}  // namespace tb
