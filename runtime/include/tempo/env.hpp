// One rule for every TEMPO_* environment variable, in every part of tempo: unset or empty
// means "the default"; any other value must be one of the accepted ones, else
// std::invalid_argument names the variable, the value and what is accepted:
//   TEMPO_BACKEND='gpux' is not accepted (expected one of: cpu, cuda, gpu, auto)
// Names are compared case-insensitively. Variables are read at the call (cheap).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace tempo {

// The index in `accepted` of the variable's value, or nullopt when it is unset or empty.
std::optional<std::size_t> env_choice(const char* variable, std::initializer_list<std::string_view> accepted);

// An on/off switch: 0, off, false or 1, on, true; nullopt when unset or empty.
std::optional<bool> env_flag(const char* variable);

// An integer in [min, max], or nullopt when unset or empty.
std::optional<unsigned long long> env_integer(const char* variable, unsigned long long min, unsigned long long max);

// Case-insensitive ASCII comparison (the rule above, also for the parsers of names that
// a user types: backends, algorithms, presets, gates).
bool iequals(std::string_view a, std::string_view b) noexcept;

}  // namespace tempo
