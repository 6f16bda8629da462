// The wire formats and the small parsers: what is accepted, what each error says,
// and that every error is one printable line whatever bytes the input holds.
#include <cstring>
#include <random>

#include "command.hpp"
#include "text.hpp"
#include "util.hpp"
#include "wire.hpp"

using namespace tempo;
using namespace ftest;
using Catch::Contains;

namespace {
void load_binary(fanout::Request& r, const std::string& s) {
  r.data.resize(s.size() + 1);
  std::memcpy(r.data.data(), s.data(), s.size());
  fanout::parse_binary_in_place(r, s.size());
}
std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}
}  // namespace

TEST_CASE("S-expression requests parse; errors are named", "[fanout][wire]") {
  fanout::Request r;
  fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 32) (inputs \"deadbeef\" \"00FF00ff\" \"\"))", r);
  CHECK(r.n == 3);
  CHECK(r.out_bytes == 32);
  CHECK_FALSE(r.uniform);
  CHECK(r.offsets == std::vector<std::uint64_t>{0, 4, 8, 8});
  CHECK(r.data.data()[0] == 0xde);
  CHECK(r.data.data()[5] == 0xff);
  fanout::parse_sexpr("  ; comment\n(cuda-shake-fanout\n  (inputs \"00\" \"01\")\n  (output-bytes 64))\n", r);
  CHECK(r.uniform);
  CHECK(r.uniform_len == 1);
  CHECK(r.out_bytes == 64);

  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 32) (inputs \"abc\"))", r),
                    Contains("odd number"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 32) (inputs \"zz\"))", r),
                    Contains("bad hex") && Contains("'z'"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 32) (inputs \"00\"", r),
                    Contains("truncated"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 32) (inputs \"00", r),
                    Contains("unterminated"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (inputs \"00\"))", r), Contains("missing (output-bytes"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes x) (inputs))", r),
                    Contains("bad output-bytes"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 0) (inputs))", r), Contains("is 0"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 99999999) (inputs))", r),
                    Contains("over the limit"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(other (output-bytes 32) (inputs))", r), Contains("cuda-shake-fanout"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (output-bytes 32) (inputs)) x", r),
                    Contains("trailing"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("(cuda-shake-fanout (colour 3))", r), Contains("unknown field 'colour'"));
  CHECK_THROWS_WITH(fanout::parse_sexpr("", r), Contains("empty"));
}

TEST_CASE("S-expressions: one whitespace set everywhere (form feed and vertical tab included)", "[fanout][wire]") {
  fanout::Request r;
  fanout::parse_sexpr("\f(cuda-shake-fanout\v(output-bytes\f32\v)\r(inputs\f\"00\"\v\"01\"\f)\v)\f", r);
  CHECK(r.n == 2);
  CHECK(r.out_bytes == 32);
  // A symbol ends at any whitespace: "output-bytes\f32" is not one symbol.
  fanout::parse_sexpr("(cuda-shake-fanout (output-bytes\f32) (inputs))", r);
  CHECK(r.out_bytes == 32);
  for (const char ws : {' ', '\t', '\n', '\v', '\f', '\r'}) CHECK(fanout::is_space(ws));
  CHECK_FALSE(fanout::is_space('\0'));
}

TEST_CASE("errors quote input bytes escaped: one printable line, no truncation at NUL", "[fanout][wire]") {
  fanout::Request r;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string("(cuda-shake-fanout (col\x1b[31mour 3))"), "\\x1b[31m"},
      {std::string("(cuda-shake-fanout (output-bytes 3\n2) (inputs))"), "found '2'"},
      {std::string("(cuda-shake-fanout (output-bytes 3\x01" "2) (inputs))"), "\\x01"},
      {std::string("(cuda-shake-fanout (output-bytes 32) (inputs \"0") + '\0' + "\"))", "'\\x00'"},
      {std::string("(cuda-shake-fanout (output-bytes 32) (inputs \"0\n\"))"), "'\\n'"},
      {std::string("(cuda-shake-fanout (inputs) (output-bytes 1\\2))"), "'1\\\\2'"},
      {std::string("(x\x7f\xff (a))"), "x\\x7f\\xff"},
      {std::string("(cuda-shake-fanout \0(a))", 24), "found '\\x00'"},
  };
  for (const auto& [in, expect] : cases) {
    const std::string msg = what_of([&] { fanout::parse_sexpr(in, r); });
    INFO(fanout::escape(in) << " -> " << msg);
    CHECK(printable(msg));
    CHECK(msg.find(expect) != std::string::npos);
  }
  CHECK(fanout::escape(std::string("a\0b\n\\", 5)) == "a\\x00b\\n\\\\");
  CHECK(fanout::escape(std::string(300, 'x'), 10) == "xxxxxxxxxx...");
  CHECK(fanout::one_line("a\nb\\x00") == "a\\nb\\x00");
}

