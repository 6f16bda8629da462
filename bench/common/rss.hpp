// Honest peak-memory numbers per variant: each benchmark runs alone in a fresh
// child process (this same binary, re-executed) and the parent reads the
// child's peak RSS from wait4(). One process per variant, so no variant's
// allocations (or a runtime's thread stacks) leak into another's figure.
#pragma once
#include <string>
#include <vector>

namespace tb {

struct RssRequest {
  std::string regex;  // --rss_sweep=REGEX: benchmarks to measure
  std::string out;    // --rss_out=FILE: JSON destination ("-" = stdout)
  bool active() const { return !regex.empty(); }
};

// Removes --rss_sweep= / --rss_out= from argv.
RssRequest take_rss_flags(int& argc, char** argv);

// Lists the matching benchmarks, runs each in its own child (plus one child
// that runs nothing, the baseline), writes JSON. Returns the exit status.
int run_rss_sweep(const RssRequest& req, const std::vector<std::string>& original_args);

}  // namespace tb
