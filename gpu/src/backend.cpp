// The backend contract (TEMPO_BACKEND), CudaError, HostBuffer.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include <tempo/env.hpp>

#include "engine_core.hpp"
#include "tempo/gpu/backend.hpp"
#include "tempo/gpu/engine.hpp"

namespace tempo {

Backend parse_backend(std::string_view name) {
  if (iequals(name, "auto")) return Backend::auto_select;
  if (iequals(name, "cpu")) return Backend::cpu;
  if (iequals(name, "cuda") || iequals(name, "gpu")) return Backend::cuda;
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (expected one of: cpu, cuda, gpu, auto)");
}

std::string_view backend_name(Backend b) noexcept {
  switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    default: return "auto";
  }
}

Backend backend_from_env() {
  static constexpr Backend order[] = {Backend::cpu, Backend::cuda, Backend::cuda, Backend::auto_select};
  const auto i = env_choice("TEMPO_BACKEND", {"cpu", "cuda", "gpu", "auto"});
  return i ? order[*i] : Backend::auto_select;
}

}  // namespace tempo

namespace tempo::gpu {

bool cuda_compiled() noexcept {
#if defined(TEMPO_GPU_HAVE_CUDA)
  return true;
#else
  return false;
#endif
}

int device_count() noexcept { return detail::visible_devices(); }

bool available(Backend b) noexcept { return b != Backend::cuda || (cuda_compiled() && device_count() > 0); }

void require(Backend b) {
  if (b != Backend::cuda) return;
  if (!cuda_compiled())
    throw std::runtime_error("tempo::gpu: the CUDA backend was requested but tempo was built without CUDA");
  if (device_count() == 0)
    throw std::runtime_error("tempo::gpu: the CUDA backend was requested but no CUDA device is visible");
}

CudaError::CudaError(int code, std::string call, std::string text)
    : std::runtime_error(call + ": " + text + " (CUDA error " + std::to_string(code) + ")"),
      code_(code),
      call_(std::move(call)),
      text_(std::move(text)) {}

bool CudaError::out_of_memory() const noexcept { return detail::cuda_error_is_oom(code_); }

int warm_up() { return Engine::shared().devices(); }

// ---- HostBuffer
HostBuffer::HostBuffer(std::size_t bytes) { resize(bytes); }
HostBuffer::HostBuffer(HostBuffer&& o) noexcept
    : data_(o.data_), size_(o.size_), capacity_(o.capacity_), pinned_(o.pinned_) {
  o.data_ = nullptr;
  o.size_ = o.capacity_ = 0;
  o.pinned_ = false;
}
HostBuffer& HostBuffer::operator=(HostBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = o.data_;
    size_ = o.size_;
    capacity_ = o.capacity_;
    pinned_ = o.pinned_;
    o.data_ = nullptr;
    o.size_ = o.capacity_ = 0;
    o.pinned_ = false;
  }
  return *this;
}
HostBuffer::~HostBuffer() { release(); }

void HostBuffer::release() noexcept {
  if (data_ == nullptr) return;
  if (pinned_)
    detail::host_free_pinned(data_);
  else
    std::free(data_);
  data_ = nullptr;
  size_ = capacity_ = 0;
  pinned_ = false;
}

void HostBuffer::resize(std::size_t new_size) {
  if (new_size <= capacity_) {
    size_ = new_size;
    return;
  }
  // Grow geometrically so that a daemon's buffers settle after a few requests.
  const std::size_t cap = std::max(new_size, capacity_ + capacity_ / 2);
  bool pinned = true;
  void* p = detail::host_alloc_pinned(cap);
  if (p == nullptr) {
    pinned = false;
    p = std::malloc(cap);
    if (p == nullptr) throw std::bad_alloc();
  }
  if (size_ > 0) std::memcpy(p, data_, size_);
  release();
  data_ = static_cast<std::uint8_t*>(p);
  capacity_ = cap;
  size_ = new_size;
  pinned_ = pinned;
}

}  // namespace tempo::gpu