TEST_CASE("binary requests parse and compact; errors are named", "[fanout][wire]") {
  fanout::Request r;
  auto load = [&](const std::string& s) { load_binary(r, s); };
  load(u32(32) + u32(3) + u32(2) + "ab" + u32(0) + u32(3) + "cde");
  CHECK(r.n == 3);
  CHECK(r.data_size == 5);
  CHECK(std::string(reinterpret_cast<char*>(r.data.data()), 5) == "abcde");
  CHECK(r.offsets == std::vector<std::uint64_t>{0, 2, 2, 5});
  load(u32(16) + u32(2) + u32(2) + "ab" + u32(2) + "cd");
  CHECK(r.uniform);
  CHECK(r.uniform_len == 2);

  CHECK_THROWS_WITH(load("abc"), Contains("truncated") && Contains("header"));
  CHECK_THROWS_WITH(load(u32(32) + u32(2) + u32(2) + "ab"), Contains("count mismatch") || Contains("truncated"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1) + u32(5) + "ab"), Contains("truncated") && Contains("needs 5"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1) + u32(2) + "abXX"), Contains("count mismatch") && Contains("2 bytes after"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1000000) + u32(2) + "ab"), Contains("count mismatch"));
  CHECK_THROWS_WITH(load(u32(0) + u32(0)), Contains("output-bytes is 0"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1) + u32(0x7fffffff) + "ab"), Contains("over the limit"));
}

TEST_CASE("binary fast path (uniform lengths, parallel) agrees with the general parser", "[fanout][wire]") {
  ThreadPool pool(Options{.threads = 2});
  std::mt19937 gen(7);
  auto rng = [&] { return static_cast<std::uint32_t>(gen()); };
  for (int round = 0; round < 300; ++round) {
    // Mostly well-formed uniform requests, some with one length or the size wrong.
    const std::uint32_t n = rng() % 10 == 0 ? rng() % 5000 : rng() % 50;
    const std::uint32_t len = rng() % 5 == 0 ? 0 : rng() % 70;
    std::string s = u32(1 + rng() % 64) + u32(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      s += u32(len);
      for (std::uint32_t k = 0; k < len; ++k) s += static_cast<char>(rng());
    }
    const int damage = static_cast<int>(rng() % 4);
    if (damage == 1 && n > 0) s[8 + (rng() % n) * (4 + len)] ^= 1;  // one length wrong
    if (damage == 2) s += 'x';                                      // trailing byte
    if (damage == 3 && s.size() > 8) s.pop_back();                  // truncated
    fanout::Request fast, slow;
    const bool ok_fast = pool.run([&](Task& t) {
      return fanout::parse_binary_uniform(t, reinterpret_cast<const std::uint8_t*>(s.data()), s.size(), fast);
    });
    bool ok_slow = true;
    try {
      load_binary(slow, s);
    } catch (const fanout::WireError&) {
      ok_slow = false;
    }
    INFO("round " << round << " n " << n << " len " << len << " damage " << damage);
    if (ok_fast) {
      REQUIRE(ok_slow);
      CHECK(fast.n == slow.n);
      CHECK(fast.out_bytes == slow.out_bytes);
      CHECK(slow.uniform);
      CHECK(fast.uniform_len == slow.uniform_len);
      REQUIRE(fast.data_size == slow.data_size);
      CHECK(std::memcmp(fast.data.data(), slow.data.data(), fast.data_size) == 0);
    } else if (ok_slow) {
      CHECK((n == 0 || !slow.uniform));  // the fast path declines only what it does not cover
    }
  }
}

