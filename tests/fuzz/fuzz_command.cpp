// libFuzzer target: the daemon's command reader and parser (apps/fanout/command.cpp).
// Lines are bounded, errors printable, accepted paths hold no control bytes (they
// are echoed back in "done OUT") and are never '-', and command_word() writes each
// path so that the parser reads it back unchanged (quoting round trip).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "command.hpp"
#include "fuzz_util.hpp"
#include "text.hpp"
#include "wire.hpp"

namespace {
bool clean_path(const std::string& w) {
  if (w.empty() || w == "-") return false;
  for (const char c : w) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::string line;
  for (;;) {
    const auto st = tempo::fanout::read_command_line(in, line);
    if (st == tempo::fanout::LineStatus::end) break;
    fuzz::require(line.size() <= tempo::fanout::kMaxCommandLine, "line bounded");
    fuzz::require(line.find('\n') == std::string::npos, "no newline in a line");
    if (st == tempo::fanout::LineStatus::too_long) continue;
    try {
      const auto c = tempo::fanout::parse_command(line);
      using K = tempo::fanout::Command::Kind;
      if (c.kind == K::process || c.kind == K::process_bin) {
        fuzz::require(clean_path(c.in) && clean_path(c.out), "paths are clean");
        const auto back = tempo::fanout::parse_command("process " + tempo::fanout::command_word(c.in) + " " +
                                                       tempo::fanout::command_word(c.out));
        fuzz::require(back.kind == K::process && back.in == c.in && back.out == c.out, "quoting round trip");
      }
    } catch (const tempo::fanout::WireError& e) {
      fuzz::check_message(e.what());
    }
  }
  return 0;
}
