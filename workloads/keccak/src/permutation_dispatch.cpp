// Run-time choice of the 4-way permutation, and the public 4-state entry points.
#include <algorithm>
#include <cstdint>

#include <tempo/env.hpp>
#include <tempo/keccak/detail/x4.hpp>
#include <tempo/keccak/permutation.hpp>

namespace tempo::keccak {
namespace detail {

bool cpu_has_avx2() noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();  // safe to call early (e.g. from static initialisers)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

bool cpu_has_avx512vl() noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

namespace {

using X4Fn = void (*)(std::uint64_t*, int) noexcept;

void avx2_entry(std::uint64_t* lanes, int rounds) noexcept {
  permute_x4_interleaved_avx2(lanes, rounds);
}
void avx512_entry(std::uint64_t* lanes, int rounds) noexcept {
  permute_x4_interleaved_avx512(lanes, rounds);
}

// TEMPO_KECCAK_ISA caps the choice (portable < avx2 < avx512 = auto), so the narrower
// paths can be exercised (tests, benchmarks) on machines that have more; a cap above
// what the CPU has means the best it has. Results are identical whichever runs.
X4Fn select_x4() {
  const auto forced = tempo::env_choice("TEMPO_KECCAK_ISA", {"portable", "avx2", "avx512", "auto"});
  const std::size_t cap = forced ? std::min<std::size_t>(*forced, 2) : 2;
  // A build without the flags compiles stubs that report false; probe each once.
  std::uint64_t probe[100] = {};
  if (cap >= 2 && cpu_has_avx512vl() && permute_x4_interleaved_avx512(probe, 12)) return &avx512_entry;
  if (cap >= 1 && cpu_has_avx2() && permute_x4_interleaved_avx2(probe, 12)) return &avx2_entry;
  return &permute_x4_interleaved_portable;
}

// Chosen once per process. A bad TEMPO_KECCAK_ISA throws here, and again at every
// later call (a static whose initialiser threw is initialised anew next time).
X4Fn x4_impl() {
  static const X4Fn fn = select_x4();
  return fn;
}

}  // namespace

void permute_x4_interleaved(std::uint64_t lanes[100], int rounds) { x4_impl()(lanes, rounds); }

void permute_x8_interleaved(std::uint64_t lanes[200], int rounds) {
  if (x4_impl() == &avx512_entry) {  // the same cap and CPU check as the 4-way choice
    permute_x8_interleaved_avx512(lanes, rounds);
    return;
  }
  alignas(32) std::uint64_t half[100];
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 25; ++i)
      for (int j = 0; j < 4; ++j) half[4 * i + j] = lanes[8 * i + 4 * h + j];
    permute_x4_interleaved(half, rounds);
    for (int i = 0; i < 25; ++i)
      for (int j = 0; j < 4; ++j) lanes[8 * i + 4 * h + j] = half[4 * i + j];
  }
}

}  // namespace detail

namespace {

// W separate states through the W-way interleaved permutation (lane i of state j at W * i + j).
template <int W>
void permute_states(std::uint64_t* states[W], int rounds, void (*interleaved)(std::uint64_t*, int)) {
  alignas(64) std::uint64_t lanes[25 * W];
  for (int i = 0; i < 25; ++i)
    for (int j = 0; j < W; ++j) lanes[W * i + j] = states[j][i];
  interleaved(lanes, rounds);
  for (int i = 0; i < 25; ++i)
    for (int j = 0; j < W; ++j) states[j][i] = lanes[W * i + j];
}

}  // namespace

void keccak_f1600_x4(std::uint64_t* states[4]) { permute_states<4>(states, 24, &detail::permute_x4_interleaved); }
void keccak_p1600_12_x4(std::uint64_t* states[4]) { permute_states<4>(states, 12, &detail::permute_x4_interleaved); }
void keccak_f1600_x8(std::uint64_t* states[8]) { permute_states<8>(states, 24, &detail::permute_x8_interleaved); }
void keccak_p1600_12_x8(std::uint64_t* states[8]) { permute_states<8>(states, 12, &detail::permute_x8_interleaved); }

const char* permutation_isa_name() {
  const auto fn = detail::x4_impl();
  return fn == &detail::permute_x4_interleaved_portable ? "portable" : fn == &detail::avx2_entry ? "avx2" : "avx512";
}

}  // namespace tempo::keccak
