#include "command.hpp"

#include <vector>

#include "text.hpp"
#include "wire.hpp"

namespace tempo::fanout {
namespace {

bool is_control(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return c < 0x20 || c == 0x7f;
}

[[noreturn]] void control_byte(std::string_view line, std::size_t i) {
  throw WireError("command holds a control byte " + quote(line.substr(i, 1)) + " at byte " + std::to_string(i));
}

// One double-quoted word starting at line[i] == '"'; leaves i after the closing quote.
std::string quoted_word(std::string_view line, std::size_t& i) {
  const std::size_t open = i++;
  std::string w;
  for (;;) {
    if (i >= line.size())
      throw WireError("unterminated quote: the path opened at byte " + std::to_string(open) + " has no closing '\"'");
    const char c = line[i];
    if (c == '"') break;
    if (c == '\\') {
      const char e = i + 1 < line.size() ? line[i + 1] : '\0';
      if (e != '"' && e != '\\')
        throw WireError("unknown escape " + quote(line.substr(i, 2)) + " in a quoted path at byte " + std::to_string(i) +
                        " (inside quotes only \\\" and \\\\ are escapes)");
      w += e;
      i += 2;
      continue;
    }
    if (is_control(c)) control_byte(line, i);
    w += c;
    ++i;
  }
  ++i;  // the closing quote
  if (i < line.size() && !is_space(line[i]))
    throw WireError("expected a space after the quoted path closed at byte " + std::to_string(i - 1) + ", found " +
                    quote(line.substr(i, 1)));
  if (w.empty()) throw WireError("empty path \"\" at byte " + std::to_string(open));
  return w;
}

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::size_t i = 0;
  for (;;) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i >= line.size()) return words;
    if (line[i] == '"') {
      words.push_back(quoted_word(line, i));
      continue;
    }
    const std::size_t b = i;
    for (; i < line.size() && !is_space(line[i]); ++i) {
      if (is_control(line[i])) control_byte(line, i);
      if (line[i] == '"')
        throw WireError("a '\"' inside a word at byte " + std::to_string(i) +
                        ": put the whole path in double quotes, with \\\" for a quote");
    }
    words.emplace_back(line.substr(b, i - b));
  }
}

}  // namespace

Command parse_command(std::string_view line) {
  const std::vector<std::string> words = split_words(line);
  Command c;
  if (words.empty()) return c;
  const std::string& cmd = words[0];
  if (cmd == "quit" || cmd == "help") {
    c.kind = cmd == "quit" ? Command::Kind::quit : Command::Kind::help;
    return c;
  }
  if (cmd != "process" && cmd != "process-bin")
    throw WireError("unknown command " + quote(cmd, 40) + " (expected process, process-bin, help or quit)");
  if (words.size() != 3)
    throw WireError("usage: " + cmd + " IN OUT (" + std::to_string(words.size() - 1) +
                    " paths given; a path with spaces goes in double quotes)");
  for (std::size_t k = 1; k < 3; ++k)
    if (words[k] == "-")
      throw WireError(std::string(k == 1 ? "IN" : "OUT") +
                      " '-' (standard input or output) is not available in the daemon: its stdin carries the "
                      "commands and its stdout the answers (a file named '-': write ./-)");
  c.kind = cmd == "process" ? Command::Kind::process : Command::Kind::process_bin;
  c.in = words[1];
  c.out = words[2];
  return c;
}

std::string command_word(std::string_view path) {
  bool plain = !path.empty();
  for (const char c : path) plain = plain && !is_space(c) && c != '"';
  if (plain) return std::string(path);
  std::string w = "\"";
  for (const char c : path) {
    if (c == '"' || c == '\\') w += '\\';
    w += c;
  }
  w += '"';
  return w;
}

std::string help_line() {
  return "help commands: process IN OUT (S-expression request), process-bin IN OUT (binary request), help, quit; "
         "answers: done OUT, error MESSAGE, bye; a path with spaces goes in double quotes, inside which \\\" is a "
         "quote and \\\\ a backslash; '-' is refused (stdin and stdout carry commands and answers)";
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
