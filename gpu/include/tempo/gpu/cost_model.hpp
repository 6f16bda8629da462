// The placement cost model of one operation: where should a batch run, and how much
// of it on the GPU?
//
// Each side is a linear model of wall time in milliseconds (CostPrior in op.hpp):
//   CPU, per core:   fixed + per_work * work + per_byte * bytes
//   GPU, per device: fixed + per_work * work + per_byte * bytes  (host to host)
// "work" is the op's own unit (BatchOp::work summed over the items); "bytes" counts
// inputs + output, which on the GPU pay for PCIe transfers (and staging copies when
// the host memory is pageable). The CPU side divides its variable part over the pool's
// workers (Task::thread_count), the GPU side over the devices.
//
// Calibration: every batch feeds its measured times back (observe_*): each side keeps
// an exponentially forgetting ridge regression on multipliers of the prior's terms, so
// a handful of batches moves it to this machine's numbers while one outlier cannot
// swing it far. Thread-safe. One model per operation key (Engine::cost_model).
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include <tempo/gpu/op.hpp>

namespace tempo::gpu {

enum class Placement { cpu, gpu, split };
std::string_view placement_name(Placement p) noexcept;  // "cpu" | "gpu" | "split"

struct WorkShape {
  double items = 0;
  double work = 0;   // the op's work units
  double bytes = 0;  // inputs + output bytes
};

// Online ridge regression y ~ theta . [1, work, bytes] with forgetting.
class LinearCost {
 public:
  LinearCost() = default;
  LinearCost(double fixed_ms, double per_work_ms, double per_byte_ms);
  double predict(double work, double bytes) const;  // fixed + variable
  double fixed_ms() const { return theta_[0]; }
  double variable(double work, double bytes) const;  // without the fixed part
  void observe(double work, double bytes, double ms);
  std::array<double, 3> theta() const { return theta_; }
  std::size_t observations() const { return n_; }

 private:
  std::array<double, 3> prior_{};
  std::array<double, 3> theta_{};
  // Weighted normal equations in units of the prior's terms, minus the prior term.
  std::array<double, 9> xtx_{};
  std::array<double, 3> xty_{};
  std::size_t n_ = 0;
};

struct Estimate {
  Placement placement{};
  double cpu_ms = 0;        // all on the CPU workers
  double gpu_ms = 0;        // all on the devices
  double split_ms = 0;      // both sides sharing, each finishing at the same time
  double gpu_fraction = 0;  // of the work, in the split
  std::string describe() const;
};

class CostModel {
 public:
  explicit CostModel(const CostPrior& prior = {});
  // Picks the cheapest placement. A split or the GPU must win by `margin` (10%) over
  // the CPU to be chosen: near the crossover the CPU is the safer bet (no PCIe, no
  // device contention). `longest_item_work`: the GPU cannot finish before one thread
  // has done the longest item (about gpu_thread_ms_per_work per unit).
  Estimate estimate(const WorkShape& w, std::size_t cpu_workers, int devices, double longest_item_work = 0) const;
  void observe_cpu(double work, double bytes, double ms);  // one core's time for a block
  void observe_gpu(double work, double bytes, double ms);  // one device's host-to-host time
  double predict_cpu_core_ms(double work, double bytes) const;
  double predict_gpu_ms(double work, double bytes) const;
  LinearCost cpu() const;
  LinearCost gpu() const;
  void reset();  // back to the priors (tests)

  static constexpr double margin = 0.9;
  // A GPU thread is about this much slower than a CPU core per unit of serial work.
  static constexpr double gpu_thread_slowdown = 13.0;

 private:
  mutable std::mutex m_;
  CostPrior prior_;
  LinearCost cpu_;
  LinearCost gpu_;
};

}  // namespace tempo::gpu
