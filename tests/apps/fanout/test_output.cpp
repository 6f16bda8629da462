// OUT's semantics (apps/fanout/io.hpp): what may be replaced, the mode the result
// gets, long names, no temporary left behind, an existing file untouched on refusal.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "io.hpp"
#include "util.hpp"

using namespace tempo;
using namespace ftest;

namespace {
std::string request(const std::string& d) {
  const std::string in = d + "/o.sx";
  write_file(in, "(cuda-shake-fanout (output-bytes 32) (inputs \"616263\"))");
  return in;
}
bool no_temporaries(const std::string& dir) {
  std::string ls;
  run("ls -a " + dir, ls);
  return ls.find(".tempo-fanout.") == std::string::npos;
}
}  // namespace

TEST_CASE("OUT: a symbolic link is refused; neither it nor its target changes", "[fanout][output]") {
  const std::string d = tmpdir() + "/sym";
  ::mkdir(d.c_str(), 0755);
  const std::string in = request(d);
  write_file(d + "/target", "old");
  REQUIRE(::symlink((d + "/target").c_str(), (d + "/link").c_str()) == 0);
  std::string out;
  CHECK(run(exe() + " " + in + " " + d + "/link", out) == 1);
  CHECK(out.find("is a symbolic link") != std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  char buf[256] = {};
  CHECK(::readlink((d + "/link").c_str(), buf, sizeof buf - 1) > 0);
  CHECK(read_file(d + "/target") == "old");
  // A dangling link too (it would otherwise be replaced by a file).
  REQUIRE(::symlink((d + "/nowhere").c_str(), (d + "/dangling").c_str()) == 0);
  CHECK(run(exe() + " " + in + " " + d + "/dangling", out) == 1);
  CHECK_FALSE(exists(d + "/nowhere"));
  // A link to a folder in the path is fine: only OUT's last component matters.
  REQUIRE(::symlink(d.c_str(), (d + "/dirlink").c_str()) == 0);
  CHECK(run(exe() + " " + in + " " + d + "/dirlink/via", out) == 0);
  CHECK(read_file(d + "/via").find(hash_hex("abc", 32)) != std::string::npos);
  CHECK(no_temporaries(d));
}

TEST_CASE("OUT: FIFOs, devices, sockets, folders and hard-linked files are refused", "[fanout][output]") {
  const std::string d = tmpdir() + "/special";
  ::mkdir(d.c_str(), 0755);
  const std::string in = request(d);
  std::string out;
  REQUIRE(::mkfifo((d + "/fifo").c_str(), 0644) == 0);
  CHECK(run(exe() + " " + in + " " + d + "/fifo", out) == 1);  // and does not block on the FIFO
  CHECK(out.find("is a FIFO") != std::string::npos);
  struct stat st {};
  REQUIRE(::lstat((d + "/fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));

  CHECK(run(exe() + " " + in + " /dev/null", out) == 1);
  CHECK(out.find("is a character device") != std::string::npos);
  REQUIRE(::lstat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));

  CHECK(run(exe() + " " + in + " " + d, out) == 1);
  CHECK(out.find("is a folder") != std::string::npos);
  CHECK(run(exe() + " " + in + " " + d + "/", out) == 1);
  CHECK(out.find("names a folder") != std::string::npos);

  CHECK(run("python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.bind('" + d + "/sock')\"; " + exe() + " " +
                in + " " + d + "/sock",
            out) == 1);
  CHECK(out.find("is a socket") != std::string::npos);

  write_file(d + "/a", "shared");
  REQUIRE(::link((d + "/a").c_str(), (d + "/b").c_str()) == 0);
  CHECK(run(exe() + " " + in + " " + d + "/a", out) == 1);
  CHECK(out.find("has 2 hard links") != std::string::npos);
  CHECK(read_file(d + "/a") == "shared");
  CHECK(read_file(d + "/b") == "shared");
  CHECK(no_temporaries(d));
}

TEST_CASE("OUT that is IN (same path, another path, a hard link, standard input) is refused", "[fanout][output]") {
  const std::string d = tmpdir() + "/same";
  ::mkdir(d.c_str(), 0755);
  const std::string in = request(d);
  const std::string original = read_file(in);
  std::string out;
  auto refused = [&](const std::string& cmd, const std::string& expect) {
    const int rc = run(cmd, out);
    INFO(cmd << ": " << out);
    CHECK(rc == 1);
    CHECK(out.find(expect) != std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);
    CHECK(read_file(in) == original);
    CHECK(no_temporaries(d));
  };
  refused(exe() + " " + in + " " + in, "is the input: the result would replace the request");
  // Another spelling of the same path: compared by inode, not by string.
  refused(exe() + " " + in + " " + d + "/./o.sx", "is the same file as input");
  refused("cd " + d + " && " + exe() + " o.sx " + in, "is the same file as input 'o.sx'");
  // A hard link to IN: the same file under another name.
  REQUIRE(::link(in.c_str(), (d + "/alias.sx").c_str()) == 0);
  refused(exe() + " " + in + " " + d + "/alias.sx", "is the same file as input");
  refused(exe() + " - " + in + " < " + in, "is the file standard input reads");
  CHECK(read_file(d + "/alias.sx") == original);
  // The daemon answers the same error and keeps serving.
  write_file(d + "/cmds", "process " + in + " " + in + "\nprocess " + in + " " + d + "/ok.sx\n");
  REQUIRE(run(exe() + " --daemon < " + d + "/cmds", out) == 0);
  CHECK(out.find("error output '" + in + "' is the input") == 0);
  CHECK(out.find("done " + d + "/ok.sx") != std::string::npos);
  CHECK(read_file(in) == original);
  // A different file with the same contents is fine.
  write_file(d + "/copy.sx", original);
  CHECK(run(exe() + " " + in + " " + d + "/copy.sx", out) == 0);
  CHECK(read_file(d + "/copy.sx").find(hash_hex("abc", 32)) != std::string::npos);
}

TEST_CASE("OUT: an existing file keeps its mode; a new one gets 0666 minus the umask", "[fanout][output]") {
  const std::string d = tmpdir() + "/mode";
  ::mkdir(d.c_str(), 0755);
  const std::string in = request(d);
  std::string out;
  write_file(d + "/private", "old");
  REQUIRE(::chmod((d + "/private").c_str(), 0600) == 0);
  REQUIRE(run(exe() + " " + in + " " + d + "/private", out) == 0);
  CHECK(mode_of(d + "/private") == 0600);
  CHECK(read_file(d + "/private").find(hash_hex("abc", 32)) != std::string::npos);
  write_file(d + "/group", "old");
  REQUIRE(::chmod((d + "/group").c_str(), 0664) == 0);
  REQUIRE(run("umask 077; " + exe() + " " + in + " " + d + "/group", out) == 0);
  CHECK(mode_of(d + "/group") == 0664);

  REQUIRE(run("umask 027; " + exe() + " " + in + " " + d + "/new1", out) == 0);
  CHECK(mode_of(d + "/new1") == 0640);
  REQUIRE(run("umask 002; " + exe() + " --binary <(printf '\\x20\\0\\0\\0\\0\\0\\0\\0') " + d + "/new2", out) == 0);
  CHECK(mode_of(d + "/new2") == 0664);

  // Not writable for us: refused (root may write anything, so only checked for others).
  if (::geteuid() != 0) {
    write_file(d + "/ro", "old");
    REQUIRE(::chmod((d + "/ro").c_str(), 0444) == 0);
    CHECK(run(exe() + " " + in + " " + d + "/ro", out) == 1);
    CHECK(out.find("is not writable") != std::string::npos);
    CHECK(read_file(d + "/ro") == "old");
  }
  CHECK(no_temporaries(d));
}

TEST_CASE("OUT: a 255-byte name works (the temporary's name does not grow with it)", "[fanout][output]") {
  const std::string d = tmpdir() + "/long";
  ::mkdir(d.c_str(), 0755);
  const std::string in = request(d);
  std::string out;
  const std::string name(255, 'n');
  REQUIRE(run(exe() + " " + in + " " + d + "/" + name, out) == 0);
  CHECK(read_file(d + "/" + name).find(hash_hex("abc", 32)) != std::string::npos);
  CHECK(run(exe() + " " + in + " " + d + "/" + name + "x", out) == 1);  // 256: the kernel's limit
  CHECK(out.find("File name too long") != std::string::npos);
  CHECK(std::count(out.begin(), out.end(), '\n') == 1);
  CHECK(no_temporaries(d));
}

TEST_CASE("OutputFile: commit replaces atomically; without commit nothing changes", "[fanout][output]") {
  const std::string d = tmpdir() + "/lib";
  ::mkdir(d.c_str(), 0755);
  write_file(d + "/f", "old");
  for (const bool durable : {true, false}) {
    {
      fanout::OutputFile f(d + "/f", durable);
      f.write("new!", 4);
      CHECK(read_file(d + "/f") == "old");  // nothing visible before commit
    }
    CHECK(read_file(d + "/f") == "old");
    CHECK(no_temporaries(d));
    {
      // The old file stays open (O_PATH) until the caller lets go: it can free it later.
      fanout::OutputFile f(d + "/f", durable);
      f.write("new!", 4);
      fanout::UniqueFd old = f.commit();
      CHECK(old);
      CHECK(read_file(d + "/f") == "new!");
    }
    write_file(d + "/f", "old");
  }
  fanout::OutputFile fresh(d + "/fresh", true);
  fresh.write("x", 1);
  CHECK_FALSE(fresh.commit());  // nothing was replaced
  CHECK(read_file(d + "/fresh") == "x");
  CHECK_THROWS_WITH(fanout::OutputFile(d + "/missing-folder/x", true), Catch::Contains("cannot open the folder"));
  CHECK_THROWS_WITH(fanout::OutputFile("", true), Catch::Contains("empty"));
}

TEST_CASE("OUT: fsync of the file before the rename and of the folder after it (strace)", "[fanout][output]") {
  std::string out;
  if (run("strace -o /dev/null true", out) != 0) {
    WARN("skipped: strace is missing or not permitted here (" << out.substr(0, 80) << ")");
    return;
  }
  const std::string d = tmpdir() + "/sync";
  ::mkdir(d.c_str(), 0755);
  const std::string in = request(d);
  const std::string trace = d + "/trace";
  // LeakSanitizer refuses to run under ptrace.
  const std::string strace = "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" strace -f -qq ";
  REQUIRE(run(strace + "-e trace=fsync,fdatasync,rename,renameat,renameat2 -o " + trace + " " + exe() + " " + in +
                  " " + d + "/r.out",
              out) == 0);
  std::vector<std::string> calls;  // in order: "fsync" (fsync or fdatasync) or "rename" (any form)
  std::istringstream lines(read_file(trace));
  for (std::string l; std::getline(lines, l);) {
    if (l.find("sync(") != std::string::npos) calls.push_back("fsync");
    else if (l.find("rename") != std::string::npos) calls.push_back("rename");
  }
  INFO(read_file(trace));
  CHECK(calls == std::vector<std::string>{"fsync", "rename", "fsync"});
  REQUIRE(run(strace + "-e trace=fsync,fdatasync -o " + trace + " " + exe() + " --no-fsync " + in + " " + d +
                  "/r.out",
              out) == 0);
  CHECK(read_file(trace).find("fsync(") == std::string::npos);
}
