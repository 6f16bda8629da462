// Tables for the CUDA bootstrap, derived from the ring's psi (the same root tempo::ntt uses,
// so the device transform equals tempo::ntt::Plan's coefficient for coefficient).
#include "device_tables.hpp"

#include <algorithm>
#include <bit>

#include <tempo/env.hpp>

namespace tempo::tfhe::detail {

namespace {
// Shoup companion floor(w 2^bits / q) for the kernel's word width.
u64 shoup(u64 w, u64 q, unsigned bits) { return static_cast<u64>((static_cast<u128>(w) << bits) / q); }
u64 pow_mod(const Modulus& m, u64 b, u64 e) {
  u64 r = 1;
  for (; e != 0; e >>= 1) {
    if (e & 1) r = m.mul(r, b);
    b = m.mul(b, b);
  }
  return r;
}
unsigned word_bits(const cuda::DeviceParams& dp) { return dp.word32 ? 32u : 64u; }
}  // namespace

cuda::DeviceParams device_params(const EvalData& d) {
  const Params& p = d.params;
  const Modulus& m = d.ring.mod;
  cuda::DeviceParams dp;
  dp.N = static_cast<std::uint32_t>(p.N);
  dp.log_n = static_cast<std::uint32_t>(std::bit_width(p.N) - 1);
  dp.n = static_cast<std::uint32_t>(p.n);
  dp.log_q = p.log_q;
  dp.log_bg = p.log_bg;
  dp.levels = p.levels;
  dp.grouping = p.grouping;
  dp.patterns = p.patterns();
  dp.steps = static_cast<std::uint32_t>(p.steps());
  dp.drop = p.dropped_bits();
  dp.log_qks = p.log_qks;
  dp.log_bks = p.log_bks;
  dp.ks_levels = p.ks_levels;
  dp.Q = p.Q;
  dp.Q2 = 2 * p.Q;
  dp.Q_neg = 0 - p.Q;
  dp.k = m.k;
  dp.mu = static_cast<u64>((static_cast<u128>(1) << (2 * m.k)) / p.Q);
  dp.key32 = !d.bk32.empty();
  // 32-bit words: Q < 2^27 keeps the 2L key products of a coefficient (< 2^54 each) summed
  // below 2^(k+31), the bound of reduce_wide, and the forward passes' growing values below
  // (2 log N + 2) Q <= 32 Q < 2^32 with N <= 2^15; levels log_bg <= 30 keeps dev::digit_at's centered
  // value plus its offset (below 2^max(k, levels log_bg)) inside an int32.
  // Multi-bit steps (grouping 2) with 32-bit words keep each item's digit rows in registers
  // (dev::multiply_coeff32_keys): 2L <= 8; other sets take the 64-bit words.
  dp.word32 = dp.key32 && m.k <= 27 && p.N <= (std::size_t{1} << 15) && 2 * p.levels <= 16 &&
              p.levels * p.log_bg <= 30 && (p.grouping == 1 || 2 * p.levels <= cuda::kMaxMultiRows);
  dp.mu32 = dp.word32 ? (u64{1} << (m.k + 31)) / p.Q : 0;
  dp.mu_word = dp.word32 ? (u64{1} << 32) / p.Q : 0;
  // Threads per bootstrap: with 32-bit words 128 (16 coefficients each per radix pass; the
  // launcher groups up to kMaxGroup bootstraps in a block); with 64-bit words N / 2 up to 512.
  dp.threads = static_cast<std::uint32_t>(dp.word32 ? std::min<std::size_t>(p.N / 8, 128)
                                                    : std::min<std::size_t>(p.N / 2, 512));
  dp.latency_threads = static_cast<std::uint32_t>(std::min<std::size_t>(p.N / 2, 512));
  // Tuning caps on the launcher's shapes (docs/environment.md); the bytes do not depend on them.
  dp.max_group = static_cast<std::uint32_t>(
      tempo::env_integer("TEMPO_TFHE_GPU_MAX_GROUP", 1, cuda::kMaxGroup).value_or(cuda::kMaxGroup));
  dp.allow_stage_key = tempo::env_flag("TEMPO_TFHE_GPU_STAGE_KEY").value_or(false);
  dp.allow_cluster = tempo::env_flag("TEMPO_TFHE_GPU_CLUSTER").value_or(true);
  dp.resident_groups = tempo::env_flag("TEMPO_TFHE_GPU_RESIDENT_GROUPS").value_or(true);
  dp.double_per_sm = static_cast<std::uint32_t>(tempo::env_integer("TEMPO_TFHE_GPU_DOUBLE_PER_SM", 0, 64).value_or(2));
  // That shape's threads per bootstrap: twice dp.threads, or TEMPO_TFHE_GPU_DOUBLE_THREADS
  // for measuring the shape (up to half the wide block, which runs pairs of more than half
  // the narrow one; at PN10QP27L3, 384 give every thread one forward radix group of the 2L
  // digit rows where 256 leave half of them a second).
  dp.double_threads = static_cast<std::uint32_t>(
      tempo::env_integer("TEMPO_TFHE_GPU_DOUBLE_THREADS", 32, cuda::kWideThreads / 2).value_or(2 * dp.threads));
  dp.n_inv = pow_mod(m, p.N, p.Q - 2);
  dp.n_inv_s = shoup(dp.n_inv, p.Q, word_bits(dp));
  return dp;
}

std::vector<std::uint64_t> device_tables(const EvalData& d) {
  const std::size_t N = d.params.N;
  const u64 Q = d.params.Q;
  const unsigned bits = word_bits(device_params(d));
  std::vector<u64> t(7 * N, 0);
  u64* fwd = t.data();
  u64* fwd_s = fwd + N;
  u64* inv = fwd + 2 * N;
  u64* inv_s = fwd + 3 * N;
  for (std::size_t m = 1; m < N; ++m) {
    fwd[m] = d.ring.psi_pow[(d.ring.slot[m] - 1) / 2];  // slot[m] = 2 bitrev(m) + 1
    fwd_s[m] = shoup(fwd[m], Q, bits);
    inv[m] = fwd[m] == 0 ? 0 : Q - fwd[m];
    inv_s[m] = shoup(inv[m], Q, bits);
  }
  std::copy(d.ring.psi_pow.begin(), d.ring.psi_pow.end(), t.begin() + 4 * static_cast<std::ptrdiff_t>(N));
  std::copy(d.ring.slot.begin(), d.ring.slot.end(), t.begin() + 6 * static_cast<std::ptrdiff_t>(N));
  return t;
}

}  // namespace tempo::tfhe::detail
