// Engine::run and submit: validation, placement, the CPU side, and the join.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tempo/env.hpp>

#include "engine_core.hpp"
#include "job.hpp"
#include "tempo/gpu/engine.hpp"

namespace tempo::gpu {
namespace detail {

namespace {

// TEMPO_GPU_CHUNK_MB in MiB, 64 KiB to 64 GiB: env_integer's rule and message for a
// value that may be a fraction (digits with at most one '.'; strtod alone would take
// "inf", "1e3", " 8" or "0x10").
std::optional<double> chunk_mib_from_env() {
  const char* text = std::getenv("TEMPO_GPU_CHUNK_MB");
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string_view s = text;
  const bool plain = s.find_first_not_of("0123456789.") == std::string_view::npos &&
                     s.find_first_of("0123456789") != std::string_view::npos && s.find('.') == s.rfind('.');
  const double v = plain ? std::strtod(text, nullptr) : -1;
  if (!(v >= 0.0625 && v <= 65536))
    throw std::invalid_argument("TEMPO_GPU_CHUNK_MB='" + std::string(s) +
                                "' is not accepted (expected a number from 0.0625 to 65536)");
  return v;
}

}  // namespace

Tuning tuning_from_env(const EngineOptions& opt) {
  Tuning t;
  t.streams_per_device = opt.streams_per_device
                             ? opt.streams_per_device
                             : env_integer("TEMPO_GPU_STREAMS", 1, 32).value_or(t.streams_per_device);
  t.pinned_streams = env_integer("TEMPO_GPU_PINNED_STREAMS", 1, 32).value_or(t.pinned_streams);
  t.max_chunk_bytes = chunk_mib_from_env().value_or(8) * (1 << 20);
  t.nt_copy = env_flag("TEMPO_GPU_NT_COPY").value_or(t.nt_copy);
  if (const auto mb = env_integer("TEMPO_GPU_SCRATCH_KEEP_MB", 0, 1 << 20)) t.scratch_keep_bytes = std::uint64_t(*mb) << 20;
  return t;
}

BatchView validate(const BatchOp& op, std::span<const Operand> inputs, Output out) {
  struct Who {  // the message prefix, built only when something is wrong
    const BatchOp& op;
    operator std::string() const { return "tempo::gpu: " + op.key() + ": "; }
  } who{op};
  const std::size_t want = op.inputs();
  if (want == 0 || want > kMaxInputs)
    throw std::invalid_argument(std::string(who) + "the op declares " + std::to_string(want) + " inputs (1.." +
                                std::to_string(kMaxInputs) + " allowed)");
  if (inputs.size() != want)
    throw std::invalid_argument(std::string(who) + "expected " + std::to_string(want) + " inputs, got " +
                                std::to_string(inputs.size()));
  BatchView v;
  v.inputs = want;
  v.out = out.data();
  v.out_stride = op.out_stride();
  for (std::size_t k = 0; k < want; ++k) {
    const Operand& o = inputs[k];
    std::size_t n = 0;
    if (o.is_fixed()) {
      if (o.stride == 0) {
        if (!o.data.empty())
          throw std::invalid_argument(std::string(who) + "input " + std::to_string(k) + " has stride 0 but " +
                                      std::to_string(o.data.size()) + " bytes");
        n = out.size() / std::max<std::size_t>(v.out_stride, 1);  // zero-length items: count from the output
      } else {
        if (o.data.size() % o.stride != 0)
          throw std::invalid_argument(std::string(who) + "input " + std::to_string(k) + " holds " +
                                      std::to_string(o.data.size()) + " bytes, not a multiple of its stride " +
                                      std::to_string(o.stride));
        n = o.data.size() / o.stride;
      }
    } else {
      const auto& off = o.offsets;
      if (off.front() != 0)
        throw std::invalid_argument(std::string(who) + "input " + std::to_string(k) + ": offsets[0] is " +
                                    std::to_string(off.front()) + ", not 0");
      if (off.back() != o.data.size())
        throw std::invalid_argument(std::string(who) + "input " + std::to_string(k) + ": the last offset is " +
                                    std::to_string(off.back()) + " but the data holds " +
                                    std::to_string(o.data.size()) + " bytes");
      for (std::size_t i = 1; i < off.size(); ++i)
        if (off[i] < off[i - 1])
          throw std::invalid_argument(std::string(who) + "input " + std::to_string(k) + ": offsets decrease at index " +
                                      std::to_string(i));
      n = off.size() - 1;
    }
    if (k == 0) v.n = n;
    else if (n != v.n)
      throw std::invalid_argument(std::string(who) + "input " + std::to_string(k) + " has " + std::to_string(n) +
                                  " items, input 0 has " + std::to_string(v.n));
    v.in[k] = o;
  }
  if (v.out_stride == 0 && !out.empty()) throw std::invalid_argument(std::string(who) + "the op has no output but out is not empty");
  if (v.out_stride != 0 && (out.size() % v.out_stride != 0 || out.size() / v.out_stride != v.n))
    throw std::invalid_argument(std::string(who) + "out holds " + std::to_string(out.size()) + " bytes, expected " +
                                std::to_string(v.n) + " items x " + std::to_string(v.out_stride) + " bytes");
  // In place: only when the op allows it, and then exactly over input 0.
  const auto* ob = out.data();
  const auto* oe = ob + out.size();
  for (std::size_t k = 0; k < want && !out.empty(); ++k) {
    const auto* ib = v.in[k].data.data();
    const auto* ie = ib + v.in[k].data.size();
    if (ib == ie || oe <= ib || ie <= ob) continue;  // disjoint
    const bool exact = k == 0 && ib == ob && v.in[0].is_fixed() && v.in[0].stride == v.out_stride;
    if (!exact || !op.in_place_ok())
      throw std::invalid_argument(std::string(who) + "out overlaps input " + std::to_string(k) +
                                  (exact ? " and the op does not run in place" : " (only exact in-place over input 0 is allowed)"));
  }
  return v;
}

Range Job::claim_back(std::size_t max_bytes, std::size_t max_items) {
  std::lock_guard lock(m);
  if (front >= back) return {};
  const std::size_t b = back;
  std::size_t lo = b - std::min(std::max<std::size_t>(max_items, 1), b - front);
  // in_bytes(s, b) shrinks as s grows: the smallest s in [lo, b-1] within max_bytes.
  std::size_t hi = b - 1;
  if (v.in_bytes(lo, b) > max_bytes) {
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (v.in_bytes(mid, b) <= max_bytes) hi = mid;
      else lo = mid + 1;
    }
  }
  back = lo;
  return {lo, b};
}

Range Job::claim_front(std::size_t max_bytes, std::size_t max_items) {
  std::lock_guard lock(m);
  if (front >= back) return {};
  const std::size_t f = front;
  std::size_t hi = f + std::min(std::max<std::size_t>(max_items, 1), back - f);
  if (v.in_bytes(f, hi) > max_bytes) {
    std::size_t lo = f + 1;  // the largest e in [f+1, hi] within max_bytes (at least one item)
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo + 1) / 2;
      if (v.in_bytes(f, mid) <= max_bytes) lo = mid;
      else hi = mid - 1;
    }
    hi = lo;
  }
  front = hi;
  return {f, hi};
}

