// Shared checks of tempo-fanout's fuzz targets: any failure is a crash libFuzzer keeps.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace fuzz {
// The one-line promise: every error message is printable ASCII.
inline void check_message(std::string_view what) {
  for (const char c : what) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) {
      std::fprintf(stderr, "unprintable byte 0x%02x in error message\n", u);
      std::abort();
    }
  }
  if (what.empty()) std::abort();
}
inline void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
  }
}
}  // namespace fuzz
