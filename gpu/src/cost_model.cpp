// Cost model: linear per-side models with priors from the H200 host, refined by
// a forgetting ridge regression on the multipliers of the prior's three terms.
//
// Why multipliers: the three features differ by twelve orders of magnitude in raw
// units (1, work units, bytes); expressed as "how many times the prior's term",
// all three are near 1, so one ridge strength fits all and the prior stays sane.
// Why relative errors (each observation scaled by the prior's prediction): a 50 us
// batch and a 500 ms batch should count the same, or the big ones drown the fixed cost.
#include "tempo/gpu/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tempo::gpu {
namespace {
constexpr double forget = 0.97;   // older observations fade: the machine's load changes
constexpr double ridge = 2.0;     // the prior is worth about two observations
constexpr double min_mult = 0.02;
constexpr double max_mult = 200.0;

// Solves the 3x3 system A x = b by Gaussian elimination with partial pivoting.
bool solve3(std::array<double, 9> a, std::array<double, 3> b, std::array<double, 3>& x) {
  for (int c = 0; c < 3; ++c) {
    int p = c;
    for (int r = c + 1; r < 3; ++r)
      if (std::fabs(a[r * 3 + c]) > std::fabs(a[p * 3 + c])) p = r;
    if (std::fabs(a[p * 3 + c]) < 1e-12) return false;
    if (p != c) {
      for (int k = 0; k < 3; ++k) std::swap(a[c * 3 + k], a[p * 3 + k]);
      std::swap(b[c], b[p]);
    }
    for (int r = c + 1; r < 3; ++r) {
      double f = a[r * 3 + c] / a[c * 3 + c];
      for (int k = c; k < 3; ++k) a[r * 3 + k] -= f * a[c * 3 + k];
      b[r] -= f * b[c];
    }
  }
  for (int c = 2; c >= 0; --c) {
    double s = b[c];
    for (int k = c + 1; k < 3; ++k) s -= a[c * 3 + k] * x[k];
    x[c] = s / a[c * 3 + c];
  }
  return true;
}
}  // namespace

LinearCost::LinearCost(double fixed_ms, double per_work_ms, double per_byte_ms)
    : prior_{fixed_ms, per_work_ms, per_byte_ms}, theta_{fixed_ms, per_work_ms, per_byte_ms} {}

double LinearCost::predict(double work, double bytes) const { return theta_[0] + variable(work, bytes); }

double LinearCost::variable(double work, double bytes) const { return theta_[1] * work + theta_[2] * bytes; }

void LinearCost::observe(double work, double bytes, double ms) {
  if (!(ms > 0) || !std::isfinite(ms) || work < 0 || bytes < 0) return;
  // Features: the prior's three terms as fractions of the prior's prediction; the
  // target: measured / predicted-by-prior. The multipliers m then fit sum(m_j z_j) ~
  // ratio, every observation weighing the same whatever its size.
  const double pred = prior_[0] + prior_[1] * work + prior_[2] * bytes;
  if (!(pred > 0)) return;
  const std::array<double, 3> z{prior_[0] / pred, prior_[1] * work / pred, prior_[2] * bytes / pred};
  const double ratio = ms / pred;
  for (auto& v : xtx_) v *= forget;
  for (auto& v : xty_) v *= forget;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) xtx_[i * 3 + j] += z[i] * z[j];
    xty_[i] += z[i] * ratio;
  }
  ++n_;
  std::array<double, 9> a = xtx_;
  std::array<double, 3> b = xty_;
  for (int i = 0; i < 3; ++i) {
    a[i * 3 + i] += ridge;
    b[i] += ridge * 1.0;  // pulled towards multiplier 1 (the prior)
  }
  std::array<double, 3> m{1, 1, 1};
  if (!solve3(a, b, m)) return;
  for (int i = 0; i < 3; ++i) theta_[i] = prior_[i] * std::clamp(m[i], min_mult, max_mult);
}

std::string Estimate::describe() const {
  char buf[160];
  const char* p = placement == Placement::cpu ? "cpu" : placement == Placement::gpu ? "gpu" : "split";
  std::snprintf(buf, sizeof buf, "cost model: %s (cpu %.3g ms, gpu %.3g ms, split %.3g ms at %.0f%% gpu)", p, cpu_ms,
                gpu_ms, split_ms, gpu_fraction * 100.0);
  return buf;
}

