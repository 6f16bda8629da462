// Misuse assertions. On when NDEBUG is not defined or TEMPO_ASSERTIONS is; off
// otherwise, where they cost nothing. Object layouts never depend on this switch.
#pragma once

namespace tempo {

// Called with a message that names the mistake. The default prints it and aborts.
// A replacement must not return (it may throw, which the tests use).
using AssertionHandler = void (*)(const char* message, const char* file, int line);
AssertionHandler set_assertion_handler(AssertionHandler handler) noexcept;

namespace detail {
void assertion_failed(const char* message, const char* file, int line);

#if !defined(NDEBUG) || defined(TEMPO_ASSERTIONS)
inline constexpr bool assertions_enabled = true;
#else
inline constexpr bool assertions_enabled = false;
#endif
}  // namespace detail
}  // namespace tempo

#define TEMPO_ASSERT(cond, message)                                          \
  do {                                                                       \
    if constexpr (::tempo::detail::assertions_enabled) {                     \
      if (!(cond)) ::tempo::detail::assertion_failed(message, __FILE__, __LINE__); \
    }                                                                        \
  } while (0)
