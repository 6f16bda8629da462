// tempo-fanout: the wire formats, the error contract (one line, non-zero exit, no
// partial output) and the daemon, through the library and the installed binary.
#include <cstdlib>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "fanout.hpp"
#include "helpers.hpp"
#include "wire.hpp"

using namespace tempo;

namespace {
std::string tmpdir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/tempo-fanout-test.XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    REQUIRE(d != nullptr);
    return std::string(d);
  }();
  return dir;
}
void write_file(const std::string& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary);
  f << s;
}
std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}
// Runs a shell command; returns its exit status and puts stderr+stdout into `output`.
int run(const std::string& cmd, std::string& output) {
  const std::string log = tmpdir() + "/cmd.log";
  const int rc = std::system((cmd + " >" + log + " 2>&1").c_str());
  output = read_file(log);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}
std::string u32(std::uint32_t v) {
  std::string s(4, '\0');
  for (int k = 0; k < 4; ++k) s[k] = static_cast<char>(v >> (8 * k));
  return s;
}
std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}
std::string shake256_hex(const std::string& msg, std::size_t out) {
  std::vector<std::uint8_t> d(out);
  crypto::hash(crypto::Algorithm::shake256, {reinterpret_cast<const std::uint8_t*>(msg.data()), msg.size()}, d);
  return hex(d.data(), out);
}
// The tool as built; TEMPO_FANOUT_EXE in the environment points elsewhere (the
// device machine runs a carried copy, not the build tree).
const std::string exe = [] {
  const char* env = std::getenv("TEMPO_FANOUT_EXE");
  return std::string(env && *env ? env : TEMPO_FANOUT_EXE);
}();
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

  using Catch::Contains;
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

TEST_CASE("binary requests parse and compact; errors are named", "[fanout][wire]") {
  fanout::Request r;
  auto load = [&](const std::string& s) {
    r.data.resize(s.size() + 1);
    std::memcpy(r.data.data(), s.data(), s.size());
    fanout::parse_binary_in_place(r, s.size());
  };
  load(u32(32) + u32(3) + u32(2) + "ab" + u32(0) + u32(3) + "cde");
  CHECK(r.n == 3);
  CHECK(r.data_size == 5);
  CHECK(std::string(reinterpret_cast<char*>(r.data.data()), 5) == "abcde");
  CHECK(r.offsets == std::vector<std::uint64_t>{0, 2, 2, 5});
  load(u32(16) + u32(2) + u32(2) + "ab" + u32(2) + "cd");
  CHECK(r.uniform);
  CHECK(r.uniform_len == 2);

  using Catch::Contains;
  CHECK_THROWS_WITH(load("abc"), Contains("truncated") && Contains("header"));
  CHECK_THROWS_WITH(load(u32(32) + u32(2) + u32(2) + "ab"), Contains("count mismatch") || Contains("truncated"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1) + u32(5) + "ab"), Contains("truncated") && Contains("needs 5"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1) + u32(2) + "abXX"), Contains("count mismatch") && Contains("2 bytes after"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1000000) + u32(2) + "ab"), Contains("count mismatch"));
  CHECK_THROWS_WITH(load(u32(0) + u32(0)), Contains("output-bytes is 0"));
  CHECK_THROWS_WITH(load(u32(32) + u32(1) + u32(0x7fffffff) + "ab"), Contains("over the limit"));
}

TEST_CASE("format_sexpr writes cuda-fanout's result shape", "[fanout][wire]") {
  const std::uint8_t d[4] = {0x00, 0xAB, 0xcd, 0xef};
  fanout::Timing t{0.4, 0.1, 12.7, 0.3};
  CHECK(fanout::format_sexpr(2, 2, d, t) ==
        "(cuda-shake-fanout-result\n  (n 2)\n  (output-bytes 2)\n  (hashes\n    \"00ab\"\n    \"cdef\")\n"
        "  (timing-ms (load 0.400) (launch 0.100) (kernel 12.700) (write 0.300)))\n");
}

TEST_CASE("tempo-fanout: S-expression and binary files, every backend that is available", "[fanout][tool]") {
  const std::string d = tmpdir();
  write_file(d + "/in.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"deadbeef\" \"00ff00ff\"))");
  std::string out;
  REQUIRE(run(exe + " " + d + "/in.sx " + d + "/out.sx", out) == 0);
  const std::string res = read_file(d + "/out.sx");
  CHECK(res.find("(cuda-shake-fanout-result") == 0);
  CHECK(res.find("(n 2)") != std::string::npos);
  CHECK(res.find("\"" + shake256_hex("\xde\xad\xbe\xef", 32) + "\"") != std::string::npos);
  CHECK(res.find(shake256_hex(std::string("\x00\xff\x00\xff", 4), 32)) != std::string::npos);
  CHECK(res.find("(timing-ms (load ") != std::string::npos);

  write_file(d + "/in.bin", u32(48) + u32(2) + u32(3) + "abc" + u32(0));
  REQUIRE(run("TEMPO_BACKEND=cpu " + exe + " --binary " + d + "/in.bin " + d + "/out.bin", out) == 0);
  const std::string bin = read_file(d + "/out.bin");
  REQUIRE(bin.size() == 8 + 2 * 48);
  CHECK(bin.substr(0, 8) == u32(2) + u32(48));
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(bin.data() + 8), 48) == shake256_hex("abc", 48));
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(bin.data() + 56), 48) == shake256_hex("", 48));

  // Another algorithm.
  REQUIRE(run(exe + " --algo sha3-256 --binary " + d + "/in.bin.256 " + d + "/x", out) == 1);  // missing file
  write_file(d + "/in.bin.256", u32(32) + u32(1) + u32(3) + "abc");
  REQUIRE(run(exe + " --algo sha3-256 --binary " + d + "/in.bin.256 " + d + "/out.256", out) == 0);
  std::uint8_t want[32];
  crypto::hash(crypto::Algorithm::sha3_256, {reinterpret_cast<const std::uint8_t*>("abc"), 3}, want);
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(read_file(d + "/out.256").data() + 8), 32) == hex(want, 32));
}

