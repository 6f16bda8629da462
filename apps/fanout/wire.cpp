// Parsers and formatters of the cuda-fanout wire formats. Every error is a WireError
// with one line naming the problem; nothing is partially accepted.
#include "wire.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>

#include "text.hpp"

namespace tempo::fanout {
namespace {

std::string pos_text(std::size_t pos) { return " at byte " + std::to_string(pos); }

// Grows `b` to at least `need` bytes without copying its old contents.
void ensure_fresh(gpu::HostBuffer& b, std::size_t need) {
  if (b.size() >= need) return;
  b = gpu::HostBuffer();
  b.resize(need);
}

class SexprReader {
 public:
  explicit SexprReader(std::string_view s) : s_(s) {}

  void skip_ws() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (is_space(c)) {
        ++i_;
      } else if (c == ';') {  // comment to end of line
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else {
        break;
      }
    }
  }
  bool at_end() {
    skip_ws();
    return i_ >= s_.size();
  }
  char peek() {
    skip_ws();
    if (i_ >= s_.size()) throw WireError("truncated S-expression input (ended" + pos_text(i_) + ")");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c)
      throw WireError(std::string("expected '") + c + "'" + pos_text(i_) + ", found " + quote(s_.substr(i_, 1)));
    ++i_;
  }
  std::string_view symbol() {
    skip_ws();
    const std::size_t b = i_;
    while (i_ < s_.size() && !is_space(s_[i_]) && s_[i_] != '(' && s_[i_] != ')' && s_[i_] != '"' && s_[i_] != ';')
      ++i_;
    if (b == i_) {
      if (i_ >= s_.size()) throw WireError("truncated S-expression input (ended" + pos_text(i_) + ")");
      throw WireError("expected a symbol" + pos_text(b) + ", found " + quote(s_.substr(b, 1)));
    }
    return s_.substr(b, i_ - b);
  }
  std::uint64_t integer(const char* what) {
    skip_ws();
    const std::size_t b = i_;
    const std::string_view sym = symbol();
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(sym.data(), sym.data() + sym.size(), v);
    if (ec != std::errc() || p != sym.data() + sym.size())
      throw WireError(std::string("bad ") + what + " " + quote(sym, 40) + pos_text(b));
    return v;
  }
  // The contents of a "..." string (no escapes: the format carries hex only).
  std::string_view string() {
    expect('"');
    const std::size_t b = i_;
    const void* q = std::memchr(s_.data() + i_, '"', s_.size() - i_);
    if (q == nullptr) throw WireError("truncated S-expression input: unterminated string" + pos_text(b - 1));
    i_ = static_cast<std::size_t>(static_cast<const char*>(q) - s_.data());
    std::string_view v = s_.substr(b, i_ - b);
    ++i_;
    return v;
  }
  std::size_t pos() {
    skip_ws();
    return i_;
  }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::uint32_t read_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

bool out_bytes_ok(std::uint64_t out_bytes) { return out_bytes != 0 && out_bytes <= kMaxOutputBytes; }
bool total_ok(std::uint64_t n, std::uint64_t out_bytes) {
  return n <= kMaxMessages && n * out_bytes <= kMaxTotalOutput;  // n <= 2^28, out_bytes <= 2^20: no overflow
}

void check_out_bytes(std::uint64_t out_bytes) {
  if (out_bytes == 0) throw WireError("output-bytes is 0");
  if (out_bytes > kMaxOutputBytes)
    throw WireError("output-bytes " + std::to_string(out_bytes) + " is over the limit of " +
                    std::to_string(kMaxOutputBytes));
}

void check_total(std::uint64_t n, std::uint64_t out_bytes) {
  if (n > kMaxMessages)
    throw WireError("message count " + std::to_string(n) + " is over the limit of " + std::to_string(kMaxMessages));
  if (n * out_bytes > kMaxTotalOutput)
    throw WireError("output of " + std::to_string(n) + " x " + std::to_string(out_bytes) + " bytes is over the limit of " +
                    std::to_string(kMaxTotalOutput) + " bytes");
}

void note_length(Request& r, std::size_t index, std::uint64_t len) {
  if (len > kMaxMessageBytes)
    throw WireError("input " + std::to_string(index) + " is " + std::to_string(len) + " bytes, over the limit of " +
                    std::to_string(kMaxMessageBytes));
  if (index == 0) {
    r.uniform = true;
    r.uniform_len = static_cast<std::size_t>(len);
  } else if (r.uniform && len != r.uniform_len) {
    r.uniform = false;
    // Offsets so far: all uniform.
    r.offsets.resize(index + 1);
    for (std::size_t k = 0; k <= index; ++k) r.offsets[k] = k * r.uniform_len;
  }
}

void reset(Request& r) {
  r.n = 0;
  r.out_bytes = 0;
  r.data_size = 0;
  r.uniform = true;
  r.uniform_len = 0;
  r.offsets.clear();
}

}  // namespace

