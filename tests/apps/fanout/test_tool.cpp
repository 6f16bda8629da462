// tempo-fanout as a program: formats, exit codes, one-line errors, number and
// option validation, inputs that st_size misreports, and bounded memory under ulimit -v.
#include "util.hpp"

using namespace tempo;
using namespace ftest;

TEST_CASE("tempo-fanout: S-expression and binary files, every backend that is available", "[fanout][tool]") {
  const std::string d = tmpdir();
  write_file(d + "/in.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"deadbeef\" \"00ff00ff\"))");
  std::string out;
  REQUIRE(run(exe() + " " + d + "/in.sx " + d + "/out.sx", out) == 0);
  const std::string res = read_file(d + "/out.sx");
  CHECK(res.find("(cuda-shake-fanout-result") == 0);
  CHECK(res.find("(n 2)") != std::string::npos);
  std::string quoted = "\"";
  quoted += hash_hex("\xde\xad\xbe\xef", 32);
  quoted += '"';
  CHECK(res.find(quoted) != std::string::npos);
  CHECK(res.find(hash_hex(std::string("\x00\xff\x00\xff", 4), 32)) != std::string::npos);
  CHECK(res.find("(timing-ms (load ") != std::string::npos);

  write_file(d + "/in.bin", u32(48) + u32(2) + u32(3) + "abc" + u32(0));
  REQUIRE(run("TEMPO_BACKEND=cpu " + exe() + " --binary " + d + "/in.bin " + d + "/out.bin", out) == 0);
  const std::string bin = read_file(d + "/out.bin");
  REQUIRE(bin.size() == 8 + 2 * 48);
  CHECK(bin.substr(0, 8) == u32(2) + u32(48));
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(bin.data() + 8), 48) == hash_hex("abc", 48));
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(bin.data() + 56), 48) == hash_hex("", 48));
  // --no-fsync: same bytes.
  REQUIRE(run(exe() + " --no-fsync --binary " + d + "/in.bin " + d + "/out2.bin", out) == 0);
  CHECK(read_file(d + "/out2.bin") == bin);

  // Another algorithm.
  REQUIRE(run(exe() + " --algo sha3-256 --binary " + d + "/in.bin.256 " + d + "/x", out) == 1);  // missing file
  write_file(d + "/in.bin.256", u32(32) + u32(1) + u32(3) + "abc");
  REQUIRE(run(exe() + " --algo sha3-256 --binary " + d + "/in.bin.256 " + d + "/out.256", out) == 0);
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(read_file(d + "/out.256").data() + 8), 32) ==
        hash_hex("abc", 32, keccak::Algorithm::sha3_256));
}

TEST_CASE("tempo-fanout --algo: the library's names, hashlib's, in any case", "[fanout][tool]") {
  const std::string d = tmpdir();
  write_file(d + "/algo.bin", u32(32) + u32(1) + u32(3) + "abc");
  struct Case {
    const char* name;
    keccak::Algorithm alg;
  };
  for (const Case& c : {Case{"shake_256", keccak::Algorithm::shake256}, Case{"SHAKE_128", keccak::Algorithm::shake128},
                        Case{"sha3_256", keccak::Algorithm::sha3_256}, Case{"SHA3-256", keccak::Algorithm::sha3_256},
                        Case{"TurboSHAKE128", keccak::Algorithm::turboshake128}}) {
    INFO(c.name);
    std::string out;
    const std::string target = d + "/algo.out";
    REQUIRE(run(exe() + " --binary --algo " + c.name + " " + d + "/algo.bin " + target, out) == 0);
    CHECK(hex(reinterpret_cast<const std::uint8_t*>(read_file(target).data() + 8), 32) == hash_hex("abc", 32, c.alg));
  }
  std::string out;
  CHECK(run(exe() + " --binary --algo shake_512 " + d + "/algo.bin " + d + "/algo.out", out) == 2);
  CHECK(out.find("unknown algorithm \"shake_512\"") != std::string::npos);
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
      {"sha0.bin", u32(64) + u32(0), "--binary --algo sha3-256", "32-byte"},
      {"nl.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"0\n\"))", "", "'\\n'"},
      {"esc.sx", "(cuda-shake-fanout (\x1b]0;pwned\x07 1))", "", "'\\x1b]0'"},
      {"nul.sx", std::string("(cuda-shake-fanout (output-bytes 32) (inputs \"0\0\"))", 51), "", "'\\x00'"},
  };
  for (const Case& c : cases) {
    write_file(d + "/" + c.name, c.content);
    const std::string target = d + "/" + c.name + ".out";
    std::string out;
    const int rc = run(exe() + " " + c.flags + " " + d + "/" + c.name + " " + target, out);
    INFO(c.name << ": " << out);
    CHECK(rc != 0);
    CHECK(out.find(c.expect) != std::string::npos);
    CHECK_FALSE(exists(target));
    if (c.name != "algo.sx") {
      CHECK(std::count(out.begin(), out.end(), '\n') == 1);
      CHECK(printable(out.substr(0, out.size() - 1)));
    }
  }
  // A file name with a newline and an escape in it: still one printable line.
  std::string out;
  CHECK(run(exe() + " $'" + d + "/no\\nsuch\\x1bfile' " + d + "/x.out", out) == 1);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  CHECK(out.find("no\\nsuch\\x1bfile") != std::string::npos);
  // No temp files left behind either.
  std::string ls;
  run("ls -a " + d, ls);
  CHECK(ls.find(".tempo-fanout.") == std::string::npos);
  // A failing request leaves an existing output untouched.
  write_file(d + "/keep.out", "previous");
  CHECK(run(exe() + " --binary " + d + "/trunc.bin " + d + "/keep.out", out) == 1);
  CHECK(read_file(d + "/keep.out") == "previous");
}

