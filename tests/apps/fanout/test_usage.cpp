// tempo-fanout as a new user meets it: --help (formats, '-', daemon commands),
// --version, '-' for standard input and output, binary output to a terminal, the
// daemon's help and quoted paths, and advice when a request is in the other format.
#include "command.hpp"
#include "util.hpp"
#include "wire.hpp"

using namespace tempo;
using namespace ftest;

namespace {
std::vector<std::string> lines_of(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> l;
  for (std::string x; std::getline(in, x);) l.push_back(x);
  return l;
}
const std::string kSexpr = "(cuda-shake-fanout (output-bytes 32) (inputs \"616263\"))";
std::string binary_request() { return u32(32) + u32(1) + u32(3) + "abc"; }
}  // namespace

TEST_CASE("tempo-fanout --help: formats, '-', daemon commands, on stdout with exit 0", "[fanout][tool][usage]") {
  const std::string d = tmpdir();
  std::string out;
  REQUIRE(run(exe() + " --help 2>" + d + "/help.err", out) == 0);
  CHECK(read_file(d + "/help.err").empty());
  for (const char* want : {"(cuda-shake-fanout (output-bytes N) (inputs", "(cuda-shake-fanout-result (n COUNT)",
                           "request: output-bytes, count, then count x (length, length bytes)",
                           "result:  count, output-bytes, then count x output-bytes",
                           "opposite order", "little-endian", "'-' is standard input (IN) or standard output (OUT)",
                           "no temporary file", "Binary output to a terminal is refused", "process-bin IN OUT",
                           "help -> help", "double quotes", "--version", "Exit status"}) {
    INFO(want);
    CHECK(out.find(want) != std::string::npos);
  }
  // A usage error is short: the synopsis and where the rest is.
  CHECK(run(exe() + " --frobnicate a b", out) == 2);
  CHECK(out.find("--help' describes") != std::string::npos);
  CHECK(out.find("little-endian") == std::string::npos);
}

TEST_CASE("tempo-fanout --version prints the project version", "[fanout][tool][usage]") {
  std::string out;
  REQUIRE(run(exe() + " --version", out) == 0);
  CHECK(out == std::string("tempo-fanout ") + TEMPO_PROJECT_VERSION + "\n");
}

TEST_CASE("tempo-fanout: '-' reads standard input and writes standard output", "[fanout][tool][usage]") {
  const std::string d = tmpdir();
  write_file(d + "/std.sx", kSexpr);
  write_file(d + "/std.bin", binary_request());
  std::string out;
  // S-expression: from a pipe to a pipe, and from a redirected file.
  REQUIRE(run("printf '%s' '" + kSexpr + "' | " + exe() + " - - >" + d + "/o1.sx", out) == 0);
  CHECK(read_file(d + "/o1.sx").find(hash_hex("abc", 32)) != std::string::npos);
  REQUIRE(run(exe() + " - " + d + "/o2.sx < " + d + "/std.sx", out) == 0);
  CHECK(read_file(d + "/o2.sx").find(hash_hex("abc", 32)) != std::string::npos);
  // Standard input is read from where it stands (bash's read leaves a file positioned after "XYZ").
  write_file(d + "/pos.sx", "XYZ" + kSexpr);
  REQUIRE(run("{ read -r -N 3 _; " + exe() + " - " + d + "/o2b.sx; } < " + d + "/pos.sx", out) == 0);
  CHECK(read_file(d + "/o2b.sx").find(hash_hex("abc", 32)) != std::string::npos);
  // Binary to a pipe (cat): header n | out_bytes, then the digest.
  REQUIRE(run(exe() + " --binary " + d + "/std.bin - | cat >" + d + "/o3.bin", out) == 0);
  const std::string bin = read_file(d + "/o3.bin");
  REQUIRE(bin.size() == 40);
  CHECK(bin.substr(0, 8) == u32(1) + u32(32));
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(bin.data() + 8), 32) == hash_hex("abc", 32));
  // Several chunks of one length (the streamed path, skipped for '-'): the same bytes as a file.
  std::string many = u32(32) + u32(10);
  for (int i = 0; i < 10; ++i) many += u32(3) + "ab" + static_cast<char>('0' + i);
  write_file(d + "/many.bin", many);
  const std::string chunked = "TEMPO_FANOUT_CHUNK_BYTES=64 " + exe() + " --binary ";
  REQUIRE(run(chunked + d + "/many.bin " + d + "/o4.ref", out) == 0);
  REQUIRE(run(chunked + "- - <" + d + "/many.bin >" + d + "/o4.bin", out) == 0);
  CHECK(read_file(d + "/o4.bin") == read_file(d + "/o4.ref"));
  CHECK(read_file(d + "/o4.bin").size() == 8 + 10 * 32);
  // A file named '-' is written as ./-, atomically.
  REQUIRE(run("cd " + d + " && " + exe() + " std.sx ./-", out) == 0);
  CHECK(read_file(d + "/-").find(hash_hex("abc", 32)) != std::string::npos);
  // A bad request on stdin: exit 1, one line on stderr, nothing on stdout for an early error.
  CHECK(run("printf 'nonsense' | " + exe() + " - - 2>" + d + "/e.txt >" + d + "/o5", out) == 1);
  CHECK(read_file(d + "/o5").empty());
  const std::string err = read_file(d + "/e.txt");
  CHECK(std::count(err.begin(), err.end(), '\n') == 1);
}

