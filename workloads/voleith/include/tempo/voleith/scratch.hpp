// Per-thread reusable buffers for one signature's big arrays (the GGM tree, leaf seeds and
// commitments, VOLE rows): no page faults and no zeroing per call. A thread holds a few sets
// of buffers, so a worker that runs a fork of the same signature (or another signature) while
// it waits at a join takes the next free set; past that depth a Scratch gets private heap
// buffers. Slots marked secret are wiped when the Scratch goes out of scope.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tempo::voleith {

class Scratch {
 public:
  static constexpr unsigned slots = 6;
  Scratch();
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  // n bytes of slot `slot`; the contents are unspecified (the previous user's, wiped if secret).
  std::uint8_t* get(unsigned slot, std::size_t n, bool secret);
  // The same, zeroed.
  std::uint8_t* get_zeroed(unsigned slot, std::size_t n, bool secret);

  struct Buffers {
    std::vector<std::uint8_t> v[slots];
    std::size_t used[slots] = {};
    bool secret[slots] = {};
    bool busy = false;
  };

 private:
  Buffers* b_;
  Buffers own_;
};

}  // namespace tempo::voleith