TEST_CASE("tempo-fanout: options and numbers are validated (exit 2, clear message)", "[fanout][tool]") {
  const std::string d = tmpdir();
  write_file(d + "/n.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"00\"))");
  const std::string io = " " + d + "/n.sx " + d + "/n.out";
  std::string out;
  CHECK(run(exe() + " --frobnicate a b", out) == 2);
  CHECK(run(exe() + " --backend quantum a b", out) == 2);
  CHECK(out.find("quantum") != std::string::npos);
  for (const char* bad : {"-1", "12x", "abc", "4097", "99999999999999999999", "''"}) {
    INFO(bad);
    CHECK(run(exe() + " --threads " + bad + io, out) == 2);
    CHECK(out.find("--threads must be an integer from 0 to 4096") != std::string::npos);
    CHECK(out.find("stoul") == std::string::npos);
  }
  CHECK(run(exe() + " --threads" , out) == 2);
  CHECK(out.find("--threads needs a value") != std::string::npos);
  for (const char* bad : {"99999999999", "-3", "0", "abc"}) {
    INFO(bad);
    CHECK(run(std::string("TEMPO_THREADS=") + bad + " " + exe() + io, out) == 2);
    CHECK(out.find("TEMPO_THREADS='" + std::string(bad) + "' is not accepted (expected an integer from 1 to 4096)") !=
          std::string::npos);
  }
  CHECK(run("TEMPO_FANOUT_STREAM=2 " + exe() + io, out) == 2);
  CHECK(out.find("TEMPO_FANOUT_STREAM='2' is not accepted") != std::string::npos);
  CHECK(run("TEMPO_FANOUT_CHUNK_BYTES=0 " + exe() + io, out) == 2);
  CHECK(out.find("TEMPO_FANOUT_CHUNK_BYTES='0' is not accepted") != std::string::npos);
  CHECK(run(exe() + " --threads 2" + io, out) == 0);
  CHECK(run("TEMPO_THREADS=3 " + exe() + " --threads 0" + io, out) == 0);
  CHECK(run(exe() + " --daemon --binary < /dev/null", out) == 2);
  CHECK(out.find("--binary does not apply to --daemon") != std::string::npos);
  CHECK(run(exe() + " --daemon " + d + "/n.sx < /dev/null", out) == 2);
}

TEST_CASE("tempo-fanout: inputs are read to their end (/proc, FIFOs), not to st_size", "[fanout][tool]") {
  const std::string d = tmpdir();
  std::string out;
  // /proc/self/cmdline has st_size 0 but holds the command line: a parse error, not "empty input".
  CHECK(run(exe() + " /proc/self/cmdline " + d + "/p.out", out) == 1);
  CHECK(out.find("empty input") == std::string::npos);
  CHECK(out.find("expected '('") != std::string::npos);
  // A FIFO (process substitution) carrying a request.
  REQUIRE(run(exe() + " <(printf '(cuda-shake-fanout (output-bytes 32) (inputs \"616263\"))') " + d + "/f.out", out) ==
          0);
  CHECK(read_file(d + "/f.out").find(hash_hex("abc", 32)) != std::string::npos);
  // A folder is refused.
  CHECK(run(exe() + " " + d + " " + d + "/g.out", out) == 1);
  CHECK(out.find("is a folder") != std::string::npos);
}

