// Per-stage timing of one CPU signature or verification, for profiling: with
// TEMPO_FAEST_STAGES=1 every CPU signature and verification records the time spent in each
// stage, and the mean microseconds per stage are printed to stderr at exit (one line per
// operation and parameter set). Off by default; then each mark is one relaxed atomic load.
// The time is the calling thread's CPU time (Linux; wall-clock elsewhere), so a loaded
// machine still shows one signature's cost; with forks inside a signature, work run by
// other workers is not counted: measure serial signatures.
#pragma once

#include <atomic>

namespace tempo::faest::detail {

enum class Stage : unsigned {
  front,        // mu, the GGM root and iv (sign); mu, iv, delta (verify)
  tree,         // GGM expansion (verify: from the opened co-path)
  leaves,       // leaf PRG + leaf commitments
  com_hash,     // H1 over the leaf commitments
  vole,         // ConvertToVOLE of every instance
  vole_hash,    // c_i, chall1, VOLEHash of u and the columns, chall2
  quicksilver,  // the OWF constraints (QuickSilver prover / verifier)
  grind_open,   // grinding and BAVC.Open (sign); the final challenge hash (verify)
  count
};
enum class TimedOp : unsigned { sign, verify };

// Set once from TEMPO_FAEST_STAGES (faest.cpp).
extern std::atomic<bool> stage_timing_on;

void stage_begin_impl(TimedOp op, bool is_128f);
void stage_mark_impl(Stage s);
void stage_end_impl();

inline void stage_begin(TimedOp op, bool is_128f) {
  if (stage_timing_on.load(std::memory_order_relaxed)) stage_begin_impl(op, is_128f);
}
// The time since the last mark (or the begin) goes to stage s.
inline void stage_mark(Stage s) {
  if (stage_timing_on.load(std::memory_order_relaxed)) stage_mark_impl(s);
}
inline void stage_end() {
  if (stage_timing_on.load(std::memory_order_relaxed)) stage_end_impl();
}

// Begins on construction, ends on destruction (also when a verification returns early).
struct StageScope {
  StageScope(TimedOp op, bool is_128f) { stage_begin(op, is_128f); }
  ~StageScope() { stage_end(); }
  StageScope(const StageScope&) = delete;
  StageScope& operator=(const StageScope&) = delete;
};

}  // namespace tempo::faest::detail