TEST_CASE("tempo-fanout: binary output to a terminal is refused", "[fanout][tool][usage]") {
  const std::string d = tmpdir();
  write_file(d + "/tty.bin", binary_request());
  std::string out;
  // util-linux's script gives the tool a terminal as stdout.
  if (run("command -v script", out) != 0) {
    WARN("skipped: no 'script' command to make a terminal");
    return;
  }
  const int rc = run("script -qec '" + exe() + " --binary " + d + "/tty.bin -' /dev/null", out);
  if (out.find("script:") != std::string::npos) {  // script's own failure (no pseudo-terminal here)
    WARN("skipped: no pseudo-terminal here: " << out);
    return;
  }
  CHECK(rc == 2);
  CHECK(out.find("refusing to write binary output to a terminal") != std::string::npos);
  // S-expression output to a terminal is text: allowed.
  write_file(d + "/tty.sx", kSexpr);
  CHECK(run("script -qec '" + exe() + " " + d + "/tty.sx -' /dev/null", out) == 0);
  CHECK(out.find(hash_hex("abc", 32)) != std::string::npos);
}

TEST_CASE("daemon command words: quoting rule, named parse errors, round trip", "[fanout][daemon][usage]") {
  using fanout::parse_command;
  using K = fanout::Command::Kind;
  auto c = parse_command("process \"my in.sx\" \"out \\\"1\\\" \\\\ x\"");
  CHECK(c.kind == K::process);
  CHECK(c.in == "my in.sx");
  CHECK(c.out == "out \"1\" \\ x");
  c = parse_command("process-bin a\\b  \"c\"");  // a backslash outside quotes is a byte
  CHECK(c.kind == K::process_bin);
  CHECK(c.in == "a\\b");
  CHECK(c.out == "c");
  CHECK(parse_command("help").kind == K::help);
  struct Bad {
    std::string line, expect;
  };
  for (const Bad& b : std::vector<Bad>{
           {"process \"a b c", "unterminated quote: the path opened at byte 8"},
           {"process \"a\\n\" b", "unknown escape '\\\\n'"},
           {"process \"a\"b c", "expected a space after the quoted path"},
           {"process a\"b c", "a '\"' inside a word at byte 9"},
           {"process \"\" c", "empty path"},
           {"process my in.sx out", "usage: process IN OUT (3 paths given; a path with spaces goes in double quotes)"},
           {"process - out", "IN '-' (standard input or output) is not available in the daemon"},
           {"process-bin in -", "OUT '-'"},
           {"process \"a\tb\" c", "control byte '\\t'"},
           {"frob", "expected process, process-bin, help or quit"}}) {
    INFO(b.line);
    try {
      parse_command(b.line);
      FAIL("accepted");
    } catch (const fanout::WireError& e) {
      CHECK(std::string(e.what()).find(b.expect) != std::string::npos);
      CHECK(printable(e.what()));
    }
  }
  for (const std::string p : {"plain", "with space", "q\"uote", "back\\slash and space", "\"lead", "a\\"}) {
    INFO(p);
    const auto back = parse_command("process " + fanout::command_word(p) + " x");
    CHECK(back.in == p);
  }
  CHECK(fanout::command_word("plain/path.sx") == "plain/path.sx");
  CHECK(fanout::command_word("my out.sx") == "\"my out.sx\"");
}

