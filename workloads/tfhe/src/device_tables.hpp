// What the CUDA bootstrap needs from an EvalData: its launch parameters and the table words
// (twiddles with Shoup companions, psi powers, slots) to upload once per device. Plain C++,
// built with or without CUDA (the emulation test uses it to drive tfhe_device.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "cuda/tfhe_kernels.hpp"
#include "internal.hpp"

namespace tempo::tfhe::detail {

// Threads per block: N/8 up to 128 with 32-bit words (Q < 2^27), else N/2 up to 512 (the
// kernel's launch bounds).
cuda::DeviceParams device_params(const EvalData& d);
// fwd, fwd_s, inv, inv_s (N each), psi_pow (2N), slot (N): the layout of dev::Tables; the
// Shoup companions are for the kernel's word width (2^32 when word32, else 2^64).
std::vector<std::uint64_t> device_tables(const EvalData& d);

}  // namespace tempo::tfhe::detail