TEST_CASE("tempo-fanout: bad input gives one line, exit 1 and no output file", "[fanout][tool]") {
  const std::string d = tmpdir();
  struct Case {
    std::string name, content, flags, expect;
  };
  const std::vector<Case> cases = {
      {"trunc.bin", u32(32) + u32(2) + u32(3) + "abc" + u32(9) + "x", "--binary", "truncated"},
      {"count.bin", u32(32) + u32(1) + u32(1) + "a" + u32(1) + "b", "--binary", "count mismatch"},
      {"hex.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"0g\"))", "", "bad hex"},
      {"long.bin", u32(32) + u32(1) + u32(0xFFFFFFFFu) + "a", "--binary", "over the limit"},
      {"algo.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"00\"))", "--algo md5", "md5"},
      {"sha.bin", u32(64) + u32(1) + u32(1) + "a", "--binary --algo sha3-256", "32-byte"},
  };
  for (const Case& c : cases) {
    write_file(d + "/" + c.name, c.content);
    const std::string target = d + "/" + c.name + ".out";
    std::string out;
    const int rc = run(exe + " " + c.flags + " " + d + "/" + c.name + " " + target, out);
    INFO(c.name << ": " << out);
    CHECK(rc != 0);
    CHECK(out.find(c.expect) != std::string::npos);
    CHECK_FALSE(exists(target));
    if (c.name != "algo.sx") CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  }
  // No temp files left behind either.
  std::string ls;
  run("ls " + d, ls);
  CHECK(ls.find(".tmp.") == std::string::npos);
  // A failing request leaves an existing output untouched.
  write_file(d + "/keep.out", "previous");
  std::string out;
  CHECK(run(exe + " --binary " + d + "/trunc.bin " + d + "/keep.out", out) == 1);
  CHECK(read_file(d + "/keep.out") == "previous");
  // Usage errors: exit 2.
  CHECK(run(exe + " --frobnicate a b", out) == 2);
  CHECK(run(exe + " --backend quantum a b", out) == 2);
  CHECK(out.find("quantum") != std::string::npos);
}

TEST_CASE("tempo-fanout --daemon answers done/error/bye and keeps serving", "[fanout][tool][daemon]") {
  const std::string d = tmpdir();
  write_file(d + "/d1.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"616263\"))");
  write_file(d + "/d2.bin", u32(32) + u32(1) + u32(3) + "abc");
  write_file(d + "/bad.bin", u32(32) + u32(5));
  write_file(d + "/cmds", "process " + d + "/d1.sx " + d + "/d1.out\n" + "process-bin " + d + "/bad.bin " + d +
                              "/bad.out\n" + "frobnicate\n" + "process-bin " + d + "/d2.bin " + d + "/d2.out\n" +
                              "quit\n" + "process " + d + "/d1.sx " + d + "/never.out\n");
  std::string out;
  REQUIRE(run(exe + " --daemon < " + d + "/cmds", out) == 0);
  std::istringstream lines(out);
  std::string l1, l2, l3, l4, l5;
  std::getline(lines, l1);
  std::getline(lines, l2);
  std::getline(lines, l3);
  std::getline(lines, l4);
  std::getline(lines, l5);
  CHECK(l1 == "done " + d + "/d1.out");
  CHECK(l2.rfind("error ", 0) == 0);
  CHECK(l2.find("count mismatch") != std::string::npos);
  CHECK(l3.rfind("error unknown command", 0) == 0);
  CHECK(l4 == "done " + d + "/d2.out");
  CHECK(l5 == "bye");
  CHECK_FALSE(exists(d + "/bad.out"));
  CHECK_FALSE(exists(d + "/never.out"));
  const std::string bin = read_file(d + "/d2.out");
  REQUIRE(bin.size() == 40);
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(bin.data() + 8), 32) == shake256_hex("abc", 32));
  CHECK(read_file(d + "/d1.out").find(shake256_hex("abc", 32)) != std::string::npos);
}

TEST_CASE("tempo-fanout --backend cuda fails fast without a device", "[fanout][tool]") {
  if (gtest::have_device()) {
    SUCCEED("a device is present");
    return;
  }
  const std::string d = tmpdir();
  write_file(d + "/c.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"00\"))");
  std::string out;
  CHECK(run(exe + " --backend cuda " + d + "/c.sx " + d + "/c.out", out) == 1);
  CHECK((out.find("no CUDA device") != std::string::npos || out.find("without CUDA") != std::string::npos));
  CHECK_FALSE(exists(d + "/c.out"));
}