CostModel& EngineCore::model(const BatchOp& op) {
  std::string key = op.key();
  std::lock_guard lock(models_m);
  auto it = models.find(key);
  if (it == models.end()) it = models.emplace(std::move(key), std::make_unique<CostModel>(op.prior())).first;
  return *it->second;
}

void EngineCore::require_alive(const char* what) const {
  if (!alive.load(std::memory_order_acquire))
    throw std::logic_error(std::string("tempo::gpu: ") + what + ": its engine was shut down");
}

}  // namespace detail

namespace {
using detail::BatchView;
using detail::Clock;
using detail::Job;
using detail::ms_between;
using detail::Range;

// Items of one core's ~100 us: fine enough to balance and to meet the GPU within a
// block, coarse enough that the per-block call and claim cost nothing.
std::size_t cpu_block_items(const Job& job) {
  const CostModel& model = *job.model;
  const double per_item = std::max(1e-7, model.predict_cpu_core_ms(job.work_per_item, 0) - model.cpu().fixed_ms());
  return static_cast<std::size_t>(std::clamp(0.1 / per_item, 1.0, 1048576.0));
}

// Items [r) on the pool: one call when it is small, else blocks spread by parallel_for.
void cpu_range(Task& t, const BatchOp& op, const BatchView& v, Range r, std::size_t block) {
  if (r.empty()) return;
  if (op.forks_on_cpu()) {
    op.cpu_forked(t, v.host_chunk(r));
    return;
  }
  if (r.size() <= block) {
    op.cpu(v.host_chunk(r));
    return;
  }
  const std::size_t blocks = (r.size() + block - 1) / block;
  tempo::parallel_for(t, std::size_t{0}, blocks, [&](std::size_t b) {
    const std::size_t s = r.begin + b * block;
    op.cpu(v.host_chunk({s, std::min(r.end, s + block)}));
  });
}

// An op whose device path is its own stages (BatchOp::gpu_staged), not chunk kernels.
bool staged(const BatchOp& op) { return op.has_staged_gpu() && !op.has_cuda(); }

struct Decision {
  Placement placement = Placement::cpu;
  std::string reason;
};

std::optional<Placement> forced_placement_from_env() {
  static constexpr Placement order[] = {Placement::cpu, Placement::gpu, Placement::split};
  const auto i = env_choice("TEMPO_GPU_PLACEMENT", {"cpu", "gpu", "split"});
  if (!i) return std::nullopt;
  return order[*i];
}

Decision decide(detail::EngineCore& core, const Job& job, std::size_t workers, const RunOptions& opt,
                bool allow_split) {
  Decision d;
  const BatchOp& op = *job.op;
  const bool simulated = core.dev && core.dev->simulated();
  // Simulated devices run the CPU code; staged ops run their own device stages.
  const bool device_code = op.has_cuda() || op.has_staged_gpu() || simulated;
  if (opt.backend == Backend::cuda) {
    if (!simulated) require(Backend::cuda);  // fails fast, whatever the batch
    if (core.devices() == 0) throw std::runtime_error("tempo::gpu: the CUDA backend was requested but this engine drives no device");
    if (!device_code) throw std::runtime_error("tempo::gpu: the CUDA backend was requested but " + op.key() + " has no CUDA implementation");
  }
  if (job.v.n == 0) {
    d.reason = "empty batch";
    return d;
  }
  if (opt.backend == Backend::cpu) {
    d.reason = "backend cpu (TEMPO_BACKEND or per-call override)";
    return d;
  }
  if (!device_code) {
    d.reason = "no CUDA implementation of " + op.key() + ": CPU";
    return d;
  }
  if (job.v.in[0].is_fixed() && job.v.in[0].stride > job.max_device_item) {
    d.reason = "items over the device's per-item limit: CPU";
    return d;
  }
  if (opt.backend == Backend::cuda) {
    d.placement = Placement::gpu;
    d.reason = "backend cuda (TEMPO_BACKEND or per-call override)";
    return d;
  }
  const int devices = core.devices();
  if (devices == 0) {
    d.reason = cuda_compiled() ? "auto: no CUDA device" : "auto: built without CUDA";
    return d;
  }
  const double n = static_cast<double>(job.v.n);
  WorkShape w;
  w.items = n;
  w.work = job.work_per_item * n;
  w.bytes = static_cast<double>(job.v.in_bytes(0, job.v.n)) + n * static_cast<double>(job.v.out_stride);
  Estimate e = job.model->estimate(w, workers, devices, job.work_per_item);
  const std::optional<Placement> env = forced_placement_from_env();
  if (opt.force) e.placement = opt.forced;
  else if (env) e.placement = *env;
  if ((!allow_split || staged(op)) && e.placement == Placement::split)
    e.placement = Placement::gpu;
  d.placement = e.placement;
  d.reason = e.describe();
  return d;
}

std::shared_ptr<Job> make_job(const std::shared_ptr<detail::EngineCore>& core, const BatchOp& op,
                              std::span<const Operand> inputs, Output out) {
  auto job = std::make_shared<Job>();
  job->op = &op;
  job->v = detail::validate(op, inputs, out);
  job->model = &core->model(op);
  job->max_device_item = op.max_device_item();
  job->min_device_chunk = std::max<std::size_t>(op.min_device_chunk(), 1);
  const double n = static_cast<double>(job->v.n);
  const double avg_in = n > 0 ? static_cast<double>(job->v.in_bytes(0, job->v.n)) / n : 0.0;
  job->work_per_item = op.work(avg_in);
  job->back = job->v.n;
  job->submitted = Clock::now();
  job->engine = core;
  return job;
}

// Batches up to this many bytes (inputs + output) skip the pinned-memory query.
constexpr std::uint64_t kTinyBytes = 64u << 10;

// Fills in the device-side fields (pinned inputs, chunk caps).
void plan_gpu(detail::EngineCore& core, Job& j) {
  const BatchView& v = j.v;
  // Tiny batches are staged whatever their memory: asking the driver costs more.
  const bool tiny = v.in_bytes(0, v.n) + v.n * v.out_stride <= kTinyBytes;
  for (std::size_t k = 0; k < v.inputs; ++k) {
    const auto& d = v.in[k].data;
    j.in_pinned[k] = d.empty() || (!tiny && detail::is_pinned(d.data(), d.size()));
  }
  j.out_pinned = v.out_stride == 0 || (!tiny && detail::is_pinned(v.out, v.n * v.out_stride));
  // Pinned batches need few streams (the copy engines do the work); pageable ones
  // use every stream thread, whose staging memcpys are what limits them.
  bool all_pinned = j.out_pinned;
  for (std::size_t k = 0; k < v.inputs; ++k) all_pinned = all_pinned && j.in_pinned[k];
  const auto per_device = core.dev->workers() / static_cast<std::size_t>(std::max(core.devices(), 1));
  j.streams_per_device =
      all_pinned ? std::max<std::size_t>(std::min(per_device, core.tuning.pinned_streams), 1) : per_device;
  const std::size_t workers = std::max<std::size_t>(j.streams_per_device * static_cast<std::size_t>(core.devices()), 1);
  // Chunks: small enough that copies in, kernels and copies out of several chunks
  // overlap (~4 per stream thread), large enough to amortise ~10 us per operation,
  // and with enough items per kernel to fill the device when items are long.
  const double in_bytes = static_cast<double>(v.in_bytes(0, v.n));
  const double n = static_cast<double>(v.n);
  const double total = in_bytes + n * static_cast<double>(v.out_stride);
  const double per_item = std::max(1.0, in_bytes / n + static_cast<double>(v.out_stride));
  const double max_chunk = core.tuning.max_chunk_bytes;
  double chunk = std::clamp(total / static_cast<double>(workers * 4), std::min(double(1 << 20), max_chunk), max_chunk);
  const double per_worker_items = std::ceil(n / static_cast<double>(workers));
  chunk = std::max(chunk, std::min(per_item * std::min(per_worker_items, 2048.0), double(256 << 20)));
  j.chunk_items = static_cast<std::size_t>(std::clamp(std::floor(chunk / per_item), 1.0, double(16 << 20)));
  if (j.min_device_chunk > j.chunk_items) {
    j.chunk_items = j.min_device_chunk;
    chunk = std::max(chunk, per_item * static_cast<double>(j.min_device_chunk));
  }
  j.chunk_bytes = static_cast<std::size_t>(std::max(chunk, 1.0));
}

void start_gpu(detail::EngineCore& core, Job& j, const std::shared_ptr<Job>& job) {
  plan_gpu(core, j);
  core.dev->post(job);
}

// Below this much input the hand-off to a stream thread costs more than it overlaps.
constexpr std::uint64_t kDirectMaxBytes = 256u << 10;

bool fits_one_chunk(detail::EngineCore& core, Job& j) {
  if (j.v.in_bytes(0, j.v.n) + j.v.n * j.v.out_stride > kDirectMaxBytes) return false;
  plan_gpu(core, j);
  return j.v.n <= j.chunk_items && j.v.in_bytes(0, j.v.n) <= j.chunk_bytes;
}

// The CPU share of a split: blocks claimed from the front until the two sides meet.
void cpu_share(Task& t, Job& job, BatchReport& rep) {
  const auto t0 = Clock::now();
  const std::size_t block = cpu_block_items(job);
  const std::size_t tickets = job.v.n / block + 2;
  std::atomic<std::size_t> done_items{0};
  tempo::parallel_for(t, std::size_t{0}, tickets, [&](std::size_t) {
    const Range r = job.claim_front(~std::size_t{0}, block);
    if (r.empty()) return;
    const auto b0 = Clock::now();
    job.op->cpu(job.v.host_chunk(r));
    const double ms = ms_between(b0, Clock::now());
    const double items = static_cast<double>(r.size());
    job.model->observe_cpu(job.work_per_item * items,
                           static_cast<double>(job.v.in_bytes(r.begin, r.end)) + items * static_cast<double>(job.v.out_stride), ms);
    done_items.fetch_add(r.size(), std::memory_order_relaxed);
  });
  rep.cpu_items += done_items.load();
  rep.cpu_ms += ms_between(t0, Clock::now());
}

// After the stream threads are done: rethrow, finish what the devices left, report.
void finish_gpu(Task& t, Job& job, BatchReport& rep) {
  if (job.error) std::rethrow_exception(job.error);
  const auto t0 = Clock::now();
  std::vector<Range> rest = job.leftovers;
  if (job.front < job.back) rest.push_back({job.front, job.back});
  std::size_t cpu_items = 0;
  const std::size_t block = cpu_block_items(job);
  for (const Range& r : rest) {
    cpu_range(t, *job.op, job.v, r, block);
    cpu_items += r.size();
  }
  // Items over the device's per-item limit inside GPU chunks: their outputs hold
  // whatever the copy back brought until now.
  if (!job.skipped.empty()) {
    tempo::parallel_for(t, std::size_t{0}, job.skipped.size(),
                        [&](std::size_t k) { job.op->cpu(job.v.host_chunk({job.skipped[k], job.skipped[k] + 1})); });
    cpu_items += job.skipped.size();
  }
  if (cpu_items > 0) {
    rep.cpu_items += cpu_items;
    rep.cpu_ms += ms_between(t0, Clock::now());
  }
  rep.gpu_items = job.gpu_items - std::min(job.gpu_items, job.skipped.size());
  rep.gpu_chunks = job.gpu_chunks;
  rep.copy_in_ms = job.copy_in_ms;
  rep.kernel_ms = job.kernel_ms;
  rep.copy_out_ms = job.copy_out_ms;
  rep.fell_back = job.fell_back;
  rep.devices_used = __builtin_popcount(job.devices_mask);
  if (job.gpu_items > 0 && rep.devices_used > 0) {  // calibrate: host-to-host time per device
    const double dev = rep.devices_used;
    job.model->observe_gpu(job.gpu_work / dev, job.gpu_bytes / dev, ms_between(job.submitted, job.gpu_last));
  }
}

void set_ran_on(BatchReport& rep) {
  rep.ran_on = rep.gpu_items == 0 ? Placement::cpu : rep.cpu_items == 0 ? Placement::gpu : Placement::split;
}

// The whole batch on the CPU, with calibration from batches long enough to keep the pool busy.
void run_cpu(Task& t, Job& job, BatchReport& rep, Clock::time_point t0) {
  const std::size_t workers = std::max<std::size_t>(t.thread_count(), 1);
  cpu_range(t, *job.op, job.v, {0, job.v.n}, job.v.n <= 1 ? 1 : cpu_block_items(job));
  rep.cpu_items = job.v.n;
  rep.cpu_ms = ms_between(t0, Clock::now());
  if (rep.cpu_ms > 0.2 && job.v.n >= workers * 4) {
    const double w = static_cast<double>(workers), n = static_cast<double>(job.v.n);
    const double bytes = static_cast<double>(job.v.in_bytes(0, job.v.n)) + n * static_cast<double>(job.v.out_stride);
    job.model->observe_cpu(job.work_per_item * n / w, bytes / w, rep.cpu_ms);
  }
}

// A staged op's whole batch on the devices: the op drives its own stages through the
// engine; the call's wall time is one device's host-to-host time per device.
void run_staged(Task& t, Engine& engine, Job& job, BatchReport& rep) {
  const auto t0 = Clock::now();
  job.op->gpu_staged(t, engine, job.v.host_chunk({0, job.v.n}));
  const double ms = ms_between(t0, Clock::now());
  const int devices = std::max(engine.devices(), 1);
  const double n = static_cast<double>(job.v.n), d = static_cast<double>(devices);
  const double bytes = static_cast<double>(job.v.in_bytes(0, job.v.n)) + n * static_cast<double>(job.v.out_stride);
  job.model->observe_gpu(job.work_per_item * n / d, bytes / d, ms);
  rep.gpu_items = job.v.n;
  rep.devices_used = devices;
  rep.kernel_ms = ms;
}

}  // namespace

