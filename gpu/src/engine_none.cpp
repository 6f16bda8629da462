// The device side when tempo is built without CUDA: no devices, CPU only.
#include <string>

#include "engine_core.hpp"

namespace tempo::gpu::detail {

int visible_devices() noexcept { return 0; }
std::unique_ptr<DeviceSide> make_device_side(const EngineOptions&, const Tuning&) { return nullptr; }
bool is_pinned(const void*, std::size_t) noexcept { return false; }
void* host_alloc_pinned(std::size_t) noexcept { return nullptr; }
void host_free_pinned(void*) noexcept {}
std::string cuda_error_text(int code) { return "CUDA error " + std::to_string(code) + " (built without CUDA)"; }
bool cuda_error_is_oom(int code) noexcept { return code == 2; }  // cudaErrorMemoryAllocation

}  // namespace tempo::gpu::detail
