// The GPU batch path's device stage run on the host: the kernels' per-thread code
// (workloads/faest/src/cuda/faest_device.hpp) over the kernels' launches in their order,
// one thread after another (a launch's threads touch disjoint outputs, so any order within
// a launch is the kernel's result; `reverse` runs them backwards to check that).
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/faest_device.hpp"

namespace faest_test {

inline void emulate_stage(const tempo::faest::dev::Layout& lay, const std::uint8_t* in, std::uint8_t* out,
                          std::size_t count, bool reverse = false,
                          std::vector<std::vector<std::uint8_t>>* snapshots = nullptr) {
  namespace dev = tempo::faest::dev;
  // Poisoned scratch: a stage that read what no earlier stage wrote would show.
  std::vector<std::uint8_t> nodes(count * lay.nodes_bytes(), 0xA5), com(count * lay.com_bytes(), 0xA5),
      rows(count * lay.rows_bytes(), 0xA5), hi(count * lay.hi_bytes(), 0xA5), vole(count * lay.vole_bytes(), 0xA5),
      back(count * lay.back_bytes(), 0xA5);
  const dev::Args a{lay,        count,      in,          out,         nodes.data(), com.data(),
                    rows.data(), hi.data(), vole.data(), back.data()};
  dev::for_each_stage(lay, [&](const dev::Launch& l) {
    const std::uint64_t n = count * l.threads_per_sig();
    for (std::uint64_t q = 0; q < n; ++q) dev::run_launch_thread(a, l, reverse ? n - 1 - q : q);
    if (snapshots != nullptr) {  // the six arrays back to back, as cuda::run_stage_snapshots
      std::vector<std::uint8_t> snap;
      for (const auto* v : {&nodes, &com, &rows, &hi, &vole, &back}) snap.insert(snap.end(), v->begin(), v->end());
      snapshots->push_back(std::move(snap));
    }
  });
}

}  // namespace faest_test