std::string_view placement_name(Placement p) noexcept {
  switch (p) {
    case Placement::gpu: return "gpu";
    case Placement::split: return "split";
    default: return "cpu";
  }
}

// ---- Engine

Engine::Engine(EngineOptions opt) : core_(std::make_shared<detail::EngineCore>()) {
  core_->tuning = detail::tuning_from_env(opt);
  core_->dev = opt.simulated_devices > 0 ? detail::make_simulated_device_side(opt)
                                         : detail::make_device_side(opt, core_->tuning);
}

Engine::~Engine() {
  // Batches in flight keep the core alive (Job::engine); their stream threads stop
  // after the current chunk and leave the rest to the joiners' CPU.
  core_->alive.store(false, std::memory_order_release);
  if (core_->dev) core_->dev->shutdown();
}

Engine& Engine::shared() {
  // Leaked on purpose: destroying CUDA objects from static destructors races the
  // CUDA runtime's own teardown at exit.
  static Engine* e = new Engine();
  return *e;
}

int Engine::devices() const noexcept { return core_->devices(); }
std::size_t Engine::stream_workers() const noexcept { return core_->dev ? core_->dev->workers() : 0; }
CostModel& Engine::cost_model(const BatchOp& op) { return core_->model(op); }

Engine::RawRoundTrip Engine::raw_round_trip(std::size_t bytes, int reps) {
  if (!core_->dev) throw std::runtime_error("tempo::gpu: raw_round_trip needs a CUDA device");
  return core_->dev->raw_round_trip(bytes, reps);
}

