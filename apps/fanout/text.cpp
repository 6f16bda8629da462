#include "text.hpp"

#include <charconv>
#include <stdexcept>

namespace tempo::fanout {
namespace {
void append_escaped(std::string& out, unsigned char c) {
  static constexpr char digits[] = "0123456789abcdef";
  switch (c) {
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\\': out += "\\\\"; return;
    default: break;
  }
  if (c >= 0x20 && c < 0x7f) {
    out += static_cast<char>(c);
  } else {
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
  }
}
}  // namespace

std::string escape(std::string_view s, std::size_t max) {
  std::string out;
  const std::size_t n = s.size() < max ? s.size() : max;
  out.reserve(n + 8);
  for (std::size_t i = 0; i < n; ++i) append_escaped(out, static_cast<unsigned char>(s[i]));
  if (n < s.size()) out += "...";
  return out;
}

std::string quote(std::string_view s, std::size_t max) {
  std::string out(1, '\'');
  out += escape(s, max);
  out += '\'';
  return out;
}

std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    // Backslashes stay as they are: they are escape()'s own output here.
    if (c == '\\' || (c >= 0x20 && c < 0x7f)) out += ch;
    else append_escaped(out, c);
  }
  return out;
}

std::uint64_t parse_count(std::string_view name, std::string_view text, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  bool ok = !text.empty() && text.size() <= 20;
  for (const char c : text) ok = ok && c >= '0' && c <= '9';
  if (ok) {
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    ok = ec == std::errc() && p == text.data() + text.size() && v >= lo && v <= hi;
  }
  if (!ok)
    throw std::invalid_argument(std::string(name) + " must be an integer from " + std::to_string(lo) + " to " +
                                std::to_string(hi) + ", got " + quote(text, 40));
  return v;
}

}  // namespace tempo::fanout
