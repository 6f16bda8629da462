// libFuzzer target: the daemon's command reader and parser (apps/fanout/command.cpp).
// Lines are bounded, errors printable, and accepted paths hold no whitespace or
// control bytes (they are echoed back in "done OUT").
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "command.hpp"
#include "fuzz_util.hpp"
#include "text.hpp"
#include "wire.hpp"

namespace {
bool clean_word(const std::string& w) {
  if (w.empty()) return false;
  for (const char c : w) {
    const auto u = static_cast<unsigned char>(c);
    if (tempo::fanout::is_space(c) || u < 0x20 || u == 0x7f) return false;
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
      if (c.kind == K::process || c.kind == K::process_bin)
        fuzz::require(clean_word(c.in) && clean_word(c.out), "paths are clean words");
    } catch (const tempo::fanout::WireError& e) {
      fuzz::check_message(e.what());
    }
  }
  return 0;
}