void parse_sexpr(std::string_view text, Request& r) {
  reset(r);
  // Decoded messages never exceed half the text: one allocation, no regrowth.
  ensure_fresh(r.data, text.size() / 2 + 1);
  SexprReader rd(text);
  if (rd.at_end()) throw WireError("empty input");
  rd.expect('(');
  const std::string_view head = rd.symbol();
  if (head != "cuda-shake-fanout")
    throw WireError("expected (cuda-shake-fanout ...), found (" + escape(head, 40) + " ...)");
  bool have_out = false, have_inputs = false;
  while (rd.peek() != ')') {
    rd.expect('(');
    const std::size_t field_pos = rd.pos();
    const std::string_view field = rd.symbol();
    if (field == "output-bytes") {
      if (have_out) throw WireError("output-bytes given twice" + pos_text(field_pos));
      r.out_bytes = static_cast<std::size_t>(rd.integer("output-bytes"));
      check_out_bytes(r.out_bytes);
      have_out = true;
      rd.expect(')');
    } else if (field == "inputs") {
      if (have_inputs) throw WireError("inputs given twice" + pos_text(field_pos));
      have_inputs = true;
      while (rd.peek() != ')') {
        if (rd.peek() != '"') throw WireError("expected a hex string in inputs" + pos_text(rd.pos()));
        const std::size_t str_pos = rd.pos();
        const std::string_view hex = rd.string();
        if (hex.size() % 2 != 0)
          throw WireError("bad hex in input " + std::to_string(r.n) + ": odd number of digits" + pos_text(str_pos));
        const std::size_t len = hex.size() / 2;
        note_length(r, r.n, len);
        if (r.n + 1 > kMaxMessages) throw WireError("more than " + std::to_string(kMaxMessages) + " inputs");
        std::uint8_t* dst = r.data.data() + r.data_size;  // fits: see ensure_fresh above
        for (std::size_t k = 0; k < len; ++k) {
          const int hi = hex_value(hex[2 * k]), lo = hex_value(hex[2 * k + 1]);
          if (hi < 0 || lo < 0)
            throw WireError("bad hex in input " + std::to_string(r.n) + ": " +
                            quote(hex.substr(hi < 0 ? 2 * k : 2 * k + 1, 1)) +
                            pos_text(str_pos + 1 + 2 * k + (hi < 0 ? 0 : 1)));
          dst[k] = static_cast<std::uint8_t>(hi << 4 | lo);
        }
        r.data_size += len;
        ++r.n;
        if (!r.uniform) r.offsets.push_back(r.data_size);
      }
      rd.expect(')');
    } else {
      throw WireError("unknown field " + quote(field, 40) + pos_text(field_pos));
    }
  }
  rd.expect(')');
  if (!rd.at_end()) throw WireError("trailing data after the request" + pos_text(rd.pos()));
  if (!have_out) throw WireError("missing (output-bytes N)");
  if (!have_inputs) throw WireError("missing (inputs ...)");
  check_total(r.n, r.out_bytes);
}

void parse_binary_in_place(Request& r, std::size_t size) {
  reset(r);
  std::uint8_t* p = r.data.data();
  if (size < 8) throw WireError("truncated binary input: " + std::to_string(size) + " bytes, header needs 8");
  const std::uint64_t out_bytes = read_u32(p);
  const std::uint64_t n = read_u32(p + 4);
  check_out_bytes(out_bytes);
  check_total(n, out_bytes);
  // Each record needs at least its 4-byte length: reject impossible counts before any work.
  if (n > (size - 8) / 4)
    throw WireError("count mismatch: header says " + std::to_string(n) + " inputs but the file has room for at most " +
                    std::to_string((size - 8) / 4));
  r.out_bytes = static_cast<std::size_t>(out_bytes);
  std::size_t rd = 8, wr = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (size - rd < 4)
      throw WireError("truncated binary input: input " + std::to_string(i) + " of " + std::to_string(n) +
                      " has no length (file ends" + pos_text(size) + ")");
    const std::uint64_t len = read_u32(p + rd);
    rd += 4;
    note_length(r, static_cast<std::size_t>(i), len);
    if (size - rd < len)
      throw WireError("truncated binary input: input " + std::to_string(i) + " needs " + std::to_string(len) +
                      " bytes, " + std::to_string(size - rd) + " left");
    // Compact: messages end to end at the front of the buffer (wr <= rd always).
    if (wr != rd && len > 0) std::memmove(p + wr, p + rd, static_cast<std::size_t>(len));
    rd += static_cast<std::size_t>(len);
    wr += static_cast<std::size_t>(len);
    if (!r.uniform) r.offsets.push_back(wr);
  }
  if (rd != size)
    throw WireError("count mismatch: " + std::to_string(size - rd) + " bytes after the " + std::to_string(n) +
                    " inputs the header announced");
  r.n = static_cast<std::size_t>(n);
  r.data_size = wr;
}

