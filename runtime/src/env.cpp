// The environment-variable rule (tempo/env.hpp), secure_zero (tempo/secure_zero.hpp) and
// os_random (tempo/os_random.hpp).
#include <sys/random.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>

#include "tempo/env.hpp"
#include "tempo/os_random.hpp"
#include "tempo/secure_zero.hpp"

namespace tempo {

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::optional<std::size_t> env_choice(const char* variable, std::initializer_list<std::string_view> accepted) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  std::size_t i = 0;
  for (std::string_view a : accepted) {
    if (iequals(text, a)) return i;
    ++i;
  }
  std::string list;
  for (std::string_view a : accepted) list += (list.empty() ? "" : ", ") + std::string(a);
  throw std::invalid_argument(std::string(variable) + "='" + text + "' is not accepted (expected one of: " + list +
                              ")");
}

std::optional<bool> env_flag(const char* variable) {
  const auto i = env_choice(variable, {"0", "off", "false", "1", "on", "true"});
  if (!i) return std::nullopt;
  return *i >= 3;
}

std::optional<unsigned long long> env_integer(const char* variable, unsigned long long min, unsigned long long max) {
  const char* text = std::getenv(variable);
  if (text == nullptr || *text == '\0') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < min || v > max || text[0] < '0' || text[0] > '9')
    throw std::invalid_argument(std::string(variable) + "='" + text + "' is not accepted (expected an integer from " +
                                std::to_string(min) + " to " + std::to_string(max) + ")");
  return v;
}

void secure_zero(void* p, std::size_t n) noexcept {
  if (p == nullptr || n == 0) return;
  std::memset(p, 0, n);
  // The asm takes the pointer and clobbers memory: the compiler must assume the zeros are read.
  __asm__ __volatile__("" : : "r"(p) : "memory");
}

void os_random(std::span<std::uint8_t> out) {
  // getrandom blocks only until the kernel's pool is first initialised and may return less
  // than asked (or be interrupted by a signal before any byte): loop until full.
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t got = ::getrandom(out.data() + done, out.size() - done, 0);
    if (got < 0) {
      const int e = errno;
      if (e == EINTR) continue;
      throw std::runtime_error("tempo::os_random: getrandom failed: " + std::system_category().message(e));
    }
    done += static_cast<std::size_t>(got);
  }
}

}  // namespace tempo
