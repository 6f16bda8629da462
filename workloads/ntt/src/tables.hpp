// The precomputed state behind a Plan: twiddles in FIPS 204 order with Shoup companions,
// and the CPU kernel chosen for it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <tempo/ntt/plan.hpp>

#include "arith.hpp"

namespace tempo::ntt::detail {

struct Tables;

// One CPU implementation. a has n coefficients in [0, q); results in [0, q).
struct Kernels {
  const char* name;
  void (*forward)(const Tables&, u64* a);
  void (*inverse)(const Tables&, u64* a);
  // out[i] = a[i]*b[i] mod q; with accumulate, out[i] = (out[i] + a[i]*b[i]) mod q.
  void (*pointwise)(const Tables&, const u64* a, const u64* b, u64* out, bool accumulate);
  // Writes the kernel's own twiddle layout (kfwd/kinv...) into t; nullptr when none.
  void (*prepare)(Tables& t);
  // Largest modulus bound it handles: q < 2^max_q_bits.
  unsigned max_q_bits;
  // forward/inverse with the range check of the checked entry points: false, with `a`
  // untouched, when some a[i] >= q (the caller then names the culprit). A kernel fuses the
  // check with its first pass where it can (the pass that reads `a` anyway).
  bool (*forward_checked)(const Tables&, u64* a);
  bool (*inverse_checked)(const Tables&, u64* a);
};

// The checked forms for kernels without a fused check: a branch-free scan (the baseline one,
// or a wider one of the kernel's own instruction set), then the kernel.
bool any_out_of_range(const u64* a, std::size_t n, u64 q);
bool any_out_of_range(const std::uint32_t* a, std::size_t n, u64 q);
// The 32-bit layout (q < 2^31): std::invalid_argument naming fn and q otherwise.
void check_u32_plan(const char* fn, u64 q);
// One polynomial of 32-bit coefficients through a 64-bit kernel (f: a Kernels forward or
// inverse, checked or not): widened into per-thread scratch, narrowed back. False, with
// a untouched, when f reports a value >= q. The scratch is wiped (values may be secret).
bool via_u64(const Tables& t, std::uint32_t* a, bool (*f)(const Tables&, u64*));
bool forward_any(const Tables& t, u64* a);  // t.kernels->forward, as a checked kernel that never fails
bool inverse_any(const Tables& t, u64* a);
template <void (*F)(const Tables&, u64*), bool (*Scan)(const u64*, std::size_t, u64) = any_out_of_range>
bool scan_then(const Tables& t, u64* a);

struct Tables {
  std::size_t n = 0;
  unsigned log_n = 0;
  u64 q = 0, psi = 0, n_inv = 0;
  // fwd[m] = psi^brv(m) (m = 1..n-1; fwd[0] = 1 unused): FIPS 204's zetas[m] for n = 256.
  std::vector<u64> fwd, fwd_shoup;
  // inv[m] = -fwd[m] mod q: the Gentleman-Sande twiddles, used from m = n-1 down to 1
  // (FIPS 204 Algorithm 42). inv[1] is stored premultiplied by n^-1 (the last stage
  // applies 1/n to both outputs), n_inv_shoup goes with n_inv.
  std::vector<u64> inv, inv_shoup;
  u64 n_inv_shoup = 0;
  Barrett barrett;
  // Layout and Shoup companions (of the kernel's shift) private to the chosen kernel.
  std::vector<u64> kfwd, kfwd_s, kinv, kinv_s;
  std::vector<std::uint32_t> kfwd32, kinv32;  // the 32-bit-word path's layout
  // The kernel's transforms of a uint32 array in place (values < q < 2^31, unchecked), set
  // by its prepare; nullptr: Plan's uint32 forms run the 64-bit kernel on a widened copy.
  // `ahead`: Plan::Prefetch's range, prefetched over the transform's passes.
  void (*forward_u32)(const Tables&, std::uint32_t* a, Plan::Prefetch ahead) = nullptr;
  void (*inverse_u32)(const Tables&, std::uint32_t* a, Plan::Prefetch ahead) = nullptr;
  const Kernels* kernels = nullptr;
  // The device copies of the tables on Engine::shared() (a gpu::DeviceConstants, made on
  // first use; type-erased to keep the gpu headers out of here).
  mutable std::mutex device_mu;
  mutable std::shared_ptr<void> shared_device_tables;
};

template <void (*F)(const Tables&, u64*), bool (*Scan)(const u64*, std::size_t, u64)>
bool scan_then(const Tables& t, u64* a) {
  if (Scan(a, t.n, t.q)) return false;
  F(t, a);
  return true;
}

// Kernel sets; the SIMD ones exist only on x86-64 builds (nullptr otherwise or when
// the CPU lacks the ISA). pick_kernels honours TEMPO_NTT_ISA.
const Kernels& portable_kernels();
// Each returns the CPU-supported sets of that ISA, best first (empty when the CPU or the
// build lacks the ISA).
// The SIMD kernel sets this CPU supports (dispatch.cpp checks the CPU, then calls the
// *_checked functions of the files compiled with the wider instruction sets).
std::vector<const Kernels*> avx2_kernels();
std::vector<const Kernels*> avx512_kernels();
std::vector<const Kernels*> avx2_kernels_checked();
std::vector<const Kernels*> avx512_kernels_checked(bool ifma);
// kernels_avx512_w32.cpp: 16 lanes of 32 bits for q < 2^31, n >= 32; the checked forms
// return false (a untouched) when some a[i] >= q.
bool w32_forward(const Tables& t, u64* a, bool check);
bool w32_inverse(const Tables& t, u64* a, bool check);
void w32_prepare(Tables& t);
// Every set usable here for q (portable last); pick_kernels takes the first that
// TEMPO_NTT_ISA allows (std::invalid_argument for a value it does not accept).
std::vector<const Kernels*> kernels_for(u64 q);
const Kernels& pick_kernels(u64 q);

// Tables for (n, q, psi) driven by the given kernel set (tests compare sets this way).
std::shared_ptr<const Tables> build_tables(std::size_t n, u64 q, u64 psi, const Kernels& k);
void check_params(std::size_t n, u64 q);
u64 minimal_root(std::size_t n, u64 q);

}  // namespace tempo::ntt::detail