std::optional<UniformLayout> uniform_layout(const std::uint8_t* head, std::size_t size) {
  if (size < 12) return std::nullopt;
  const std::uint64_t out_bytes = read_u32(head), n = read_u32(head + 4), len = read_u32(head + 8);
  if (n == 0 || !out_bytes_ok(out_bytes) || !total_ok(n, out_bytes) || len > kMaxMessageBytes) return std::nullopt;
  const std::uint64_t rec = 4 + len;
  if ((size - 8) % rec != 0 || (size - 8) / rec != n) return std::nullopt;
  return UniformLayout{static_cast<std::size_t>(out_bytes), static_cast<std::size_t>(n), static_cast<std::size_t>(len)};
}

bool gather_uniform(Task& t, const std::uint8_t* records, std::size_t count, std::size_t len, std::uint8_t* out) {
  const std::size_t rec = 4 + len;
  // Blocks of about 256 KiB of records: big enough to amortise the loop, small
  // enough to spread over every worker.
  const std::size_t per_block = std::max<std::size_t>(1, (std::size_t{256} << 10) / rec);
  const std::size_t blocks = (count + per_block - 1) / per_block;
  std::atomic<bool> bad{false};
  tempo::parallel_for(t, 0, blocks, [&](std::size_t b) {
    const std::size_t i0 = b * per_block, i1 = std::min(count, i0 + per_block);
    const std::uint8_t* src = records + i0 * rec;
    std::uint8_t* dst = out + i0 * len;
    bool ok = true;
    for (std::size_t i = i0; i < i1; ++i) {
      ok &= read_u32(src) == len;
      std::memcpy(dst, src + 4, len);
      src += rec;
      dst += len;
    }
    if (!ok) bad.store(true, std::memory_order_relaxed);
  });
  return !bad.load(std::memory_order_relaxed);
}

bool parse_binary_uniform(Task& t, const std::uint8_t* in, std::size_t size, Request& r) {
  const std::optional<UniformLayout> u = uniform_layout(in, size);
  if (!u) return false;
  reset(r);
  ensure_fresh(r.data, u->n * u->len + 1);
  if (!gather_uniform(t, in + 8, u->n, u->len, r.data.data())) return false;
  r.out_bytes = u->out_bytes;
  r.n = u->n;
  r.uniform = true;
  r.uniform_len = u->len;
  r.data_size = u->n * u->len;
  return true;
}

std::string format_mismatch(const std::uint8_t* in, std::size_t size, bool binary, bool daemon) {
  if (size == 0) return {};
  if (!binary) {
    // A binary header's out_bytes is at most 2^20, so its fourth byte is 0: never text.
    if (size < 8 || !out_bytes_ok(read_u32(in))) return {};
    return "this looks like a binary request (header: output-bytes " + std::to_string(read_u32(in)) + ", " +
           std::to_string(read_u32(in + 4)) + " inputs); " + (daemon ? "use process-bin" : "use --binary");
  }
  if (std::memchr(in, 0, std::min<std::size_t>(size, 8)) != nullptr) return {};
  const std::size_t scan = std::min<std::size_t>(size, 4096);
  std::size_t i = 0;
  while (i < scan && is_space(static_cast<char>(in[i]))) ++i;
  if (i >= scan || (in[i] != '(' && in[i] != ';')) return {};
  return std::string("this looks like an S-expression request (text starting with ") +
         (in[i] == '(' ? "'('" : "a ';' comment") + "); " + (daemon ? "use process" : "drop --binary");
}

std::string sexpr_head(std::size_t n, std::size_t out_bytes) {
  return "(cuda-shake-fanout-result\n  (n " + std::to_string(n) + ")\n  (output-bytes " + std::to_string(out_bytes) +
         ")\n  (hashes";
}

void sexpr_entries(const std::uint8_t* digests, std::size_t count, std::size_t out_bytes, char* out) {
  static constexpr char digits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < count; ++i) {
    std::memcpy(out, "\n    \"", 6);
    out += 6;
    for (std::size_t k = 0; k < out_bytes; ++k) {
      out[2 * k] = digits[digests[k] >> 4];
      out[2 * k + 1] = digits[digests[k] & 15];
    }
    out += 2 * out_bytes;
    *out++ = '"';
    digests += out_bytes;
  }
}

std::string sexpr_tail(const Timing& t) {
  char buf[160];
  std::snprintf(buf, sizeof buf, ")\n  (timing-ms (load %.3f) (launch %.3f) (kernel %.3f) (write %.3f)))\n", t.load,
                t.launch, t.kernel, t.write);
  return buf;
}

std::string format_sexpr(std::size_t n, std::size_t out_bytes, std::span<const std::uint8_t> digests,
                         const Timing& t) {
  std::string s = sexpr_head(n, out_bytes);
  const std::size_t at = s.size();
  s.resize(at + n * sexpr_entry_size(out_bytes));
  sexpr_entries(digests.data(), n, out_bytes, s.data() + at);
  s += sexpr_tail(t);
  return s;
}

void binary_header(std::uint8_t (&h)[8], std::size_t n, std::size_t out_bytes) {
  for (int k = 0; k < 4; ++k) {
    h[k] = static_cast<std::uint8_t>(n >> (8 * k));
    h[4 + k] = static_cast<std::uint8_t>(out_bytes >> (8 * k));
  }
}

}  // namespace tempo::fanout
