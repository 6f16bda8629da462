// gpu::detail::HostBufferPool: which kept buffer a request gets, the keep limit, and that
// unpinned buffers (no CUDA or no device: HostBuffer falls back to malloc) are not kept.
#include <cstdint>
#include <utility>

#include <catch2/catch.hpp>

#include <tempo/gpu/detail/host_buffer_pool.hpp>

using tempo::gpu::HostBuffer;
using tempo::gpu::detail::HostBufferPool;

TEST_CASE("host buffer pool: sizes, reuse and the keep limit", "[pool]") {
  HostBufferPool pool(2);
  HostBuffer small = pool.take(1000);
  HostBuffer large = pool.take(100000);
  CHECK(small.size() == 1000);
  CHECK(large.size() == 100000);
  if (!small.pinned() || !large.pinned()) {
    // Ordinary memory: nothing is kept, every take is a fresh buffer of the right size.
    pool.give_back(std::move(small));
    HostBuffer again = pool.take(10);
    CHECK(again.size() == 10);
    CHECK(again.capacity() < 1000);
    return;
  }
  const std::uint8_t* small_at = small.data();
  pool.give_back(std::move(small));
  pool.give_back(std::move(large));
  // The smallest kept buffer that fits.
  HostBuffer a = pool.take(500);
  CHECK(a.data() == small_at);
  CHECK(a.size() == 500);
  // None fits: the largest grows.
  HostBuffer b = pool.take(1u << 20);
  CHECK(b.size() == (1u << 20));
  CHECK(b.capacity() >= (1u << 20));
  // At most two stay.
  pool.give_back(std::move(a));
  pool.give_back(std::move(b));
  pool.give_back(HostBuffer(64));
  HostBuffer c = pool.take(1), d = pool.take(1), e = pool.take(1);
  CHECK(c.size() == 1);
  CHECK(d.size() == 1);
  CHECK(e.size() == 1);
  CHECK(c.data() != d.data());
}
