// Host-callable launcher of the TFHE bootstrap kernel and the parameters it takes. Plain C++
// (no CUDA types: streams are void*, results are cudaError_t values as int, 0 = success), so
// the host code and the emulation test include it without CUDA. The kernel only enqueues work.
#pragma once

#include <cstddef>
#include <cstdint>

// The helpers below that the device code calls too.
#if defined(__CUDACC__)
#define TEMPO_TFHE_SHARED_HD __host__ __device__
#else
#define TEMPO_TFHE_SHARED_HD
#endif

namespace tempo::tfhe::cuda {

// Bootstraps per block (32-bit words only; 64-bit blocks hold one): up to kNarrowGroup in a
// block of at most 512 threads, or kMaxGroup in a wide block (tfhe_kernels.cu: 768 threads
// at fewer registers). Six N = 1024, L = 3 bootstraps with the tables' copy take 217 KiB of
// shared memory, inside an H100's or H200's 227 KiB.
inline constexpr std::uint32_t kNarrowGroup = 4, kMaxGroup = 6;
// The most keys per blind-rotation step (3^grouping - 1 for grouping <= 2).
inline constexpr std::uint32_t kMaxPatterns = 8;
// The most digit rows (2L) of a multi-bit set with 32-bit words (dev::multiply_coeff32_keys
// holds them in registers; device_params gives larger ones 64-bit words).
inline constexpr std::uint32_t kMaxMultiRows = 8;
// Threads per block of the narrow and the wide kernel (their launch bounds).
inline constexpr std::uint32_t kNarrowThreads = 512, kWideThreads = 128 * kMaxGroup;

// Everything the kernel needs besides the device-resident tables and keys (made on the host
// by detail::device_params from an EvalData; see device_tables.hpp).
struct DeviceParams {
  std::uint32_t N = 0, log_n = 0;          // ring dimension
  std::uint32_t n = 0, log_q = 0;          // LWE dimension, q = 2^log_q
  std::uint32_t log_bg = 0, levels = 0;    // gadget base 2^log_bg, L digits
  std::uint32_t grouping = 1, patterns = 2; // LWE coefficients per blind-rotation step, keys per
                                           // step (Params::grouping, Params::patterns)
  std::uint32_t steps = 0;                 // blind-rotation steps, n / grouping
  std::uint32_t drop = 0;                  // low bits rounded off before the digits
  std::uint32_t log_qks = 0, log_bks = 0, ks_levels = 0;
  std::uint32_t threads = 0;               // threads per block
  std::uint32_t latency_threads = 0;       // threads per block for batches of at most one per SM
  std::uint32_t double_per_sm = 0;         // batches of at most this many items per SM (above one)
                                           // may run double_threads per bootstrap, two to a block
                                           // (doubled_shape; TEMPO_TFHE_GPU_DOUBLE_PER_SM, default 2;
                                           // 0: never)
  std::uint32_t double_threads = 0;        // threads per bootstrap in that shape (device_params)
  std::uint32_t group = 1;                 // bootstraps per block (the launcher's choice, <= kMaxGroup)
  bool stage_key = false;                  // 32-bit keys: each step's key copied into shared memory
                                           // ahead of its use (the launcher's choice)
  std::uint32_t max_group = kMaxGroup;     // caps on the launcher's choices (TEMPO_TFHE_GPU_MAX_GROUP,
  bool allow_stage_key = false;            // TEMPO_TFHE_GPU_STAGE_KEY (off: measured slower); for measuring the shapes)
  bool resident_groups = true;             // TEMPO_TFHE_GPU_RESIDENT_GROUPS (default on): a narrow group
                                           // one smaller or larger where that keeps more bootstraps
                                           // resident per SM (resident_group)
  bool allow_cluster = true;               // TEMPO_TFHE_GPU_CLUSTER: a batch of a few items per 2L SMs
                                           // runs each bootstrap on a cluster of 2L blocks
                                           // (dev::bootstrap_cluster; 32-bit words, 2L <= 8)
  std::uint64_t Q = 0;
  std::uint64_t Q2 = 0;                    // 2 Q
  std::uint64_t Q_neg = 0;                 // 2^64 - Q (its low word: 2^32 - Q); Q2 and Q_neg are
                                           // parameters so that the device code adds them as
                                           // operands instead of forming them from Q
  std::uint64_t mu = 0;                    // Barrett: floor(2^(2k) / Q)
  std::uint64_t mu32 = 0;                  // floor(2^(k+31) / Q) (word32 only)
  std::uint64_t mu_word = 0;               // floor(2^32 / Q) (word32 only)
  std::uint32_t k = 0;                     // bit width of Q
  std::uint64_t n_inv = 0, n_inv_s = 0;    // N^-1 mod Q and its Shoup companion (word width)
  bool key32 = false;                      // bootstrapping key stored as 32-bit words
  bool word32 = false;                     // 32-bit words in shared memory (Q < 2^27, 2L <= 16)
};

// The 32-bit bootstrapping key's layout (EvalData::bk32, read by the CPU and the device):
// step i's P = patterns RGSWs are one run of key_step_words; inside it, per block of
// kKeyBlock coefficients and per row r, the 2P (key t, col) runs of that block's words.
inline constexpr std::uint32_t kKeyBlock = 16;
// Position in a step's run of RGSW(t) row r, column col, coefficient j (2L rows).
inline TEMPO_TFHE_SHARED_HD std::size_t key32_offset(std::uint32_t levels, std::uint32_t patterns, std::uint32_t t,
                                                     std::size_t r, std::uint32_t col, std::size_t j) {
  return (((j / kKeyBlock) * 2 * levels + r) * 2 * patterns + 2 * t + col) * kKeyBlock + j % kKeyBlock;
}

// The exponent e_t of key t's monomial X^e_t - 1 in a blind-rotation step whose LWE
// coefficients, switched to [0, 2N), are a0 and (grouping 2) a1: key t is the pattern whose
// base-3 digits of t + 1 (first coefficient lowest) map 1 -> +1, 2 -> -1, so
// e_t = sum_c (+-a_c or 0) mod 2N (keygen's order; grouping 1: a0, then 2N - a0). The
// coefficients are public (the ciphertext's mask). Values, not an array: on the device an
// array passed by address lives on the stack.
inline TEMPO_TFHE_SHARED_HD std::uint32_t pattern_exponent(std::uint32_t a0, std::uint32_t a1, std::uint32_t grouping,
                                                           std::uint32_t t, std::uint32_t two_n) {
  const auto term = [two_n](std::uint32_t digit, std::uint32_t a) -> std::uint32_t {
    return digit == 1 ? a : digit == 2 ? two_n - a : 0;
  };
  const std::uint32_t d = t + 1;
  return (term(d % 3, a0) + (grouping > 1 ? term(d / 3 % 3, a1) : 0)) & (two_n - 1);
}

// Shared memory of one bootstrap, in words: ACC (2 N words) and the 2L digit rows (2L N).
inline TEMPO_TFHE_SHARED_HD std::size_t item_smem_words(const DeviceParams& p) {
  return (2 + 2 * static_cast<std::size_t>(p.levels)) * p.N;
}
// One blind-rotation step's key in 32-bit words: P keys x 2L rows x 2 columns x N.
inline TEMPO_TFHE_SHARED_HD std::size_t key_step_words(const DeviceParams& p) {
  return 4 * static_cast<std::size_t>(p.patterns) * p.levels * p.N;
}
// One block of kKeyBlock coefficients of a step's key: 2L rows x 2P words each.
inline TEMPO_TFHE_SHARED_HD std::size_t key_block_words(const DeviceParams& p) {
  return 4 * static_cast<std::size_t>(p.patterns) * p.levels * kKeyBlock;
}
// The block's buffer for one step's key, in 32-bit words (dev::key_slot: kKeyBlock words of
// padding per coefficient block).
inline TEMPO_TFHE_SHARED_HD std::size_t key_buffer_words(const DeviceParams& p) {
  return key_step_words(p) + p.N;
}
// The layout of the block's copy of the tables with 32-bit words (dev::SharedTables): forward
// and inverse twiddle pairs, table_pairs(N) each (a pair of padding per 16), the 2 N psi
// powers with kPsiPad words of padding, and the step's exponents, kMaxGroup words.
inline constexpr std::uint32_t kPsiPad = 32;
inline TEMPO_TFHE_SHARED_HD std::uint32_t table_pairs(std::uint32_t N) { return N + N / 16; }
// Its size in 32-bit words; none with 64-bit words.
inline TEMPO_TFHE_SHARED_HD std::size_t table_smem_words(const DeviceParams& p) {
  const std::size_t N = p.N;
  return p.word32 ? 4 * std::size_t{table_pairs(p.N)} + 2 * N + kPsiPad + kMaxGroup : 0;
}
// Shared memory of one block of p.group bootstraps, in bytes: 4-byte words when p.word32,
// else 8; with p.stage_key, the key buffer after them, then the tables' copy.
inline std::size_t block_smem_bytes(const DeviceParams& p) {
  return p.group * item_smem_words(p) * (p.word32 ? 4u : 8u) + (p.stage_key ? key_buffer_words(p) * 4 : 0) +
         table_smem_words(p) * 4;
}

// Whether a batch of 32-bit-word bootstraps runs the doubled shape (p.double_threads per
// bootstrap, two to a block, waves of two per SM): a batch of at most two per SM (one wave),
// or, where TEMPO_TFHE_GPU_DOUBLE_PER_SM raises the cap above its default of 2, of at most
// p.double_per_sm per SM whose last wave of pairs is at least 7/8 full (a wave left partly
// empty costs a whole pair's time). Two waves paid only while the groups below lost
// residency at such sizes: H100, PN10QP27L3, 2026-12-07 (bench_tfhe
// --gpu_batches=462,495,511), two waves of pairs took 15.2-15.3 ms at 495 and 511 gates,
// the groups without resident_group's choice 13.5 and 19.7 ms, with it 13.3-13.5 ms both,
// and ADD-256 (first level 511 gates) 82.4-82.8 ms at the cap 2 against 85.0-87.1 ms at 4.
inline bool doubled_shape(const DeviceParams& p, std::size_t batch, std::size_t sms) {
  const std::size_t wave = 2 * sms, waves = (batch + wave - 1) / wave;
  if (batch > std::size_t{p.double_per_sm} * sms) return false;
  return waves <= 1 || 8 * (batch - (waves - 1) * wave) >= 7 * wave;
}

// The narrow kernel's group after the residency check: of group - 1, group and group + 1 the
// one whose blocks keep the most bootstraps resident on an SM (blocks_below, blocks_at,
// blocks_above: the device's resident blocks per SM for each, from its occupancy query; 0
// where that group is not an option), `group` where it ties. At PN10QP27L3 an SM holds
// three blocks of one (three bootstraps), two of two (four), one of three (three) and one of
// four (four): the engine runs a batch of more than a few items as chunks on several streams
// at once, so the SMs' resident bootstraps, not one chunk's waves, set the rate.
inline std::uint32_t resident_group(std::uint32_t group, int blocks_below, int blocks_at, int blocks_above) {
  const auto held = [](std::uint32_t g, int blocks) {
    return std::size_t{g} * static_cast<std::size_t>(blocks > 0 ? blocks : 0);
  };
  std::uint32_t best = group;
  std::size_t most = held(group, blocks_at);
  if (group >= 2 && held(group - 1, blocks_below) > most) best = group - 1, most = held(group - 1, blocks_below);
  return held(group + 1, blocks_above) > most ? group + 1 : best;
}

// Rank k's coefficients [lo, hi) in a cluster of `ranks` blocks (dev::bootstrap_cluster):
// whole runs of 32, which the rows' swizzle permutes among themselves, so a slice is the
// same words in every row; runs of 32 are whole blocks of the 32-bit key too (kKeyBlock).
struct Slice {
  std::uint32_t lo, hi;
};
inline TEMPO_TFHE_SHARED_HD Slice cluster_slice(std::uint32_t k, std::uint32_t ranks, std::uint32_t N) {
  const std::uint32_t runs = N / 32;
  return {k * runs / ranks * 32, (k + 1) * runs / ranks * 32};
}
// A cluster rank's buffer for its slice of one step's key (32-bit words): the largest
// slice's key blocks, key_slot's layout from the slice's first block (kKeyBlock words of
// padding per block); a step's whole key (key_step_words) need not fit one SM.
inline TEMPO_TFHE_SHARED_HD std::size_t cluster_key_buffer_words(const DeviceParams& p) {
  const std::uint32_t ranks = 2 * p.levels, runs = p.N / 32, most = (runs + ranks - 1) / ranks * 32;
  return most / kKeyBlock * (key_block_words(p) + kKeyBlock);
}
// Shared memory of one cluster rank, in bytes (32-bit words): ACC and the 2L rows, the key
// buffer, the tables' copy.
inline std::size_t cluster_smem_bytes(const DeviceParams& p) {
  return (item_smem_words(p) + cluster_key_buffer_words(p) + table_smem_words(p)) * 4;
}

// A gate's weighted sum of one or two ciphertexts plus a constant:
//   out = w0 x + w1 y + (0, ..., 0, b_offset) mod q   (y is not read when w1 == 0).
struct Combination {
  std::uint32_t w0 = 1, w1 = 0;
  std::uint32_t b_offset = 0;  // offset8 q/8 as a word (detail::offset_word)
};

// Bootstraps `count` LWE ciphertexts: in and out hold (n + 1) uint32 per item (mask, then b),
// input already combined (a gate's weighted sum), output the refreshed ciphertext mod q.
// out may be in (each block reads its item whole before it writes it).
// tables: fwd, fwd_s, inv, inv_s (N each), psi_pow (2N), slot (N), uint64 words (the
// Shoup companions for 32-bit words when p.word32);
// bk: the EvalData's bootstrapping key (bk32 or bk, by p.key32); ks: its key-switching key.
// batch: the items of the whole batch (gpu::Chunk::batch; at least count), which the launch
// shape is chosen for: a batch's chunks share the device.
int bootstrap(const DeviceParams& p, const void* tables, const void* bk, const std::uint16_t* ks,
              const std::uint32_t* in, std::uint32_t* out, std::size_t count, std::size_t batch, void* stream);

// The combination of x and y into out (out may be x), then its bootstrap in place: a gate
// (or, with w0 = 1, w1 = 0 and -q/8, a refresh) on `count` items, all on `stream`.
int gate(const DeviceParams& p, const Combination& lin, const void* tables, const void* bk, const std::uint16_t* ks,
         const std::uint32_t* x, const std::uint32_t* y, std::uint32_t* out, std::size_t count, std::size_t batch,
         void* stream);

// The device's limits for one block, for a clear error before a launch that cannot run.
// Returns a cudaError_t; *smem_optin receives the opt-in shared memory per block in bytes.
int block_limits(int device, std::size_t* smem_optin);

}  // namespace tempo::tfhe::cuda