BatchReport Engine::run(Task& t, const BatchOp& op, std::initializer_list<Operand> inputs, Output out,
                        RunOptions opt) {
  return run(t, op, std::span<const Operand>(inputs.begin(), inputs.size()), out, opt);
}

BatchReport Engine::run(Task& t, const BatchOp& op, std::span<const Operand> inputs, Output out, RunOptions opt) {
  const auto t0 = Clock::now();
  core_->require_alive("Engine::run");
  auto job = make_job(core_, op, inputs, out);
  BatchReport rep;
  rep.items = job->v.n;
  const Decision d = decide(*core_, *job, t.thread_count(), opt, /*allow_split=*/true);
  rep.reason = d.reason;
  if (d.placement == Placement::cpu) {
    run_cpu(t, *job, rep, t0);
  } else if (staged(op)) {
    run_staged(t, *this, *job, rep);
  } else if (d.placement == Placement::gpu && fits_one_chunk(*core_, *job) && core_->dev->run_direct(*job)) {
    finish_gpu(t, *job, rep);  // a small batch: the caller drove it itself, no hand-off
  } else {
    start_gpu(*core_, *job, job);
    if (d.placement == Placement::split) {
      try {
        cpu_share(t, *job, rep);
      } catch (...) {
        job->fail(std::current_exception());
        t.wait(job->done);  // the devices write `out` until then
        throw;
      }
    }
    t.wait(job->done);  // other tempo work runs here, then the worker sleeps
    finish_gpu(t, *job, rep);
  }
  rep.total_ms = ms_between(t0, Clock::now());
  set_ran_on(rep);
  return rep;
}

