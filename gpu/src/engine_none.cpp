// The engine when tempo is built without CUDA: no devices, nothing to post to.
#include <stdexcept>

#include "engine.hpp"

namespace tempo::gpu::detail {

int engine_device_count() noexcept { return 0; }
int engine_warm_up() { return 0; }
std::size_t engine_workers() { return 0; }
void engine_post(const std::shared_ptr<Job>&) {
  throw std::runtime_error("tempo::gpu: the CUDA backend was requested but tempo was built without CUDA");
}
bool engine_is_pinned(const void*, std::size_t) noexcept { return false; }
void* engine_host_alloc(std::size_t) noexcept { return nullptr; }
void engine_host_free(void*) noexcept {}
double engine_kernel_only_ms(const SpongeSpec&, std::size_t, std::size_t, int, int, std::size_t,
                             std::vector<std::uint8_t>*, std::vector<std::uint8_t>*) {
  throw std::runtime_error("tempo::gpu: tempo was built without CUDA");
}

}  // namespace tempo::gpu::detail
