// hash_batch and submit: validation, placement, the CPU share, and the join.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "engine.hpp"
#include "job.hpp"
#include "tempo/gpu/cost_model.hpp"
#include "tempo/gpu/gpu.hpp"

namespace tempo::gpu {
namespace {
using detail::Clock;
using detail::Job;
using detail::ms_between;
using detail::Range;
using detail::View;

// Messages longer than this are hashed by the CPU even when the batch goes to the
// GPU: one GPU thread needs ~2 us per Keccak-f, a CPU core ~0.15 us, so a single
// 8 MiB message (62k permutations) would keep a GPU thread busy for ~120 ms.
constexpr std::uint64_t kMaxGpuMessage = 8u << 20;

void validate_out(crypto::Algorithm a, std::size_t n, std::size_t out_bytes, std::span<std::uint8_t> out) {
  const std::string name(crypto::algorithm_name(a));
  if (out_bytes == 0) throw std::invalid_argument("tempo::gpu::hash_batch: out_bytes is 0");
  if (!crypto::is_xof(a) && out_bytes != crypto::fixed_digest_bytes(a))
    throw std::invalid_argument("tempo::gpu::hash_batch: " + name + " produces " +
                                std::to_string(crypto::fixed_digest_bytes(a)) + "-byte digests, not " +
                                std::to_string(out_bytes));
  if (out_bytes > (1u << 30)) throw std::invalid_argument("tempo::gpu::hash_batch: out_bytes over 1 GiB");
  if (n != 0 && out.size() / n != out_bytes)
    throw std::invalid_argument("tempo::gpu::hash_batch: out holds " + std::to_string(out.size()) + " bytes, expected " +
                                std::to_string(n) + " x " + std::to_string(out_bytes));
  if (n == 0 && !out.empty()) throw std::invalid_argument("tempo::gpu::hash_batch: out must be empty for no messages");
  if (n != 0 && out.size() != n * out_bytes)
    throw std::invalid_argument("tempo::gpu::hash_batch: out holds " + std::to_string(out.size()) + " bytes, expected " +
                                std::to_string(n * out_bytes));
}

std::size_t cpu_workers(Task& t) {
  (void)t;
  // The pool's size is not visible from a Task; TEMPO_THREADS or the hardware is
  // what a default pool uses, and the model only needs the order of magnitude.
  static const std::size_t n = [] {
    if (const char* s = std::getenv("TEMPO_THREADS")) {
      const long v = std::atol(s);
      if (v > 0) return static_cast<std::size_t>(v);
    }
    return static_cast<std::size_t>(std::max(1u, std::thread::hardware_concurrency()));
  }();
  return n;
}

// Messages [r.begin, r.end) of `in` as a MessageBatch with its own offsets from 0.
struct SubBatch {
  std::vector<std::uint64_t> offsets;
  crypto::MessageBatch batch;
  SubBatch(const View& in, Range r) : offsets(r.size() + 1) {
    const std::uint64_t base = in.begin(r.begin);
    for (std::size_t i = 0; i <= r.size(); ++i) offsets[i] = in.begin(r.begin + i) - base;
    batch.data = {in.data + base, static_cast<std::size_t>(in.bytes(r.begin, r.end))};
    batch.offsets = offsets;
  }
};

std::span<std::uint8_t> out_of(std::uint8_t* out, std::size_t out_bytes, Range r) {
  return {out + r.begin * out_bytes, r.size() * out_bytes};
}

// The whole range on the CPU workers (tempo tasks).
void cpu_range(Task& t, crypto::Algorithm a, const View& in, std::uint8_t* out, std::size_t out_bytes, Range r) {
  if (r.empty()) return;
  if (!in.fixed() && r.begin == 0 && r.end == in.n) {
    crypto::MessageBatch b{{in.data, static_cast<std::size_t>(in.bytes(0, in.n))}, {in.offsets, in.n + 1}};
    crypto::hash_batch_cpu(t, a, b, out_bytes, out_of(out, out_bytes, r));
    return;
  }
  SubBatch sb(in, r);
  crypto::hash_batch_cpu(t, a, sb.batch, out_bytes, out_of(out, out_bytes, r));
}

double perms_of(const Job& job, double items, double bytes) {
  return detail::estimate_perms(items, bytes, job.spec.rate ? job.spec.rate : 136, job.out_bytes);
}

struct Decision {
  bool gpu = false;
  bool cpu_share = false;
  std::string reason;
};

Decision decide(crypto::Algorithm a, const View& in, std::size_t out_bytes, Backend backend, std::size_t workers,
                bool allow_split) {
  Decision d;
  if (backend == Backend::cuda) require(Backend::cuda);  // fails fast, whatever the batch
  if (in.n == 0) {
    d.reason = "empty batch";
    return d;
  }
  if (backend == Backend::cpu) {
    d.reason = "backend cpu (TEMPO_BACKEND or per-call override)";
    return d;
  }
  if (!gpu_supports(a)) {
    d.reason = "no GPU kernel for " + std::string(crypto::algorithm_name(a)) + ": CPU";
    return d;
  }
  if (in.fixed() && in.msg_len > kMaxGpuMessage) {
    d.reason = "messages over the GPU's 8 MiB per-message limit: CPU";
    return d;
  }
  if (backend == Backend::cuda) {
    d.gpu = true;
    d.reason = "backend cuda (TEMPO_BACKEND or per-call override)";
    return d;
  }
  const int devices = device_count();
  if (devices == 0) {
    d.reason = cuda_compiled() ? "auto: no CUDA device" : "auto: built without CUDA";
    return d;
  }
  const double bytes = static_cast<double>(in.bytes(0, in.n)) + static_cast<double>(in.n) * out_bytes;
  WorkShape w;
  w.items = static_cast<double>(in.n);
  w.bytes = bytes;
  w.perms = detail::estimate_perms(w.items, static_cast<double>(in.bytes(0, in.n)), crypto::rate_bytes(a), out_bytes);
  Estimate e = cost_model().estimate(w, workers, devices);
  // Testing knob: TEMPO_GPU_PLACEMENT=cpu|gpu|split overrides the model's choice in auto
  // mode (the byte-equality tests use it to drive the split path on any batch size).
  if (const char* forced = std::getenv("TEMPO_GPU_PLACEMENT"); forced && *forced) {
    const std::string f = forced;
    if (f == "cpu") e.placement = Placement::cpu;
    else if (f == "gpu") e.placement = Placement::gpu;
    else if (f == "split") e.placement = Placement::split;
    else throw std::invalid_argument("TEMPO_GPU_PLACEMENT='" + f + "' is not cpu, gpu or split");
  }
  if (!allow_split && e.placement == Placement::split) e.placement = Placement::gpu;
  d.gpu = e.placement != Placement::cpu;
  d.cpu_share = e.placement == Placement::split;
  d.reason = e.describe();
  return d;
}

std::shared_ptr<Job> make_job(crypto::Algorithm a, const View& in, std::size_t out_bytes, std::uint8_t* out) {
  auto job = std::make_shared<Job>();
  job->algo = a;
  job->in = in;
  job->out = out;
  job->out_bytes = out_bytes;
  job->front = 0;
  job->back = in.n;
  job->submitted = Clock::now();
  return job;
}

// Fills in the GPU-side fields and posts the job to the engine.
void start_gpu(std::shared_ptr<Job>& job) {
  Job& j = *job;
  j.spec = detail::spec_for(j.algo, j.out_bytes);
  j.max_gpu_len = kMaxGpuMessage;
  const std::size_t in_bytes = static_cast<std::size_t>(j.in.bytes(0, j.in.n));
  // The engine first: it sets the devices' flags before anything creates a context.
  const std::size_t workers = std::max<std::size_t>(detail::engine_workers(), 1);
  j.in_pinned = detail::engine_is_pinned(j.in.data, in_bytes);
  j.out_pinned = detail::engine_is_pinned(j.out, j.in.n * j.out_bytes);
  // Chunks: small enough that copies in, kernels and copies out of several chunks
  // overlap (~4 per stream thread), large enough to amortise ~10 us per operation, and
  // with enough messages per kernel to fill the device when messages are long.
  const double total = static_cast<double>(in_bytes) + static_cast<double>(j.in.n) * j.out_bytes;
  const double avg_in = j.in.n ? static_cast<double>(in_bytes) / static_cast<double>(j.in.n) : 0;
  const double per_item = std::max(1.0, avg_in + static_cast<double>(j.out_bytes));
  double chunk = std::clamp(total / static_cast<double>(workers * 4), double(1 << 20), double(8 << 20));
  const double per_worker_items = std::ceil(static_cast<double>(j.in.n) / static_cast<double>(workers));
  chunk = std::max(chunk, std::min(per_item * std::min(per_worker_items, 2048.0), double(256 << 20)));
  const double items = std::max(1.0, std::floor(chunk / per_item));
  j.chunk_items = static_cast<std::size_t>(std::min(items, double(16 << 20)));
  j.chunk_in = static_cast<std::size_t>(std::max(chunk, 1.0));
  detail::engine_post(job);
}

// The CPU share: blocks claimed from the front until the two sides meet.
void cpu_share(Task& t, Job& job, BatchReport& rep) {
  const auto t0 = Clock::now();
  const double rate = job.spec.rate ? job.spec.rate : 136;
  const double avg_in = job.in.n ? static_cast<double>(job.in.bytes(0, job.in.n)) / static_cast<double>(job.in.n) : 0;
  const double perms_per_item = detail::estimate_perms(1, avg_in, static_cast<std::size_t>(rate), job.out_bytes);
  // ~100 us of one core per block: fine-grained enough to meet the GPU within a block,
  // coarse enough that claiming (a mutex) costs nothing.
  const double item_ms = std::max(1e-6, cost_model().predict_cpu_core_ms(perms_per_item, avg_in + job.out_bytes) -
                                            cost_model().cpu().fixed_ms());
  const std::size_t block_items = static_cast<std::size_t>(std::clamp(0.1 / item_ms, 4.0, 65536.0));
  const std::size_t block_bytes = std::max<std::size_t>(1 << 20, static_cast<std::size_t>(block_items * avg_in));
  const std::size_t tickets = job.in.n / block_items + 2;
  std::atomic<std::size_t> done_items{0};
  tempo::parallel_for(t, std::size_t{0}, tickets, std::size_t{1}, [&](std::size_t) {
    const Range r = job.claim_front(block_bytes, block_items);
    if (r.empty()) return;
    const auto b0 = Clock::now();
    SubBatch sb(job.in, r);
    crypto::hash_batch_cpu_serial(job.algo, sb.batch, job.out_bytes, out_of(job.out, job.out_bytes, r));
    const double ms = ms_between(b0, Clock::now());
    const double bytes = static_cast<double>(sb.batch.data.size());
    cost_model().observe_cpu(perms_of(job, static_cast<double>(r.size()), bytes),
                             bytes + static_cast<double>(r.size() * job.out_bytes), ms);
    done_items.fetch_add(r.size(), std::memory_order_relaxed);
  });
  rep.cpu_items += done_items.load();
  rep.cpu_ms += ms_between(t0, Clock::now());
}

// After the engine threads are done: rethrow, finish what the GPU left, report.
void finish_gpu(Task& t, Job& job, BatchReport& rep) {
  if (job.error) std::rethrow_exception(job.error);
  const auto t0 = Clock::now();
  std::vector<Range> rest = job.leftovers;
  if (job.front < job.back) rest.push_back({job.front, job.back});
  std::size_t cpu_items = 0;
  for (const Range& r : rest) {
    cpu_range(t, job.algo, job.in, job.out, job.out_bytes, r);
    cpu_items += r.size();
  }
  // Messages over the GPU's per-message limit, inside GPU chunks: their slots hold
  // garbage from the D2H copy until now.
  if (!job.skipped.empty()) {
    tempo::parallel_for(t, std::size_t{0}, job.skipped.size(), std::size_t{1}, [&](std::size_t k) {
      const std::size_t i = job.skipped[k];
      const std::uint64_t b = job.in.begin(i), e = job.in.begin(i + 1);
      crypto::hash(job.algo, {job.in.data + b, static_cast<std::size_t>(e - b)},
                   {job.out + i * job.out_bytes, job.out_bytes});
    });
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
  // Calibrate: the devices' host-to-host time for their share, per device.
  if (job.gpu_items > 0 && rep.devices_used > 0) {
    const double dev = rep.devices_used;
    const double in_bytes = job.gpu_bytes - static_cast<double>(job.gpu_items * job.out_bytes);
    cost_model().observe_gpu(perms_of(job, static_cast<double>(job.gpu_items), in_bytes) / dev, job.gpu_bytes / dev,
                             ms_between(job.submitted, job.gpu_last));
  }
}

void set_ran_on(BatchReport& rep) {
  rep.ran_on = rep.gpu_items == 0 ? "cpu" : rep.cpu_items == 0 ? "cuda" : "split";
}

BatchReport run(Task& t, crypto::Algorithm a, const View& in, std::size_t out_bytes, std::span<std::uint8_t> out,
                Backend backend) {
  const auto t0 = Clock::now();
  validate_out(a, in.n, out_bytes, out);
  BatchReport rep;
  rep.items = in.n;
  const std::size_t workers = cpu_workers(t);
  const Decision d = decide(a, in, out_bytes, backend, workers, /*allow_split=*/true);
  rep.reason = d.reason;
  if (!d.gpu) {
    cpu_range(t, a, in, out.data(), out_bytes, {0, in.n});
    rep.cpu_items = in.n;
    rep.cpu_ms = rep.total_ms = ms_between(t0, Clock::now());
    // Calibrate from batches long enough for the pool to be busy (per-core terms).
    if (rep.cpu_ms > 1.0 && in.n >= workers * 4 && gpu_supports(a)) {
      const double w = static_cast<double>(workers);
      const double in_bytes = static_cast<double>(in.bytes(0, in.n));
      const double perms = detail::estimate_perms(static_cast<double>(in.n), in_bytes, crypto::rate_bytes(a), out_bytes);
      cost_model().observe_cpu(perms / w, (in_bytes + static_cast<double>(in.n * out_bytes)) / w, rep.cpu_ms);
    }
    set_ran_on(rep);
    return rep;
  }
  auto job = make_job(a, in, out_bytes, out.data());
  start_gpu(job);
  if (d.cpu_share) {
    try {
      cpu_share(t, *job, rep);
    } catch (...) {
      t.wait(job->done);  // the engine writes `out` until then
      throw;
    }
  }
  t.wait(job->done);  // other tempo work runs here, then the worker sleeps
  finish_gpu(t, *job, rep);
  rep.total_ms = ms_between(t0, Clock::now());
  set_ran_on(rep);
  return rep;
}

View view_of(const crypto::MessageBatch& b) {
  b.validate();
  View v;
  v.data = b.data.data();
  v.offsets = b.offsets.data();
  v.n = b.size();
  return v;
}

View view_of(const FixedBatch& b) {
  b.validate();
  View v;
  v.data = b.data.data();
  v.msg_len = b.msg_len;
  v.n = b.count;
  return v;
}

Offload submit_view(Task& t, crypto::Algorithm a, const View& in, std::size_t out_bytes, std::span<std::uint8_t> out,
                    Backend backend);

}  // namespace

BatchReport hash_batch(Task& t, crypto::Algorithm a, const crypto::MessageBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out, Backend backend) {
  return run(t, a, view_of(batch), out_bytes, out, backend);
}
BatchReport hash_batch(Task& t, crypto::Algorithm a, const crypto::MessageBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out) {
  return run(t, a, view_of(batch), out_bytes, out, backend_from_env());
}
BatchReport hash_batch(Task& t, crypto::Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out, Backend backend) {
  return run(t, a, view_of(batch), out_bytes, out, backend);
}
BatchReport hash_batch(Task& t, crypto::Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                       std::span<std::uint8_t> out) {
  return run(t, a, view_of(batch), out_bytes, out, backend_from_env());
}

// ---- the async form
namespace {
Offload make_offload(std::shared_ptr<Job> job);
}

class OffloadAccess {
 public:
  static Offload make(std::shared_ptr<Job> job) {
    Offload o;
    o.job_ = std::move(job);
    return o;
  }
};

Offload submit(Task& t, crypto::Algorithm a, const crypto::MessageBatch& batch, std::size_t out_bytes,
               std::span<std::uint8_t> out, Backend backend) {
  return submit_view(t, a, view_of(batch), out_bytes, out, backend);
}
Offload submit(Task& t, crypto::Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
               std::span<std::uint8_t> out, Backend backend) {
  return submit_view(t, a, view_of(batch), out_bytes, out, backend);
}

namespace {
Offload submit_view(Task& t, crypto::Algorithm a, const View& in, std::size_t out_bytes, std::span<std::uint8_t> out,
                    Backend backend) {
  validate_out(a, in.n, out_bytes, out);
  const Decision d = decide(a, in, out_bytes, backend, cpu_workers(t), /*allow_split=*/false);
  auto job = make_job(a, in, out_bytes, out.data());
  job->reason = d.reason;
  if (d.gpu) {
    start_gpu(job);
  } else {
    job->deferred_cpu = true;
  }
  return make_offload(std::move(job));
}
Offload make_offload(std::shared_ptr<Job> job) { return OffloadAccess::make(std::move(job)); }
}  // namespace

Offload::Offload(Offload&&) noexcept = default;
Offload& Offload::operator=(Offload&& o) noexcept {
  if (this != &o) {
    if (job_ && !job_->deferred_cpu) job_->wait_finished_blocking();
    job_ = std::move(o.job_);
  }
  return *this;
}
Offload::~Offload() {
  // Unjoined: the engine may still be writing `out`; wait (blocking, we have no Task).
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
  rep.items = job->in.n;
  rep.reason = job->reason;
  if (job->deferred_cpu) {
    cpu_range(t, job->algo, job->in, job->out, job->out_bytes, {0, job->in.n});
    rep.cpu_items = job->in.n;
    rep.cpu_ms = ms_between(job->submitted, Clock::now());
  } else {
    t.wait(job->done);
    job->joined = true;
    finish_gpu(t, *job, rep);
  }
  rep.total_ms = ms_between(job->submitted, Clock::now());
  set_ran_on(rep);
  return rep;
}

}  // namespace tempo::gpu
