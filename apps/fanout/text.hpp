// Error-message hygiene and number parsing shared by tempo-fanout's parsers.
//
// Every error tempo-fanout prints is one line of printable ASCII: bytes taken from
// the input (request text, daemon commands, file names, environment values) are
// escaped with escape()/quote() when the message is built, so what() itself is
// clean (a NUL no longer truncates it, a newline no longer splits it, an escape
// sequence never reaches the terminal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tempo::fanout {

// The one whitespace set of tempo-fanout (S-expressions and daemon commands): the
// C locale's isspace, i.e. space, \t, \n, \v, \f, \r.
constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// `s` with every byte outside printable ASCII written as \n, \r, \t or \xHH and a
// backslash as \\; at most `max` input bytes, then "..." when cut.
std::string escape(std::string_view s, std::size_t max = 200);
// "'" + escape(s, max) + "'".
std::string quote(std::string_view s, std::size_t max = 200);
// Makes an already-built message one printable line (control bytes escaped as
// above; idempotent on text that escape() produced). Used where messages leave the
// process, as a last line of defence for text that did not come through quote().
std::string one_line(std::string_view s);

// A plain unsigned decimal (digits only: no sign, no spaces, no suffix) in [lo, hi].
// Otherwise std::invalid_argument "NAME must be an integer from LO to HI, got 'TEXT'".
std::uint64_t parse_count(std::string_view name, std::string_view text, std::uint64_t lo, std::uint64_t hi);

}  // namespace tempo::fanout