TEST_CASE("tempo-fanout --daemon: help, paths with spaces, '-' refused", "[fanout][tool][daemon][usage]") {
  const std::string d = tmpdir();
  ::mkdir((d + "/sp ace").c_str(), 0755);
  write_file(d + "/sp ace/in put.sx", kSexpr);
  write_file(d + "/cmds2", "help\nprocess \"" + d + "/sp ace/in put.sx\" \"" + d + "/sp ace/out \\\"1\\\".sx\"\n" +
                               "process - " + d + "/x.out\nprocess " + d + "/sp ace/in put.sx x\nquit\n");
  std::string out;
  REQUIRE(run(exe() + " --daemon < '" + d + "/cmds2'", out) == 0);
  const std::vector<std::string> l = lines_of(out);
  REQUIRE(l.size() == 5);
  CHECK(l[0].rfind("help commands: process IN OUT", 0) == 0);
  CHECK(l[0].find("double quotes") != std::string::npos);
  CHECK(l[1] == "done \"" + d + "/sp ace/out \\\"1\\\".sx\"");
  CHECK(l[2].rfind("error IN '-'", 0) == 0);
  CHECK(l[3].rfind("error usage: process IN OUT (4 paths given", 0) == 0);
  CHECK(l[4] == "bye");
  CHECK(read_file(d + "/sp ace/out \"1\".sx").find(hash_hex("abc", 32)) != std::string::npos);
  CHECK_FALSE(exists(d + "/x.out"));
}

TEST_CASE("a request in the other format: advice instead of the parser's error", "[fanout][tool][usage]") {
  const std::string d = tmpdir();
  write_file(d + "/req.bin", binary_request());
  write_file(d + "/req.sx", "  ; a comment\n" + kSexpr);
  std::string out;
  CHECK(run(exe() + " " + d + "/req.bin " + d + "/w1.out", out) == 1);
  CHECK(out.find("this looks like a binary request (header: output-bytes 32, 1 inputs); use --binary") !=
        std::string::npos);
  CHECK(out.find("expected '('") == std::string::npos);
  CHECK(run(exe() + " --binary " + d + "/req.sx " + d + "/w2.out", out) == 1);
  CHECK(out.find("this looks like an S-expression request (text starting with a ';' comment); drop --binary") !=
        std::string::npos);
  CHECK(out.find("over the limit") == std::string::npos);
  CHECK_FALSE(exists(d + "/w1.out"));
  CHECK_FALSE(exists(d + "/w2.out"));
  // The daemon names its own commands.
  write_file(d + "/cmds3", "process " + d + "/req.bin " + d + "/w3.out\nprocess-bin " + d + "/req.sx " + d +
                               "/w4.out\n");
  REQUIRE(run(exe() + " --daemon < " + d + "/cmds3", out) == 0);
  const std::vector<std::string> l = lines_of(out);
  REQUIRE(l.size() == 2);
  CHECK(l[0] == "error this looks like a binary request (header: output-bytes 32, 1 inputs); use process-bin");
  CHECK(l[1] == "error this looks like an S-expression request (text starting with a ';' comment); use process");
  // Inputs that look like neither keep the parser's own words.
  CHECK(fanout::format_mismatch(reinterpret_cast<const std::uint8_t*>("hello world"), 11, false, false).empty());
  CHECK(fanout::format_mismatch(reinterpret_cast<const std::uint8_t*>("hello world"), 11, true, false).empty());
  const std::string bin = binary_request();
  CHECK(fanout::format_mismatch(reinterpret_cast<const std::uint8_t*>(bin.data()), bin.size(), true, false).empty());
  CHECK(fanout::format_mismatch(reinterpret_cast<const std::uint8_t*>(kSexpr.data()), kSexpr.size(), false, false)
            .empty());
}
