// AVX-512 kernel sets (this file alone is compiled with -mavx512f -mavx512dq -mavx512ifma;
// chosen at run time). IFMA needs q < 2^50, the 32-bit-word path q < 2^31.
#include <immintrin.h>

#include <cstddef>
#include <new>

#include <unistd.h>

#include "simd_ntt.hpp"

// GCC 12 warns inside its own avx512fintrin.h (_mm512_undefined_epi32) where the kernels
// are inlined at -O1 (the sanitizer builds): a false positive.
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tempo::ntt::detail {
namespace avx512 {
#include "ops_avx512.inc"
}  // namespace avx512
namespace {

// The checked entry points' scratch (simd_ntt.hpp's forward_into / inverse_into with
// Check): one per thread (the pool transforms on many threads at once), grown to the
// largest n seen, 64-byte aligned so that its vector loads and stores split no cache line.
// Zero between calls: the kernels' last pass zeroes it as it reads it.
u64* scratch(std::size_t n) {
  struct Buffer {
    u64* p = nullptr;
    std::size_t n = 0;
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { ::operator delete[](p, std::align_val_t{64}); }
  };
  thread_local Buffer b;
  if (b.n < n) {
    ::operator delete[](b.p, std::align_val_t{64});
    b.p = nullptr;  // stays valid if the allocation throws
    b.n = 0;
    b.p = static_cast<u64*>(::operator new[](n * sizeof(u64), std::align_val_t{64}));
    b.n = n;
  }
  return b.p;
}

// This core's L1 data cache in bytes (32 KiB where the system does not say).
std::size_t l1d_bytes() {
  static const std::size_t bytes = [] {
#if defined(_SC_LEVEL1_DCACHE_SIZE)
    const long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
    if (v > 0) return static_cast<std::size_t>(v);
#endif
    return std::size_t{32} << 10;
  }();
  return bytes;
}

// The checked forms, both leaving a rejected input untouched. Where a, the scratch and the
// twiddles with their companions (4 n words) fit the L1 data cache, the first pass checks
// while it moves a into the scratch (Into: simd::forward_into or inverse_into with Check;
// the scratch then holds that pass's output, wiped), which costs no pass of its own. Above
// that the scratch evicts the twiddles, so a scan comes first and the transform runs in
// place; below it the scan costs more than the scratch (measured: workloads/ntt/README.md,
// "Performance").
template <class V>
bool vector_scan(const u64* a, std::size_t n, u64 q) {  // scan_then's scan in V's lanes
  return simd::any_at_least_q<V>(a, n, V::set1(q));
}
template <class V, bool (*Into)(const Tables&, u64*, u64*), void (*InPlace)(const Tables&, u64*)>
bool checked(const Tables& t, u64* a) {
  if (4 * t.n * sizeof(u64) > l1d_bytes()) return scan_then<InPlace, vector_scan<V>>(t, a);
  u64* s = scratch(t.n);
  if (Into(t, a, s)) return true;
  wipe(s, t.n);
  return false;
}

template <int S, bool Approx = false>
Kernels make(const char* name, unsigned bits) {
  using V = avx512::Ops512<S, Approx>;
  return Kernels{name,
                 simd::forward<V>,
                 simd::inverse<V>,
                 simd::pointwise<V>,
                 simd::prepare<V>,
                 bits,
                 checked<V, simd::forward_into<V, true>, simd::forward<V>>,
                 checked<V, simd::inverse_into<V, true>, simd::inverse<V>>};
}

// The 32-bit-word path (kernels_avx512_w32.cpp) for n >= 32; n = 16 (one register) takes
// the portable loops, which read only the common tables.
void w32_fwd(const Tables& t, u64* a) {
  if (t.n < 32) return portable_kernels().forward(t, a);
  w32_forward(t, a, false);
}
void w32_inv(const Tables& t, u64* a) {
  if (t.n < 32) return portable_kernels().inverse(t, a);
  w32_inverse(t, a, false);
}
bool w32_fwd_checked(const Tables& t, u64* a) {
  if (t.n < 32) return scan_then<w32_fwd>(t, a);
  return w32_forward(t, a, true);
}
bool w32_inv_checked(const Tables& t, u64* a) {
  if (t.n < 32) return scan_then<w32_inv>(t, a);
  return w32_inverse(t, a, true);
}

}  // namespace

// Called only after dispatch.cpp (compiled without AVX-512) checked the CPU: code here may
// use AVX-512 anywhere, static initialisers included, so nothing runs before that check.
std::vector<const Kernels*> avx512_kernels_checked(bool ifma) {
  // 64-bit products: the three-product quotient up to q < 2^61, the exact one above.
  static const Kernels k64 = make<64, true>("avx512", 61);
  static const Kernels k64exact = make<64>("avx512-q62", 62);
  static const Kernels k52 = make<52>("avx512ifma", 50);
  // Pointwise products stay on 64-bit lanes (the operands are uint64 in memory).
  static const Kernels k32{"avx512-w32", w32_fwd, w32_inv, simd::pointwise<avx512::Ops512<32>>, w32_prepare, 31,
                           w32_fwd_checked, w32_inv_checked};
  std::vector<const Kernels*> v{&k32};
  if (ifma) v.push_back(&k52);
  v.push_back(&k64);
  v.push_back(&k64exact);
  return v;
}

}  // namespace tempo::ntt::detail
