// tempo::ntt::Plan -- the negacyclic number-theoretic transform over Z_q[X]/(X^n + 1).
//
//   n: a power of two, 16 <= n <= 65536.
//   q: a prime, q = 1 (mod 2n), q < 2^62 (the lazy butterflies keep values below 4q < 2^64).
//   psi: a primitive 2n-th root of unity mod q (psi^n = -1). Plan(n, q) picks the smallest
//        one (as Intel HEXL does), so Plan(256, 8380417) has psi = 1753, FIPS 204's zeta.
//
// Order. forward() is FIPS 204 Algorithm 41 for any (n, q, psi): Cooley-Tukey, natural-order
// input, output in bit-reversed order: out[i] = a(psi^(2*brv(i) + 1)), brv = log2(n)-bit
// reversal. inverse() takes that order back to natural order and includes the 1/n factor
// (FIPS 204 Algorithm 42), so inverse(forward(a)) == a. Pointwise products of two forward
// outputs are the transform of the negacyclic product (multiply() does exactly that).
//
// Ranges. Every output is fully reduced to [0, q), whatever path (portable, AVX2, AVX-512,
// CUDA) ran, so all paths are byte-identical.
//
// Checked entry points: forward, inverse, pointwise, pointwise_add, multiply (and the batch
// functions) throw std::invalid_argument when a span has the wrong length or a coefficient
// is >= q, naming the index and the value. The *_unchecked members skip the value scan
// (lengths are still checked); out-of-range inputs give unspecified (but memory-safe) output.
//
// Constant time: no branch or memory index depends on coefficient values (conditional
// subtractions are masks), so secret polynomials (ML-DSA) may go through it. The value
// check of the checked entry points reports the first bad index, so only use those on
// secrets that are in range (they then take no data-dependent branch either).
//
// A Plan is immutable after construction; copies share the tables (cheap), and one Plan
// may be used from any number of threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

namespace tempo::ntt {

namespace detail {
struct Tables;
struct PlanAccess;  // plan.cpp: a Plan over given tables (detail/cpu_paths.hpp)
}

class Plan {
 public:
  // Smallest primitive 2n-th root. std::invalid_argument naming the bad parameter.
  Plan(std::size_t n, std::uint64_t q);
  // A given root: psi^n must be q - 1 (std::invalid_argument otherwise).
  Plan(std::size_t n, std::uint64_t q, std::uint64_t psi);

  // "MLDSA":    n = 256,  q = 8380417 = 2^23 - 2^13 + 1, psi = 1753 (FIPS 204, section 7.5).
  // "PN10QP27": n = 1024, q = 134215681 = 0x7fff801 = 2^27 - 2^11 + 1.
  // "PN11QP54": n = 2048, q = 18014398509404161 = 0x3ffffffffed001.
  // "PN12QP60", "PN14QP60": n = 4096 / 16384, q = 1152921504606584833 = 0xffffffffffc0001.
  // See workloads/ntt/README.md for why these primes. Case-insensitive ("mldsa" works);
  // an unknown name: std::invalid_argument listing the presets.
  static Plan preset(std::string_view name);

  std::size_t n() const noexcept;
  unsigned log_n() const noexcept;
  std::uint64_t q() const noexcept;
  std::uint64_t psi() const noexcept;    // the primitive 2n-th root used
  std::uint64_t n_inv() const noexcept;  // n^-1 mod q

  void forward(std::span<std::uint64_t> a) const;  // in place, see "Order" above
  void inverse(std::span<std::uint64_t> a) const;  // in place, includes 1/n
  void forward_unchecked(std::span<std::uint64_t> a) const;
  void inverse_unchecked(std::span<std::uint64_t> a) const;
  // The same on 32-bit coefficients (the uint32 layout, tempo/ntt/batch.hpp), for plans
  // with q < 2^31; a larger q is a std::invalid_argument. Same values as the uint64 forms.
  void forward(std::span<std::uint32_t> a) const;
  void inverse(std::span<std::uint32_t> a) const;
  void forward_unchecked(std::span<std::uint32_t> a) const;
  void inverse_unchecked(std::span<std::uint32_t> a) const;

  // Memory for a transform to pull into the core's L2 cache while it computes, spread
  // evenly over its passes, so that a caller who reads a large array right after the
  // transform overlaps that memory traffic with the arithmetic (TFHE's blind rotation
  // streams its key this way). Only a hint: the bytes are never read into values, the range
  // must be memory the caller may read, and kernels without the feature ignore it (the
  // 32-bit-word AVX-512 kernel honours it).
  struct Prefetch {
    const void* data = nullptr;
    std::size_t bytes = 0;
  };
  void forward_unchecked(std::span<std::uint32_t> a, Prefetch ahead) const;
  void inverse_unchecked(std::span<std::uint32_t> a, Prefetch ahead) const;

  // Coefficient-wise, in the transform domain: out[i] = a[i]*b[i] mod q (out may alias a or b).
  void pointwise(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                 std::span<std::uint64_t> out) const;
  // acc[i] = (acc[i] + a[i]*b[i]) mod q; acc must be in [0, q) too.
  void pointwise_add(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                     std::span<std::uint64_t> acc) const;

  // Which CPU kernel runs: "portable", "avx2", "avx2-q30" (q < 2^30), "avx512-w32" (16
  // lanes of 32 bits, q < 2^31), "avx512ifma" (q < 2^50), "avx512" (q < 2^61) or
  // "avx512-q62" (workloads/ntt/README.md, "CPU paths").
  // Picked from the CPU and q when the Plan is made; TEMPO_NTT_ISA (portable, avx2, avx512
  // or auto, case-insensitive) caps it; for any other value the constructors throw
  // std::invalid_argument naming the variable and the accepted values.
  std::string_view cpu_path() const noexcept;

  // Internal tables (twiddles with their Shoup companions); used by the batch and GPU code.
  const detail::Tables& tables() const noexcept { return *tables_; }

 private:
  friend struct detail::PlanAccess;
  explicit Plan(std::shared_ptr<const detail::Tables> tables) : tables_(std::move(tables)) {}

  std::shared_ptr<const detail::Tables> tables_;
};

// out = a * b mod (X^n + 1, q), inputs in [0, q) (checked). out may alias a or b.
void multiply(const Plan& plan, std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
              std::span<std::uint64_t> out);

}  // namespace tempo::ntt
