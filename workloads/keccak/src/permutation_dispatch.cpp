// Run-time choice of the 4-way permutation, and the public 4-state entry points.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <tempo/crypto/detail/x4.hpp>
#include <tempo/crypto/permutation.hpp>

namespace tempo::crypto {
namespace detail {

bool cpu_has_avx2() noexcept {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();  // safe to call early (e.g. from static initialisers)
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

namespace {

using X4Fn = void (*)(std::uint64_t*, int) noexcept;

void avx2_entry(std::uint64_t* lanes, int rounds) noexcept {
  permute_x4_interleaved_avx2(lanes, rounds);
}

X4Fn select_x4() noexcept {
  // A build without AVX2 support compiles a stub that reports false; probe it once.
  std::uint64_t probe[100] = {};
  const bool avx2 = cpu_has_avx2() && permute_x4_interleaved_avx2(probe, 12);
  // TEMPO_CRYPTO_BACKEND=portable forces the portable path, so the fallback can be
  // exercised (tests, benchmarks) on machines that do have AVX2. Results are identical.
  const char* forced = std::getenv("TEMPO_CRYPTO_BACKEND");
  if (forced != nullptr && *forced != '\0') {
    if (std::strcmp(forced, "portable") == 0) return &permute_x4_interleaved_portable;
    if (std::strcmp(forced, "avx2") == 0 && !avx2)
      std::fprintf(stderr, "tempo::crypto: TEMPO_CRYPTO_BACKEND=avx2 but this CPU/build has no AVX2; using portable\n");
    else if (std::strcmp(forced, "avx2") != 0 && std::strcmp(forced, "auto") != 0)
      std::fprintf(stderr, "tempo::crypto: ignoring TEMPO_CRYPTO_BACKEND=%s (expected portable, avx2 or auto)\n", forced);
  }
  return avx2 ? &avx2_entry : &permute_x4_interleaved_portable;
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
  return detail::x4_impl() == &detail::permute_x4_interleaved_portable ? "portable" : "avx2";
}

}  // namespace tempo::crypto
