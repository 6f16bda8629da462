// The daemon's command language, one command per line on stdin:
//   process IN OUT       S-expression request IN -> result OUT
//   process-bin IN OUT   binary request IN -> result OUT
//   help                 one line listing the commands and the quoting rule
//   quit                 answer "bye" and stop
// Words are separated by text.hpp's whitespace set; a line of only whitespace is
// ignored. A path with whitespace (or one starting with '"') is written in double
// quotes, inside which \" is a quote and \\ a backslash (no other escapes); outside
// quotes a backslash is an ordinary byte. '-' (standard input or output) is refused:
// the daemon's stdin carries the commands and its stdout the answers. A line longer
// than kMaxCommandLine or holding a control byte (NUL included) is an error.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace tempo::fanout {

inline constexpr std::size_t kMaxCommandLine = 64 * 1024;

struct Command {
  enum class Kind { none, process, process_bin, help, quit };
  Kind kind = Kind::none;
  std::string in, out;
};

// Parses one line (without its '\n'). Throws WireError (wire.hpp) with one line.
Command parse_command(std::string_view line);

// `path` as a command word: as it is when parse_command reads it back unchanged,
// else in double quotes with " and \ escaped. The daemon's "done OUT" uses it.
std::string command_word(std::string_view path);

// The answer to "help" (one line, without the '\n').
std::string help_line();

// Reads one line of at most kMaxCommandLine bytes into `line` (without the '\n';
// a last line without one counts). Returns false at end of input. A longer line is
// consumed to its end and reported as too_long (its bytes are dropped), so a peer
// that never sends '\n' cannot make the daemon's memory grow.
enum class LineStatus { ok, too_long, end };
LineStatus read_command_line(std::istream& in, std::string& line);

}  // namespace tempo::fanout
