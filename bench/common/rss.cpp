#include "rss.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace tb {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string regex_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (std::strchr(".[]{}()\\*+?^$|", c)) r += '\\';
    r += c;
  }
  return r;
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

struct ChildResult {
  int status = -1;
  long maxrss_kib = 0;
  std::string out;  // captured stdout when requested
};

// fork + exec of /proc/self/exe; the parent is still single-threaded here (no
// pool or arena exists yet), so fork is safe.
ChildResult run_child(const std::vector<std::string>& args, bool capture) {
  int fds[2] = {-1, -1};
  if (capture && pipe(fds) != 0) throw std::runtime_error("rss sweep: pipe failed");
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("rss sweep: fork failed");
  if (pid == 0) {
    // Only the listing's stdout is wanted; the runs' reports would be noise.
    int devnull = open("/dev/null", O_WRONLY);
    dup2(capture ? fds[1] : devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    if (capture) close(fds[0]);
    std::vector<char*> av;
    for (auto& a : args) av.push_back(const_cast<char*>(a.c_str()));
    av.push_back(nullptr);
    execv("/proc/self/exe", av.data());
    _exit(127);
  }
  ChildResult r;
  if (capture) {
    close(fds[1]);
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) r.out.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
  }
  struct rusage ru {};
  int st = 0;
  while (wait4(pid, &st, 0, &ru) < 0) {
    if (errno != EINTR) throw std::runtime_error("rss sweep: wait4 failed");
  }
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.maxrss_kib = ru.ru_maxrss;  // Linux reports kilobytes
  return r;
}

}  // namespace

RssRequest take_rss_flags(int& argc, char** argv) {
  RssRequest r;
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (starts_with(a, "--rss_sweep="))
      r.regex = std::string(a.substr(12));
    else if (starts_with(a, "--rss_out="))
      r.out = std::string(a.substr(10));
    else
      argv[out++] = argv[i];
  }
  argc = out;
  argv[argc] = nullptr;
  if (!r.out.empty() && r.regex.empty())
    throw std::invalid_argument("tempo_bench: --rss_out needs --rss_sweep=REGEX");
  if (r.active() && r.out.empty()) r.out.push_back('-');  // (not = "-": GCC 12 -Wrestrict false positive)
  return r;
}

int run_rss_sweep(const RssRequest& req, const std::vector<std::string>& original) {
  // The children get our size flags and Google Benchmark's timing flags, but
  // their own filter and no output files.
  std::vector<std::string> base{original.at(0)};
  for (std::size_t i = 1; i < original.size(); ++i) {
    const std::string& a = original[i];
    if (starts_with(a, "--benchmark_filter=") || starts_with(a, "--benchmark_out") ||
        starts_with(a, "--benchmark_format=") || starts_with(a, "--benchmark_list_tests") ||
        starts_with(a, "--rss_"))
      continue;
    base.push_back(a);
  }

  auto list_args = base;
  list_args.push_back("--benchmark_list_tests=true");
  list_args.push_back("--benchmark_filter=" + req.regex);
  ChildResult listed = run_child(list_args, true);
  if (listed.status != 0) throw std::runtime_error("rss sweep: listing benchmarks failed");
  std::vector<std::string> names;
  std::istringstream lines(listed.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) names.push_back(line);
  if (names.empty()) throw std::runtime_error("rss sweep: no benchmark matches '" + req.regex + "'");

  std::ostringstream js;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
  js << "{\n  \"context\": {\"kind\": \"peak_rss\", \"date\": \"" << date << "\", \"host_name\": \""
     << json_escape(host) << "\", \"filter\": \"" << json_escape(req.regex)
     << "\", \"method\": \"one child process per benchmark, ru_maxrss from wait4\"},\n"
     << "  \"peak_rss\": [\n";

  // Baseline: a child that loads everything but runs no benchmark.
  auto none = base;
  none.push_back("--benchmark_filter=^$");
  ChildResult b = run_child(none, false);
  js << "    {\"name\": \"baseline\", \"maxrss_kib\": " << b.maxrss_kib << ", \"status\": 0}";
  int failures = 0;
  for (const auto& n : names) {
    auto args = base;
    std::string filter = "--benchmark_filter=^";  // built step by step: GCC 12 -Wrestrict false positive
    filter += regex_escape(n);
    filter += '$';
    args.push_back(filter);
    ChildResult r = run_child(args, false);
    if (r.status != 0) ++failures;
    js << ",\n    {\"name\": \"" << json_escape(n) << "\", \"maxrss_kib\": " << r.maxrss_kib
       << ", \"status\": " << r.status << "}";
    std::cerr << "rss: " << n << " peak " << r.maxrss_kib << " KiB" << (r.status ? " (FAILED)" : "") << "\n";
  }
  js << "\n  ]\n}\n";

  if (req.out == "-") {
    std::cout << js.str();
  } else {
    std::ofstream f(req.out);
    if (!f) throw std::runtime_error("rss sweep: cannot write " + req.out);
    f << js.str();
  }
  return failures ? 1 : 0;
}

}  // namespace tb
