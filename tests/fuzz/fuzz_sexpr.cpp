// libFuzzer target: the S-expression request parser (apps/fanout/wire.cpp).
// Accepts or throws WireError with a printable message; an accepted request is
// self-consistent and formats back into a result of the expected size.
// format_mismatch() on the same bytes gives a printable line or nothing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_util.hpp"
#include "wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The wrong-format advice (either way) is a printable line or nothing.
  for (const bool binary : {false, true}) {
    const std::string advice = tempo::fanout::format_mismatch(data, size, binary, !binary);
    if (!advice.empty()) fuzz::check_message(advice);
  }
  tempo::fanout::Request r;
  try {
    tempo::fanout::parse_sexpr(std::string_view(reinterpret_cast<const char*>(data), size), r);
  } catch (const tempo::fanout::WireError& e) {
    fuzz::check_message(e.what());
    return 0;
  }
  fuzz::require(r.out_bytes >= 1 && r.out_bytes <= tempo::fanout::kMaxOutputBytes, "out_bytes in range");
  fuzz::require(r.data_size <= size / 2, "decoded size at most half the text");
  if (r.uniform) {
    fuzz::require(r.data_size == r.n * r.uniform_len, "uniform size");
  } else {
    fuzz::require(r.offsets.size() == r.n + 1 && r.offsets.front() == 0 && r.offsets.back() == r.data_size,
                  "offsets frame the data");
    for (std::size_t i = 0; i < r.n; ++i) fuzz::require(r.offsets[i] <= r.offsets[i + 1], "offsets grow");
  }
  // Formatting a small result: the streamed layout's size arithmetic.
  if (r.n * r.out_bytes <= (1u << 16)) {
    std::vector<std::uint8_t> digests(r.n * r.out_bytes, 0xab);
    const std::string head = tempo::fanout::sexpr_head(r.n, r.out_bytes);
    const std::string tail = tempo::fanout::sexpr_tail({});
    const std::string all = tempo::fanout::format_sexpr(r.n, r.out_bytes, digests, {});
    fuzz::require(all.size() == head.size() + r.n * tempo::fanout::sexpr_entry_size(r.out_bytes) + tail.size(),
                  "result size");
  }
  return 0;
}
