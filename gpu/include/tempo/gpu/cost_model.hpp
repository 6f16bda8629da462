// The placement cost model: where should a batch run, and how much of it on the GPU?
//
// Each side is a linear model of wall time in milliseconds:
//   CPU, per core:  fixed + per_perm * permutations + per_byte * bytes
//   GPU, per device, host-to-host: fixed + per_perm * permutations + per_byte * bytes
// "permutations" counts Keccak-f calls (absorb blocks + extra squeeze blocks), the
// unit of hashing work; "bytes" counts input + output bytes, which on the GPU pay
// for PCIe transfers (and staging copies when the host memory is pageable).
// The CPU side divides its variable part over the workers; the GPU side over the devices.
//
// Calibration: every batch feeds its measured times back (observe_*): the model keeps
// an exponentially forgetting ridge regression per side whose prior is the figures
// measured on the H200 host (docs/gpu.md), so a handful of batches moves it to this
// machine's numbers while a single outlier cannot swing it far. Thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <string>

namespace tempo::gpu {

struct WorkShape {
  double items = 0;
  double perms = 0;  // Keccak-f calls
  double bytes = 0;  // input + output bytes
};

// Online ridge regression y ~ theta . [1, perms, bytes] with forgetting.
class LinearCost {
 public:
  LinearCost() = default;
  LinearCost(double fixed_ms, double per_perm_ms, double per_byte_ms);
  double predict(double perms, double bytes) const;  // fixed + variable
  double fixed_ms() const { return theta_[0]; }
  double variable(double perms, double bytes) const;  // without the fixed part
  void observe(double perms, double bytes, double ms);
  std::array<double, 3> theta() const { return theta_; }
  std::size_t observations() const { return n_; }

 private:
  std::array<double, 3> prior_{};
  std::array<double, 3> theta_{};
  // Weighted normal equations in scaled units (ms, Mperm, MB), minus the prior term.
  std::array<double, 9> xtx_{};
  std::array<double, 3> xty_{};
  std::size_t n_ = 0;
};

enum class Placement { cpu, gpu, split };

struct Estimate {
  Placement placement = Placement::cpu;
  double cpu_ms = 0;    // all on the CPU workers
  double gpu_ms = 0;    // all on the devices
  double split_ms = 0;  // both sides sharing, each finishing at the same time
  double gpu_fraction = 0;  // of the work, in the split
  std::string describe() const;
};

class CostModel {
 public:
  CostModel();  // priors from the H200 measurements
  // Pick the cheapest placement. A split or the GPU must win by `margin` (10%) over
  // the CPU to be chosen: near the crossover the CPU is the safer bet (no PCIe, no
  // device contention).
  Estimate estimate(const WorkShape& w, std::size_t cpu_workers, int devices) const;
  // Per-core CPU cost of a block of work, measured on one worker.
  void observe_cpu(double perms, double bytes, double ms);
  // One device's host-to-host time for its share of a batch.
  void observe_gpu(double perms, double bytes, double ms);
  double predict_cpu_core_ms(double perms, double bytes) const;
  double predict_gpu_ms(double perms, double bytes) const;
  LinearCost cpu() const;
  LinearCost gpu() const;
  void reset();  // back to the priors (tests)

  static constexpr double margin = 0.9;

 private:
  mutable std::mutex m_;
  LinearCost cpu_;
  LinearCost gpu_;
};

// The process-wide model hash_batch uses.
CostModel& cost_model();

}  // namespace tempo::gpu
