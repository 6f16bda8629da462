// Bootstrap batches on a backend: the pool (groups of up to 4 sharing key reads) or the GPU
// through tempo::gpu's engine, with the evaluation key resident on each device.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <tempo/gpu/engine.hpp>

#include "device_tables.hpp"
#include "internal.hpp"

namespace tempo::tfhe::detail {

#if defined(TEMPO_TFHE_HAVE_CUDA)
bool cuda_kernels_built() noexcept { return true; }
#else
bool cuda_kernels_built() noexcept { return false; }
#endif

std::size_t gpu_min_batch(std::size_t threads) {
  if (const char* v = std::getenv("TEMPO_TFHE_GPU_MIN_BATCH"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const unsigned long long x = std::strtoull(v, &end, 10);
    if (end == v || *end != '\0' || x == 0)
      throw std::invalid_argument(std::string("tempo::tfhe: TEMPO_TFHE_GPU_MIN_BATCH='") + v +
                                  "' is not a positive integer");
    return static_cast<std::size_t>(x);
  }
  return std::max<std::size_t>(8, threads);
}

namespace {

std::span<const std::uint8_t> bytes_of(const void* p, std::size_t n) {
  return {static_cast<const std::uint8_t*>(p), n};
}

// One evaluation key's device copies on Engine::shared(): the transform tables, the
// bootstrapping key (as stored: 32-bit words when Q < 2^27) and the key-switching key.
// Each is uploaded to a device on that device's first batch and reused by later batches;
// all are freed when the EvalData (the key) is destroyed.
struct DeviceKey {
  cuda::DeviceParams params;
  gpu::DeviceConstants tables, bk, ks;
  DeviceKey(const EvalData& d, gpu::Engine& engine) : params(device_params(d)) {
    const std::vector<u64> t = device_tables(d);
    tables = gpu::DeviceConstants(engine, bytes_of(t.data(), t.size() * sizeof(u64)));
    bk = d.bk32.empty() ? gpu::DeviceConstants(engine, bytes_of(d.bk.data(), d.bk.size() * sizeof(u64)))
                        : gpu::DeviceConstants(engine, bytes_of(d.bk32.data(), d.bk32.size() * 4));
    ks = gpu::DeviceConstants(engine, bytes_of(d.ks.data(), d.ks.size() * sizeof(std::uint16_t)));
  }
  DeviceKey(const DeviceKey&) = delete;
  DeviceKey& operator=(const DeviceKey&) = delete;
  ~DeviceKey() {
    tables.release();
    bk.release();
    ks.release();
  }
};

std::shared_ptr<const DeviceKey> device_key(const EvalData& d) {
  std::lock_guard lock(d.device_mu);
  if (!d.device_state) d.device_state = std::make_shared<const DeviceKey>(d, gpu::Engine::shared());
  return std::static_pointer_cast<const DeviceKey>(d.device_state);
}

// Item layout (input and output): n + 1 little-endian uint32, the mask then b.
class BootstrapOp final : public gpu::BatchOp {
 public:
  BootstrapOp(const EvalData& d, std::shared_ptr<const DeviceKey> key) : d_(d), key_(std::move(key)) {}
  std::string key() const override { return "tfhe-bootstrap/" + std::string(d_.params.name); }
  std::size_t out_stride() const override { return (d_.params.n + 1) * sizeof(std::uint32_t); }
  bool in_place_ok() const override { return true; }
  double work(double) const override { return 1.0; }  // one bootstrap
  gpu::CostPrior prior() const override {
    gpu::CostPrior p;
    // ~5 ms per PN10QP27 bootstrap on one core, scaled by n N; the device ~30k/s (README,
    // Backends). Only used if a caller runs the op under the engine's auto placement.
    p.cpu_per_work = 5.0 * static_cast<double>(d_.params.n * d_.params.N) / (556.0 * 1024.0);
    p.gpu_per_work = 1e3 / 30000;
    return p;
  }
  void cpu(const gpu::Chunk& c) const override {
    const std::size_t n = d_.params.n;
    for (std::size_t first = 0; first < c.count; first += 4) {
      const std::size_t count = std::min<std::size_t>(4, c.count - first);
      std::vector<Lwe> in(count);
      std::vector<Ciphertext> res(count);
      for (std::size_t k = 0; k < count; ++k) {
        const auto* w = reinterpret_cast<const std::uint32_t*>(c.in[0].item(first + k).data());
        in[k].a.assign(w, w + n);
        in[k].b = w[n];
      }
      bootstrap_batch(d_, in, res);
      for (std::size_t k = 0; k < count; ++k) {
        auto* w = reinterpret_cast<std::uint32_t*>(c.out_item(first + k).data());
        std::memcpy(w, res[k].a.data(), n * sizeof(std::uint32_t));
        w[n] = res[k].b;
      }
    }
  }
#if defined(TEMPO_TFHE_HAVE_CUDA)
  bool has_cuda() const override { return true; }
  int cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const override {
    const cuda::DeviceParams& p = key_->params;
    std::size_t optin = 0;
    if (const int e = cuda::block_limits(ctx.device, &optin); e != 0) return e;
    if (cuda::block_smem_bytes(p) > optin)
      throw std::runtime_error("tempo::tfhe: a " + std::string(d_.params.name) + " bootstrap needs " +
                               std::to_string(cuda::block_smem_bytes(p)) + " bytes of shared memory per block, device " +
                               std::to_string(ctx.device) + " allows " + std::to_string(optin));
    return cuda::bootstrap(p, key_->tables.on(ctx), key_->bk.on(ctx),
                           static_cast<const std::uint16_t*>(key_->ks.on(ctx)),
                           reinterpret_cast<const std::uint32_t*>(c.in[0].data),
                           reinterpret_cast<std::uint32_t*>(c.out), c.count, ctx.stream);
  }
#endif

 private:
  const EvalData& d_;
  std::shared_ptr<const DeviceKey> key_;
};

// Groups [lo, hi) of `group` bootstraps, halved by join down to one group per leaf. A group
// takes tens of milliseconds, so a parallel_for (which answers heartbeats between items)
// would keep every group but the first queued until the first finished: the whole batch
// would take two groups' time. Here the right halves are queued forks and the leaves tick
// between blind-rotation steps, so each heartbeat hands the oldest (largest) halves to idle
// workers within one step, and a pool of T threads is busy after about log2(T) heartbeats.
void run_groups(Task& t, const EvalData& d, std::span<const Lwe> in, std::span<Ciphertext> out,
                std::size_t group, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) {
    const std::size_t first = lo * group, last = std::min(in.size(), first + group);
    bootstrap_batch(d, in.subspan(first, last - first), out.subspan(first, last - first), &t);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  // SAFETY: both branches finish before join returns, so the spans they capture by
  // reference outlive them.
  t.join([&](Task& w) { run_groups(w, d, in, out, group, lo, mid); },
         [&](Task& w) { run_groups(w, d, in, out, group, mid, hi); });
}

void run_on_cpu(Task& t, const EvalData& d, std::span<const Lwe> in, std::span<Ciphertext> out) {
  if (in.empty()) return;
  const std::size_t group = group_size(in.size(), t.thread_count());
  run_groups(t, d, in, out, group, 0, (in.size() + group - 1) / group);
}

}  // namespace

void run_bootstraps_on_engine(Task& t, gpu::Engine& engine, const EvalData& d, std::span<const Lwe> in,
                              std::span<Ciphertext> out, const gpu::RunOptions& opt) {
  const Params& p = d.params;
  const std::size_t words = p.n + 1;
  if (out.size() != in.size()) throw std::invalid_argument("tempo::tfhe: bootstrap batch and output differ in length");
  for (const Lwe& x : in)
    if (x.a.size() != p.n) throw std::invalid_argument("tempo::tfhe: bootstrap input has the wrong dimension");
  std::vector<std::uint32_t> buf(in.size() * words);
  tempo::parallel_for(t, std::size_t{0}, in.size(), [&](std::size_t i) {
    std::memcpy(buf.data() + i * words, in[i].a.data(), p.n * sizeof(std::uint32_t));
    buf[i * words + p.n] = in[i].b;
  });
  // Engine::shared() keeps the key's device copies with the key; another engine (tests)
  // gets copies for this batch only.
  const BootstrapOp op(d, &engine == &gpu::Engine::shared() ? device_key(d) : std::make_shared<const DeviceKey>(d, engine));
  const std::span<std::uint8_t> bytes(reinterpret_cast<std::uint8_t*>(buf.data()), buf.size() * sizeof(std::uint32_t));
  engine.run(t, op, {gpu::Operand::fixed(bytes, op.out_stride())}, bytes, opt);
  tempo::parallel_for(t, std::size_t{0}, in.size(), [&](std::size_t i) {
    Ciphertext& c = out[i];
    c.params_id = p.id;
    c.a.assign(buf.data() + i * words, buf.data() + i * words + p.n);
    c.b = buf[i * words + p.n];
  });
}

namespace {
void run_on_gpu(Task& t, const EvalData& d, std::span<const Lwe> in, std::span<Ciphertext> out) {
  gpu::RunOptions opt;
  opt.backend = tempo::Backend::cuda;
  run_bootstraps_on_engine(t, gpu::Engine::shared(), d, in, out, opt);
}

}  // namespace

void run_bootstraps(Task& t, const EvalData& d, std::span<const Lwe> in, std::span<Ciphertext> out, Backend backend) {
  if (out.size() != in.size()) throw std::invalid_argument("tempo::tfhe: bootstrap batch and output differ in length");
  bool gpu_side = false;
  if (backend == Backend::cuda) {
    if (!cuda_kernels_built())
      throw std::runtime_error(
          "tempo::tfhe: backend cuda requested (TEMPO_BACKEND or argument) but this build has no CUDA TFHE "
          "kernels (configure with nvcc found: TEMPO_HAVE_CUDA)");
    try {
      gpu::require(tempo::Backend::cuda);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("tempo::tfhe: backend cuda requested (TEMPO_BACKEND or argument) but ") +
                               e.what());
    }
    gpu_side = true;
  } else if (backend == Backend::auto_) {
    gpu_side = !in.empty() && cuda_kernels_built() && gpu::device_count() > 0 &&
               in.size() >= gpu_min_batch(t.thread_count());
  }
  if (in.empty()) return;
  if (gpu_side)
    run_on_gpu(t, d, in, out);
  else
    run_on_cpu(t, d, in, out);
}

}  // namespace tempo::tfhe::detail