TEST_CASE("format_sexpr writes cuda-fanout's result shape; the streamed pieces add up to it", "[fanout][wire]") {
  const std::uint8_t d[4] = {0x00, 0xAB, 0xcd, 0xef};
  fanout::Timing t{0.4, 0.1, 12.7, 0.3};
  const std::string whole = fanout::format_sexpr(2, 2, d, t);
  CHECK(whole ==
        "(cuda-shake-fanout-result\n  (n 2)\n  (output-bytes 2)\n  (hashes\n    \"00ab\"\n    \"cdef\")\n"
        "  (timing-ms (load 0.400) (launch 0.100) (kernel 12.700) (write 0.300)))\n");
  std::string pieces = fanout::sexpr_head(2, 2);
  std::string e(2 * fanout::sexpr_entry_size(2), '?');
  fanout::sexpr_entries(d, 1, 2, e.data());
  fanout::sexpr_entries(d + 2, 1, 2, e.data() + fanout::sexpr_entry_size(2));
  pieces += e + fanout::sexpr_tail(t);
  CHECK(pieces == whole);
  CHECK(fanout::format_sexpr(0, 32, {}, t).find("(hashes)\n") != std::string::npos);
}

TEST_CASE("numbers: digits only, within bounds, clear message", "[fanout][wire]") {
  CHECK(fanout::parse_count("--threads", "12", 0, 4096) == 12);
  CHECK(fanout::parse_count("--threads", "0", 0, 4096) == 0);
  CHECK(fanout::parse_count("--threads", "4096", 0, 4096) == 4096);
  for (const char* bad : {"-1", "12x", "abc", "", " 1", "+1", "4097", "99999999999999999999999", "1e3", "0x10"})
    CHECK_THROWS_WITH(fanout::parse_count("--threads", bad, 0, 4096),
                      Contains("--threads must be an integer from 0 to 4096, got '"));
  CHECK_THROWS_AS(fanout::parse_count("X", "-1", 0, 1), std::invalid_argument);
}

TEST_CASE("daemon command parser", "[fanout][wire][daemon]") {
  using K = fanout::Command::Kind;
  auto c = fanout::parse_command("process a b");
  CHECK(c.kind == K::process);
  CHECK(c.in == "a");
  CHECK(c.out == "b");
  c = fanout::parse_command("\t process-bin\fa\vb \r");
  CHECK(c.kind == K::process_bin);
  CHECK(c.in == "a");
  CHECK(c.out == "b");
  CHECK(fanout::parse_command("").kind == K::none);
  CHECK(fanout::parse_command(" \t\r").kind == K::none);
  CHECK(fanout::parse_command("quit").kind == K::quit);
  CHECK_THROWS_WITH(fanout::parse_command("frob"), Contains("unknown command 'frob'"));
  CHECK_THROWS_WITH(fanout::parse_command("process a"), Contains("usage: process IN OUT"));
  CHECK_THROWS_WITH(fanout::parse_command("process a b c"), Contains("usage"));
  const std::string nul("process a\0b c", 13);
  const std::string msg = what_of([&] { fanout::parse_command(nul); });
  CHECK(msg.find("control byte '\\x00'") != std::string::npos);
  CHECK(printable(msg));
  CHECK(printable(what_of([] { fanout::parse_command("\x1b[2Jfrob"); })));

  std::istringstream in(std::string(fanout::kMaxCommandLine + 10, 'x') + "\nquit\nlast");
  std::string line;
  CHECK(fanout::read_command_line(in, line) == fanout::LineStatus::too_long);
  CHECK(fanout::read_command_line(in, line) == fanout::LineStatus::ok);
  CHECK(line == "quit");
  CHECK(fanout::read_command_line(in, line) == fanout::LineStatus::ok);
  CHECK(line == "last");
  CHECK(fanout::read_command_line(in, line) == fanout::LineStatus::end);
}