Offload Engine::submit(Task& t, const BatchOp& op, std::initializer_list<Operand> inputs, Output out,
                       RunOptions opt) {
  return submit(t, op, std::span<const Operand>(inputs.begin(), inputs.size()), out, opt);
}

Offload Engine::submit(Task& t, const BatchOp& op, std::span<const Operand> inputs, Output out, RunOptions opt) {
  core_->require_alive("Engine::submit");
  auto job = make_job(core_, op, inputs, out);
  const Decision d = decide(*core_, *job, t.thread_count(), opt, /*allow_split=*/false);
  job->reason = d.reason;
  if (d.placement == Placement::cpu) {
    job->deferred_cpu = true;
  } else if (staged(op)) {
    job->deferred_cpu = true;  // nothing runs before join(): see Job::staged_engine
    job->staged_engine = this;
  } else {
    start_gpu(*core_, *job, job);
  }
  Offload o;
  o.job_ = std::move(job);
  return o;
}

Offload Engine::submit(Task& t, std::shared_ptr<const BatchOp> op, std::span<const Operand> inputs, Output out,
                       RunOptions opt) {
  if (!op) throw std::invalid_argument("tempo::gpu::Engine::submit: null op");
  Offload o = submit(t, *op, inputs, out, opt);
  o.job_->owned_op = std::move(op);
  return o;
}