CostModel::CostModel(const CostPrior& prior) : prior_(prior) { reset(); }

void CostModel::reset() {
  std::lock_guard lock(m_);
  cpu_ = LinearCost(prior_.cpu_fixed, prior_.cpu_per_work, prior_.cpu_per_byte);
  gpu_ = LinearCost(prior_.gpu_fixed, prior_.gpu_per_work, prior_.gpu_per_byte);
}

Estimate CostModel::estimate(const WorkShape& w, std::size_t cpu_workers, int devices, double longest_item_work) const {
  std::lock_guard lock(m_);
  Estimate e;
  const double workers = static_cast<double>(std::max<std::size_t>(cpu_workers, 1));
  // CPU: the blocks spread over the workers, but only once the batch has run
  // for about two heartbeats (tempo keeps shorter work on the calling thread):
  // the first kSpreadDelayMs run on one core. Measured on the H200 host, a
  // 1,000 x 32 B batch took 156 us on 16 workers, as on one.
  constexpr double kSpreadDelayMs = 0.2;  // 2 x the default 100 us heartbeat
  const double cpu_var = cpu_.variable(w.work, w.bytes);
  const double one_core = cpu_var;  // the whole batch on one core
  // Nor can the pool finish before one core has done the longest item.
  const double longest_cpu = cpu_.variable(longest_item_work, 0);
  e.cpu_ms = cpu_.fixed_ms() +
             std::max(longest_cpu, one_core <= kSpreadDelayMs ? one_core
                                                              : kSpreadDelayMs + (one_core - kSpreadDelayMs) / workers);
  if (devices <= 0) {
    e.placement = Placement::cpu;
    e.gpu_ms = e.split_ms = INFINITY;
    return e;
  }
  const double dev = static_cast<double>(devices);
  // GPU: throughput term, but never faster than one thread's chain of work on the
  // longest item (a few long items leave most of the device idle).
  const double per_work = prior_.gpu_item_latency_per_work > 0 ? prior_.gpu_item_latency_per_work
                                                                 : prior_.cpu_per_work * gpu_thread_slowdown;
  const double chain_ms = longest_item_work * per_work;
  const double gpu_var = std::max(gpu_.variable(w.work, w.bytes) / dev, chain_ms);
  e.gpu_ms = gpu_.fixed_ms() + gpu_var;
  // Split: both sides start after their fixed costs and share the variable work so
  // that they finish together: rates add.
  const double rc = cpu_var > 0 ? workers / cpu_var : INFINITY;  // fraction of the work per ms
  const double rg = gpu_var > 0 ? 1.0 / gpu_var : INFINITY;
  const double start = std::max(cpu_.fixed_ms(), gpu_.fixed_ms());
  if (std::isfinite(rc) && std::isfinite(rg)) {
    e.split_ms = start + 1.0 / (rc + rg);
    e.gpu_fraction = rg / (rc + rg);
  } else {
    e.split_ms = e.gpu_ms;
    e.gpu_fraction = 1.0;
  }
  const double best_gpu_side = std::min(e.gpu_ms, e.split_ms);
  if (best_gpu_side < e.cpu_ms * margin) {
    // Split only when the CPU's share is worth it: otherwise the CPU workers would
    // compete with the staging copies for memory bandwidth for little gain.
    if (e.split_ms < e.gpu_ms * margin && e.gpu_fraction < 0.95)
      e.placement = Placement::split;
    else
      e.placement = Placement::gpu;
  } else {
    e.placement = Placement::cpu;
  }
  return e;
}

void CostModel::observe_cpu(double work, double bytes, double ms) {
  std::lock_guard lock(m_);
  cpu_.observe(work, bytes, ms);
}
void CostModel::observe_gpu(double work, double bytes, double ms) {
  std::lock_guard lock(m_);
  gpu_.observe(work, bytes, ms);
}
double CostModel::predict_cpu_core_ms(double work, double bytes) const {
  std::lock_guard lock(m_);
  return cpu_.predict(work, bytes);
}
double CostModel::predict_gpu_ms(double work, double bytes) const {
  std::lock_guard lock(m_);
  return gpu_.predict(work, bytes);
}
LinearCost CostModel::cpu() const {
  std::lock_guard lock(m_);
  return cpu_;
}
LinearCost CostModel::gpu() const {
  std::lock_guard lock(m_);
  return gpu_;
}

}  // namespace tempo::gpu
