// A do-nothing Task with tempo::Task's call/join surface. Code written as a
// template over its Task type, compiled once with this and once with
// tempo::Task, measures what the runtime costs and nothing else: same source,
// same compiler decisions about lambdas and captures.
#pragma once
#include <functional>
#include <utility>

namespace tb {

struct SerialTask {
  template <class F, class... Args>
  decltype(auto) call(F&& f, Args&&... args) {
    return std::invoke(std::forward<F>(f), *this, std::forward<Args>(args)...);
  }
  // fa then fb, on this thread: what tempo's join does when nobody takes fb.
  template <class FA, class FB>
  auto join(FA&& fa, FB&& fb) {
    auto a = fa(*this);
    auto b = fb(*this);
    return std::pair<decltype(a), decltype(b)>(std::move(a), std::move(b));
  }
};

}  // namespace tb