// ---- Offload

Offload::Offload(Offload&&) noexcept = default;
Offload& Offload::operator=(Offload&& o) noexcept {
  if (this != &o) {
    if (job_ && !job_->deferred_cpu && !job_->joined) job_->wait_finished_blocking();
    job_ = std::move(o.job_);
  }
  return *this;
}
Offload::~Offload() {
  // Unjoined: the devices may still be writing `out`; wait (blocking: we have no Task).
  if (job_ && !job_->deferred_cpu && !job_->joined) job_->wait_finished_blocking();
}

bool Offload::ready() const noexcept {
  if (!job_) return false;
  if (job_->deferred_cpu) return true;
  std::lock_guard lock(job_->m);
  return job_->finished;
}

BatchReport Offload::join(Task& t) {
  if (!job_) throw std::logic_error("tempo::gpu::Offload::join: nothing submitted (or already joined)");
  auto job = std::move(job_);
  BatchReport rep;
  rep.items = job->v.n;
  rep.reason = job->reason;
  if (job->staged_engine != nullptr && job->engine->alive.load(std::memory_order_acquire)) {
    run_staged(t, *job->staged_engine, *job, rep);
  } else if (job->deferred_cpu) {
    run_cpu(t, *job, rep, Clock::now());
  } else {
    t.wait(job->done);
    job->joined = true;
    finish_gpu(t, *job, rep);
  }
  rep.total_ms = ms_between(job->submitted, Clock::now());
  set_ran_on(rep);
  return rep;
}

// ---- Pipeline

Pipeline::Pipeline(Engine& engine, std::size_t depth) : engine_(engine), depth_(std::max<std::size_t>(depth, 1)) {}

std::optional<Pipeline::Done> Pipeline::submit(Task& t, const BatchOp& op, std::initializer_list<Operand> inputs,
                                               Output out, std::uint64_t tag, RunOptions opt) {
  std::optional<Done> done;
  if (queue_.size() >= depth_) {
    Entry oldest = std::move(queue_.front());
    queue_.erase(queue_.begin());
    done = Done{oldest.tag, oldest.offload.join(t)};
  }
  queue_.push_back(Entry{tag, engine_.submit(t, op, inputs, out, opt)});
  return done;
}

std::vector<Pipeline::Done> Pipeline::drain(Task& t) {
  std::vector<Done> all;
  while (!queue_.empty()) {
    Entry oldest = std::move(queue_.front());
    queue_.erase(queue_.begin());
    all.push_back(Done{oldest.tag, oldest.offload.join(t)});
  }
  return all;
}

}  // namespace tempo::gpu
