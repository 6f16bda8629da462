// The GPU grinding's shared least counter: the lanes of one signature try counters
// r, r + lanes, ... and race to lower one word holding the least accepted counter so far,
// so the result is the serial search's first hit. On the device a volatile load (a lane
// stops once its counter passes the least hit) and atomicMin; the host emulation runs the
// lanes one after another. Compiled for the device and the host, like aes_planes.hpp.
#pragma once

#include <type_traits>

#include <tempo/voleith/detail/aes_planes.hpp>

namespace tempo::voleith::dev {

template <class T>
TEMPO_VOLEITH_HD T least_counter(const T* p) {
  static_assert(std::is_same_v<T, u32> || std::is_same_v<T, u64>, "a u32 or u64 counter");
#if defined(__CUDA_ARCH__)
  return *static_cast<const volatile T*>(p);
#else
  return *p;
#endif
}

template <class T>
TEMPO_VOLEITH_HD void offer_counter(T* p, T ctr) {
  static_assert(std::is_same_v<T, u32> || std::is_same_v<T, u64>, "a u32 or u64 counter");
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, u32>) atomicMin(p, ctr);
  else atomicMin(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(ctr));
#else
  if (ctr < *p) *p = ctr;
#endif
}

}  // namespace tempo::voleith::dev
