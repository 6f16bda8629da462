// What the CUDA kernels need from a Plan: the table bytes to upload once per device and
// the launch parameters. Plain C++ (built with or without CUDA; the emulation test uses it).
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/ntt_kernels.hpp"
#include "tables.hpp"

namespace tempo::ntt::detail {

// q < 2^30: the kernels compute in 32-bit words (Shoup companions with 2^32).
inline bool device_word32(u64 q) { return q < (u64{1} << 30); }

cuda::Params device_params(const Tables& t);
// fwd, fwd_s, inv, inv_s: n words each (4 bytes when device_word32, else 8), in the
// CPU portable order (inv[1] carries 1/n).
std::vector<std::uint8_t> device_table_bytes(const Tables& t);

}  // namespace tempo::ntt::detail
