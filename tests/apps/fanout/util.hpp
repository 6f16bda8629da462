// Helpers of tempo-fanout's tests: temp folder, files, running the tool through bash.
#pragma once

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hashing.hpp"

namespace ftest {

inline std::string tmpdir() {
  static std::string dir = [] {
    char tmpl[] = "/tmp/tempo-fanout-test.XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    REQUIRE(d != nullptr);
    return std::string(d);
  }();
  return dir;
}
inline void write_file(const std::string& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
}
inline std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
inline bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}
inline unsigned mode_of(const std::string& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}
// Runs `script` with bash; returns its exit status; `output` gets stdout+stderr.
inline int run(const std::string& script, std::string& output) {
  const std::string d = tmpdir();
  write_file(d + "/cmd.sh", script + "\n");
  const int rc = std::system(("bash " + d + "/cmd.sh >" + d + "/cmd.log 2>&1").c_str());
  output = read_file(d + "/cmd.log");
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}
inline std::string u32(std::uint32_t v) {
  std::string s(4, '\0');
  for (int k = 0; k < 4; ++k) s[static_cast<std::size_t>(k)] = static_cast<char>(v >> (8 * k));
  return s;
}
inline std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}
inline std::string hash_hex(const std::string& msg, std::size_t out,
                            tempo::keccak::Algorithm a = tempo::keccak::Algorithm::shake256) {
  std::vector<std::uint8_t> d(out);
  tempo::keccak::hash(a, {reinterpret_cast<const std::uint8_t*>(msg.data()), msg.size()}, d);
  return hex(d.data(), out);
}
// Whether a line is printable ASCII only (the one-line error promise).
inline bool printable(const std::string& s) {
  for (const char c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  return true;
}
// The tool as built; TEMPO_FANOUT_EXE in the environment points elsewhere (the
// device machine runs a carried copy, not the build tree).
inline const std::string& exe() {
  static const std::string e = [] {
    const char* env = std::getenv("TEMPO_FANOUT_EXE");
    return std::string(env && *env ? env : TEMPO_FANOUT_EXE);
  }();
  return e;
}
inline bool have_device() { return tempo::gpu::device_count() > 0; }

// ulimit -v does not work under ASan or TSan (they reserve terabytes of shadow).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace ftest
