// libFuzzer target: the binary request parsers (apps/fanout/wire.cpp), differential:
// the parallel fast path for uniform lengths must agree with the general parser
// whenever it accepts, and decline nothing the general parser finds uniform.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fuzz_util.hpp"
#include "wire.hpp"

namespace {
tempo::ThreadPool& pool() {
  static tempo::ThreadPool p(tempo::Options{.threads = 2});
  return p;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tempo::fanout::Request slow, fast;
  slow.data.resize(size + 1);
  if (size > 0) std::memcpy(slow.data.data(), data, size);
  bool slow_ok = true;
  try {
    tempo::fanout::parse_binary_in_place(slow, size);
  } catch (const tempo::fanout::WireError& e) {
    fuzz::check_message(e.what());
    slow_ok = false;
  }
  const bool fast_ok =
      pool().run([&](tempo::Task& t) { return tempo::fanout::parse_binary_uniform(t, data, size, fast); });
  if (fast_ok) {
    fuzz::require(slow_ok, "fast path accepted what the parser rejects");
    fuzz::require(fast.n == slow.n && fast.out_bytes == slow.out_bytes && slow.uniform &&
                      fast.uniform_len == slow.uniform_len && fast.data_size == slow.data_size,
                  "fast path agrees on the shape");
    fuzz::require(fast.data_size == 0 || std::memcmp(fast.data.data(), slow.data.data(), fast.data_size) == 0,
                  "fast path agrees on the bytes");
  } else if (slow_ok) {
    fuzz::require(slow.n == 0 || !slow.uniform, "fast path declined a uniform request");
  }
  if (slow_ok) {
    fuzz::require(slow.data_size + 8 + 4 * slow.n == size, "every byte accounted for");
    if (!slow.uniform)
      fuzz::require(slow.offsets.size() == slow.n + 1 && slow.offsets.back() == slow.data_size, "offsets");
  }
  return 0;
}
