#include "command.hpp"

#include <vector>

#include "text.hpp"
#include "wire.hpp"

namespace tempo::fanout {

Command parse_command(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t b = i;
    while (i < line.size() && !is_space(line[i])) {
      const auto c = static_cast<unsigned char>(line[i]);
      if (c < 0x20 || c == 0x7f)
        throw WireError("command holds a control byte " + quote(line.substr(i, 1)) + " at byte " + std::to_string(i));
      ++i;
    }
    if (i > b) words.push_back(line.substr(b, i - b));
  }
  Command c;
  if (words.empty()) return c;
  const std::string_view cmd = words[0];
  if (cmd == "quit") {
    c.kind = Command::Kind::quit;
    return c;
  }
  if (cmd != "process" && cmd != "process-bin")
    throw WireError("unknown command " + quote(cmd, 40) + " (expected process, process-bin or quit)");
  if (words.size() != 3) throw WireError("usage: " + std::string(cmd) + " IN OUT");
  c.kind = cmd == "process" ? Command::Kind::process : Command::Kind::process_bin;
  c.in = words[1];
  c.out = words[2];
  return c;
}

LineStatus read_command_line(std::istream& in, std::string& line) {
  line.clear();
  bool any = false, too_long = false;
  std::streambuf* sb = in.rdbuf();
  for (;;) {
    const int ch = sb->sbumpc();
    if (ch == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      if (!any) return LineStatus::end;
      break;
    }
    any = true;
    if (ch == '\n') break;
    if (line.size() < kMaxCommandLine) line.push_back(static_cast<char>(ch));
    else too_long = true;
  }
  if (too_long) {
    line.clear();
    return LineStatus::too_long;
  }
  return LineStatus::ok;
}

}  // namespace tempo::fanout