TEST_CASE("tempo-fanout: memory stays bounded whatever the request asks for (ulimit -v)", "[fanout][tool][memory]") {
  if (kSanitized) {
    WARN("skipped: ulimit -v does not work under ASan/TSan");
    return;
  }
  const std::string d = tmpdir();
  // 4 bytes of input per message, 1 MiB of output each: 256 MiB of digests from 1 KiB
  // (and 96 MiB of digests, 192 MiB of hex, from 300 bytes of S-expression) under a
  // capped address space. No CUDA here: a CUDA context alone maps gigabytes.
  // The cap: the smallest of a few that a tiny request starts under (a CUDA driver,
  // even with no visible device, maps more address space on some hosts than on others),
  // plus 96 MiB, less than either amplified output below (256 and 192 MiB): they can
  // only pass by streaming. MALLOC_ARENA_MAX: glibc reserves 64 MiB per thread arena.
  std::string bin = u32(1u << 20) + u32(256);
  for (int i = 0; i < 256; ++i) bin += u32(0);
  write_file(d + "/amp.bin", bin);
  std::string sx = "(cuda-shake-fanout (output-bytes 1048576) (inputs";
  for (int i = 0; i < 96; ++i) sx += " \"\"";
  write_file(d + "/amp.sx", sx + "))");
  std::string out;
  write_file(d + "/tiny.sx", "(cuda-shake-fanout (output-bytes 32) (inputs \"00\"))");
  const std::string vars = "MALLOC_ARENA_MAX=2 CUDA_VISIBLE_DEVICES= TEMPO_BACKEND=cpu TEMPO_THREADS=2 ";
  long base_kib = 0;
  for (long cap : {65536L, 131072L, 262144L, 524288L, 1048576L}) {
    if (run("ulimit -v " + std::to_string(cap) + "; " + vars + exe() + " --no-fsync " + d + "/tiny.sx " + d +
                "/tiny.out",
            out) == 0) {
      base_kib = cap;
      break;
    }
  }
  if (base_kib == 0) {
    WARN("skipped: tempo-fanout does not start under ulimit -v 1 GiB here: " << out);
    return;
  }
  const std::string env = "ulimit -v " + std::to_string(base_kib + 98304) + "; " + vars;
  INFO("address-space cap: " << (base_kib + 98304) / 1024 << " MiB");
  REQUIRE(run(env + exe() + " --no-fsync --binary " + d + "/amp.bin " + d + "/amp.out", out) == 0);
  struct stat st {};
  REQUIRE(::stat((d + "/amp.out").c_str(), &st) == 0);
  CHECK(static_cast<std::size_t>(st.st_size) == 8 + (std::size_t{256} << 20));
  const std::string head = read_file(d + "/amp.out").substr(0, 8 + 32);
  CHECK(head.substr(0, 8) == u32(256) + u32(1u << 20));
  CHECK(hex(reinterpret_cast<const std::uint8_t*>(head.data() + 8), 32) == hash_hex("", 32));
  ::unlink((d + "/amp.out").c_str());
  const int sx_rc = run(env + exe() + " --no-fsync " + d + "/amp.sx " + d + "/amp.sx.out", out);
  INFO("tempo-fanout said: " << out);
  REQUIRE(sx_rc == 0);
  REQUIRE(::stat((d + "/amp.sx.out").c_str(), &st) == 0);
  CHECK(static_cast<std::size_t>(st.st_size) > 96 * (std::size_t{2} << 20));
  ::unlink((d + "/amp.sx.out").c_str());
  // An endless input: a clear error naming the size, not std::bad_alloc.
  CHECK(run(env + exe() + " /dev/zero " + d + "/z.out", out) == 1);
  CHECK(out.find("out of memory holding") != std::string::npos);
  CHECK(out.find("bad_alloc") == std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  CHECK_FALSE(exists(d + "/z.out"));
}
