// Run-time choice of the 4-way permutation, and the public 4-state entry points.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

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

X4Fn select_x4() noexcept {
  // A build without the flags compiles stubs that report false; probe each once.
  std::uint64_t probe[100] = {};
  const bool avx2 = cpu_has_avx2() && permute_x4_interleaved_avx2(probe, 12);
  const bool avx512 = cpu_has_avx512vl() && permute_x4_interleaved_avx512(probe, 12);
  const X4Fn best = avx512 ? &avx512_entry : avx2 ? &avx2_entry : &permute_x4_interleaved_portable;
  // TEMPO_KECCAK_ISA=portable (or avx2) caps the choice, so the other paths can be
  // exercised (tests, benchmarks) on machines that have more. Results are identical.
  const char* forced = std::getenv("TEMPO_KECCAK_ISA");
  if (forced == nullptr || *forced == '\0' || std::strcmp(forced, "auto") == 0) return best;
  if (std::strcmp(forced, "portable") == 0) return &permute_x4_interleaved_portable;
  if (std::strcmp(forced, "avx2") == 0) {
    if (avx2) return &avx2_entry;
    std::fprintf(stderr, "tempo::keccak: TEMPO_KECCAK_ISA=avx2 but this CPU/build has no AVX2; using portable\n");
    return &permute_x4_interleaved_portable;
  }
  if (std::strcmp(forced, "avx512") == 0) {
    if (avx512) return &avx512_entry;
    std::fprintf(stderr, "tempo::keccak: TEMPO_KECCAK_ISA=avx512 but this CPU/build has no AVX-512VL; using %s\n",
                 avx2 ? "avx2" : "portable");
    return best;
  }
  std::fprintf(stderr, "tempo::keccak: ignoring TEMPO_KECCAK_ISA=%s (expected portable, avx2, avx512 or auto)\n",
               forced);
  return best;
}

X4Fn x4_impl() noexcept {
  static const X4Fn fn = select_x4();  // thread-safe one-time choice
  return fn;
}

}  // namespace

void permute_x4_interleaved(std::uint64_t lanes[100], int rounds) noexcept { x4_impl()(lanes, rounds); }

}  // namespace detail

namespace {

void permute_states_x4(std::uint64_t* states[4], int rounds) noexcept {
  alignas(32) std::uint64_t lanes[100];
  for (int i = 0; i < 25; ++i)
    for (int j = 0; j < 4; ++j) lanes[4 * i + j] = states[j][i];
  detail::permute_x4_interleaved(lanes, rounds);
  for (int i = 0; i < 25; ++i)
    for (int j = 0; j < 4; ++j) states[j][i] = lanes[4 * i + j];
}

}  // namespace

void keccak_f1600_x4(std::uint64_t* states[4]) noexcept { permute_states_x4(states, 24); }
void keccak_p1600_12_x4(std::uint64_t* states[4]) noexcept { permute_states_x4(states, 12); }

const char* keccak_backend_name() noexcept {
  const auto fn = detail::x4_impl();
  return fn == &detail::permute_x4_interleaved_portable ? "portable" : fn == &detail::avx2_entry ? "avx2" : "avx512";
}

}  // namespace tempo::keccak
