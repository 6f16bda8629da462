// The daemon's command language, one command per line on stdin:
//   process IN OUT       S-expression request IN -> result OUT
//   process-bin IN OUT   binary request IN -> result OUT
//   quit                 answer "bye" and stop
// Words are separated by text.hpp's whitespace set (so paths cannot contain
// whitespace); a line of only whitespace is ignored. A line longer than
// kMaxCommandLine or holding a control byte (NUL included) is an error.
#pragma once

#include <cstddef>
#include <istream>
#include <string>
#include <string_view>

namespace tempo::fanout {

inline constexpr std::size_t kMaxCommandLine = 64 * 1024;

struct Command {
  enum class Kind { none, process, process_bin, quit };
  Kind kind = Kind::none;
  std::string in, out;
};

// Parses one line (without its '\n'). Throws WireError (wire.hpp) with one line.
Command parse_command(std::string_view line);

// Reads one line of at most kMaxCommandLine bytes into `line` (without the '\n';
// a last line without one counts). Returns false at end of input. A longer line is
// consumed to its end and reported as too_long (its bytes are dropped), so a peer
// that never sends '\n' cannot make the daemon's memory grow.
enum class LineStatus { ok, too_long, end };
LineStatus read_command_line(std::istream& in, std::string& line);

}  // namespace tempo::fanout
