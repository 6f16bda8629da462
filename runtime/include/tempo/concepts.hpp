// The requirements tempo places on the callables and ranges it is given, as
// C++20 concepts. The API checks them with static_asserts whose messages say
// what was expected, so a mistake gives one readable line instead of pages of
// template errors.
#pragma once
#include <concepts>
#include <cstddef>
#include <functional>
#include <ranges>
#include <type_traits>

namespace tempo {
class Task;

// A branch of Task::join (or a tempo::Fork): callable as f(task).
template <class F>
concept branch = std::invocable<F&, Task&>;

// A loop body: body(i) or body(task, i), with i a std::size_t.
template <class B>
concept index_body = std::invocable<B&, std::size_t> || std::invocable<B&, Task&, std::size_t>;

// A body of parallel_for_each over range R: body(element) or body(task, element).
template <class B, class R>
concept element_body = std::invocable<B&, std::ranges::range_reference_t<R>> ||
                       std::invocable<B&, Task&, std::ranges::range_reference_t<R>>;

namespace detail {
template <class M, bool = std::invocable<M&, Task&, std::size_t>>
struct map_result {
  using type = std::invoke_result_t<M&, Task&, std::size_t>;
};
template <class M>
struct map_result<M, false> {
  using type = std::invoke_result_t<M&, std::size_t>;
};
template <class T>
concept arithmetic = std::is_arithmetic_v<T>;
// From -> To without narrowing (for arithmetic types: what To{from} accepts).
template <class From, class To>
concept converts_losslessly = std::convertible_to<From, To> &&
                              (!arithmetic<std::remove_cvref_t<From>> || !arithmetic<To> ||
                               requires(From&& f) { To{std::forward<From>(f)}; });
}  // namespace detail

// A map of parallel_reduce: map(i) or map(task, i) returning a value.
template <class M>
concept reduce_map = index_body<M> && !std::is_void_v<typename detail::map_result<M>::type>;

// What map(i) returns, references and cv removed.
template <reduce_map M>
using map_result_t = std::remove_cvref_t<typename detail::map_result<M>::type>;

// The type parallel_reduce folds in and returns: the common type of the
// identity and the map's result, so that neither is truncated (an int
// identity with a double map reduces in double).
template <class Identity, class M>
using reduce_result_t = std::common_type_t<std::remove_cvref_t<Identity>, map_result_t<M>>;

// The identity and map(i) have a common type to reduce in.
template <class Identity, class M>
concept reduce_identity =
    reduce_map<M> && requires { typename std::common_type<std::remove_cvref_t<Identity>, map_result_t<M>>::type; };

// combine(acc, map(i)) and combine(acc, acc) are R again, without narrowing.
template <class C, class R, class Mapped>
concept reduce_combine = std::invocable<C&, R, Mapped> && std::invocable<C&, R, R> &&
                         detail::converts_losslessly<std::invoke_result_t<C&, R, Mapped>, R> &&
                         detail::converts_losslessly<std::invoke_result_t<C&, R, R>, R>;

}  // namespace tempo
