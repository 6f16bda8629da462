// Device-resident constants and batches, and operations over resident batches.
#include <algorithm>
#include <cstring>
#include <string>

#include "engine_core.hpp"
#include "job.hpp"
#include "tempo/gpu/engine.hpp"

namespace tempo::gpu {
namespace detail {

ConstantsState::~ConstantsState() { free_device(); }

void ConstantsState::free_device() noexcept {
  auto core = engine.lock();
  for (std::size_t d = 0; d < device.size(); ++d) {
    // A dead engine has freed its devices' memory with its contexts' use; nothing to do.
    if (device[d] != nullptr && core && core->dev) core->dev->free(static_cast<int>(d), device[d]);
    device[d] = nullptr;
  }
}

ResidentState::~ResidentState() {
  if (dptr == nullptr) return;
  if (auto core = engine.lock(); core && core->dev) core->dev->free(device, dptr);
}

std::shared_ptr<EngineCore> ResidentState::lock_engine(const char* what) const {
  auto core = engine.lock();
  if (!core || !core->alive.load(std::memory_order_acquire))
    throw std::logic_error(std::string("tempo::gpu::DeviceBatch::") + what + ": its engine was shut down");
  return core;
}

}  // namespace detail

// ---- DeviceConstants

DeviceConstants::DeviceConstants(Engine& engine, std::span<const std::uint8_t> bytes)
    : state_(std::make_shared<detail::ConstantsState>()) {
  engine.core_->require_alive("DeviceConstants");
  state_->engine = engine.core_;
  state_->host.assign(bytes.begin(), bytes.end());
  state_->device.assign(static_cast<std::size_t>(std::max(engine.devices(), 0)), nullptr);
}

const void* DeviceConstants::on(const DeviceContext& ctx) const {
  if (!state_) throw std::logic_error("tempo::gpu::DeviceConstants: empty handle");
  std::lock_guard lock(state_->m);
  if (state_->released) throw std::logic_error("tempo::gpu::DeviceConstants used after release()");
  auto core = state_->engine.lock();
  if (!core || !core->alive.load(std::memory_order_acquire) || !core->dev)
    throw std::logic_error("tempo::gpu::DeviceConstants: its engine was shut down");
  const auto d = static_cast<std::size_t>(ctx.device);
  if (d >= state_->device.size()) throw std::logic_error("tempo::gpu::DeviceConstants: no such device");
  if (state_->device[d] == nullptr) {
    void* p = core->dev->alloc(ctx.device, std::max<std::size_t>(state_->host.size(), 1));
    try {
      core->dev->upload(ctx.device, p, state_->host.data(), state_->host.size());
    } catch (...) {
      core->dev->free(ctx.device, p);
      throw;
    }
    state_->device[d] = p;
  }
  return state_->device[d];
}

std::span<const std::uint8_t> DeviceConstants::host() const {
  if (!state_) throw std::logic_error("tempo::gpu::DeviceConstants: empty handle");
  std::lock_guard lock(state_->m);
  if (state_->released) throw std::logic_error("tempo::gpu::DeviceConstants used after release()");
  // SAFETY: the vector is only cleared by release(); a CPU chunk that raced a release
  // reads memory the user declared dead, which release()'s contract forbids.
  return state_->host;
}

std::size_t DeviceConstants::size() const noexcept { return state_ ? state_->host.size() : 0; }

void DeviceConstants::release() noexcept {
  if (!state_) return;
  std::lock_guard lock(state_->m);
  if (state_->released) return;
  state_->released = true;
  state_->free_device();  // cudaFree waits for kernels still reading it
  state_->host.clear();
  state_->host.shrink_to_fit();
}

bool DeviceConstants::released() const noexcept {
  if (!state_) return true;
  std::lock_guard lock(state_->m);
  return state_->released;
}

// ---- DeviceBatch

DeviceBatch::DeviceBatch(Engine& engine, std::size_t count, std::size_t stride, Backend backend)
    : state_(std::make_shared<detail::ResidentState>()) {
  engine.core_->require_alive("DeviceBatch");
  if (stride != 0 && count > (std::size_t{1} << 40) / stride)
    throw std::invalid_argument("tempo::gpu::DeviceBatch: " + std::to_string(count) + " items of " +
                                std::to_string(stride) + " bytes is over the 1 TiB limit");
  auto& s = *state_;
  s.engine = engine.core_;
  s.count = count;
  s.stride = stride;
  const std::size_t bytes = count * stride;
  if (backend == Backend::cuda && !(engine.core_->dev && engine.core_->dev->simulated())) require(Backend::cuda);
  if (backend == Backend::cuda && engine.devices() == 0)
    throw std::runtime_error("tempo::gpu::DeviceBatch: the CUDA backend was requested but this engine drives no device");
  if (backend != Backend::cpu && engine.devices() > 0) {
    const int n = engine.devices();
    s.device = engine.core_->next_device.fetch_add(1, std::memory_order_relaxed) % n;
    try {
      s.dptr = engine.core_->dev->alloc(s.device, std::max<std::size_t>(bytes, 1));
      return;
    } catch (const CudaError& e) {
      if (!e.out_of_memory() || backend == Backend::cuda) throw;
      s.device = -1;  // auto: out of device memory, the batch lives on the host
    }
  }
  s.device = -1;
  s.host.resize(bytes);
}

DeviceBatch DeviceBatch::upload(Engine& engine, std::span<const std::uint8_t> host, std::size_t stride, Backend backend) {
  if (stride == 0 || host.size() % stride != 0)
    throw std::invalid_argument("tempo::gpu::DeviceBatch::upload: " + std::to_string(host.size()) +
                                " bytes are not a whole number of " + std::to_string(stride) + "-byte items");
  DeviceBatch b(engine, host.size() / stride, stride, backend);
  auto& s = *b.state_;
  if (host.empty()) return b;  // nothing to copy (and an empty span's data() may be null)
  if (s.device < 0) std::memcpy(s.host.data(), host.data(), host.size());
  else engine.core_->dev->upload(s.device, s.dptr, host.data(), host.size());
  return b;
}

void DeviceBatch::download(std::span<std::uint8_t> host) const {
  if (!state_) throw std::logic_error("tempo::gpu::DeviceBatch::download: empty handle");
  const auto& s = *state_;
  if (host.size() != s.count * s.stride)
    throw std::invalid_argument("tempo::gpu::DeviceBatch::download: destination holds " + std::to_string(host.size()) +
                                " bytes, the batch " + std::to_string(s.count * s.stride));
  if (s.device < 0) {
    if (!host.empty()) std::memcpy(host.data(), s.host.data(), host.size());
    return;
  }
  auto core = s.lock_engine("download");
  if (!host.empty()) core->dev->download(s.device, host.data(), s.dptr, host.size());
}

std::vector<std::uint8_t> DeviceBatch::download() const {
  std::vector<std::uint8_t> v(count() * stride());
  download(v);
  return v;
}

std::size_t DeviceBatch::count() const noexcept { return state_ ? state_->count : 0; }
std::size_t DeviceBatch::stride() const noexcept { return state_ ? state_->stride : 0; }
bool DeviceBatch::on_device() const noexcept { return state_ && state_->device >= 0; }
int DeviceBatch::device() const noexcept { return state_ ? state_->device : -1; }

// ---- operations over resident batches

BatchReport Engine::run_resident(Task& t, const BatchOp& op, std::initializer_list<const DeviceBatch*> inputs,
                                 DeviceBatch& out) {
  const auto t0 = detail::Clock::now();
  const std::string who = "tempo::gpu::Engine::run_resident: " + op.key() + ": ";
  core_->require_alive("Engine::run_resident");
  if (inputs.size() != op.inputs())
    throw std::invalid_argument(who + "expected " + std::to_string(op.inputs()) + " inputs, got " +
                                std::to_string(inputs.size()));
  if (!out.state_) throw std::invalid_argument(who + "the output batch is empty");
  const auto& o = *out.state_;
  if (o.stride != op.out_stride())
    throw std::invalid_argument(who + "the output's stride is " + std::to_string(o.stride) + ", the op writes " +
                                std::to_string(op.out_stride()));
  Chunk c;
  c.count = o.count;
  c.batch = o.count;
  c.inputs = inputs.size();
  c.out_stride = o.stride;
  std::size_t k = 0;
  for (const DeviceBatch* in : inputs) {
    if (in == nullptr || !in->state_) throw std::invalid_argument(who + "input " + std::to_string(k) + " is empty");
    const auto& s = *in->state_;
    if (s.engine.lock() != core_) throw std::invalid_argument(who + "input " + std::to_string(k) + " belongs to another engine");
    if (s.count != o.count)
      throw std::invalid_argument(who + "input " + std::to_string(k) + " has " + std::to_string(s.count) +
                                  " items, the output " + std::to_string(o.count));
    if (s.device != o.device)
      throw std::invalid_argument(who + "input " + std::to_string(k) + " lives on " +
                                  (s.device < 0 ? std::string("the host") : "device " + std::to_string(s.device)) +
                                  ", the output on " +
                                  (o.device < 0 ? std::string("the host") : "device " + std::to_string(o.device)));
    if (&s == &o && (k != 0 || !op.in_place_ok()))
      throw std::invalid_argument(who + "in place is allowed only over input 0 of an op that runs in place");
    c.in[k].stride = s.stride;
    c.in[k].data = s.device < 0 ? s.host.data() : static_cast<const std::uint8_t*>(s.dptr);
    ++k;
  }
  BatchReport rep;
  rep.items = o.count;
  auto& os = *out.state_;
  c.out = os.device < 0 ? os.host.data() : static_cast<std::uint8_t*>(os.dptr);
  if (o.device < 0) {
    rep.reason = "resident on the host";
    // The host path: the same blocks as a CPU batch.
    if (c.count > 0) {
      const std::size_t block = std::max<std::size_t>(1, c.count / (t.thread_count() * 8));
      const std::size_t blocks = (c.count + block - 1) / block;
      tempo::parallel_for(t, std::size_t{0}, blocks, [&](std::size_t b) {
        Chunk part = c;
        part.begin = b * block;
        part.count = std::min(c.count, part.begin + block) - part.begin;
        for (std::size_t i = 0; i < part.inputs; ++i) part.in[i].data += part.begin * part.in[i].stride;
        part.out += part.begin * part.out_stride;
        op.cpu(part);
      });
    }
    rep.cpu_items = c.count;
    rep.cpu_ms = detail::ms_between(t0, detail::Clock::now());
  } else {
    if (!op.has_cuda() && !core_->dev->simulated())
      throw std::runtime_error(who + "the batch is on a device but the op has no CUDA implementation");
    rep.reason = "resident on device " + std::to_string(o.device);
    if (c.count > 0) {
      Signal done;
      int err = 0;
      core_->dev->launch_resident(o.device, op, c, [&](int e) {
        err = e;  // published to the waiter by done.set()'s release
        done.set();
      });
      t.wait(done);
      if (err != 0) throw CudaError(err, op.key() + " on a resident batch", detail::cuda_error_text(err));
    }
    rep.gpu_items = c.count;
    rep.gpu_chunks = 1;
    rep.devices_used = 1;
  }
  rep.total_ms = detail::ms_between(t0, detail::Clock::now());
  rep.ran_on = o.device < 0 ? Placement::cpu : Placement::gpu;
  return rep;
}

}  // namespace tempo::gpu
