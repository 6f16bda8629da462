// Picks the CPU kernel set per modulus size, best first; TEMPO_NTT_ISA caps it.
#include <algorithm>
#include <string_view>

#include <tempo/env.hpp>

#include "tables.hpp"

namespace tempo::ntt::detail {

#if defined(TEMPO_NTT_HAVE_X86)
// The CPU checks live here, in a file built for baseline x86-64: the kernel files are
// compiled with -mavx2 / -mavx512*, so any of their code may use those instructions.
std::vector<const Kernels*> avx2_kernels() {
  if (!__builtin_cpu_supports("avx2")) return {};
  return avx2_kernels_checked();
}
std::vector<const Kernels*> avx512_kernels() {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq")) return {};
  return avx512_kernels_checked(__builtin_cpu_supports("avx512ifma") != 0);
}
#else
std::vector<const Kernels*> avx2_kernels() { return {}; }
std::vector<const Kernels*> avx512_kernels() { return {}; }
#endif

std::vector<const Kernels*> kernels_for(u64 q) {
  std::vector<const Kernels*> out;
  for (auto* list : {&avx512_kernels, &avx2_kernels})
    for (const Kernels* k : (*list)())
      if (q < (u64{1} << k->max_q_bits)) out.push_back(k);
  out.push_back(&portable_kernels());
  return out;
}

const Kernels& pick_kernels(u64 q) {
  // Read at each Plan construction (cheap next to the tables), so a bad value is an
  // error where a Plan is made. portable < avx2 < avx512 = auto.
  const auto forced = tempo::env_choice("TEMPO_NTT_ISA", {"portable", "avx2", "avx512", "auto"});
  const int cap = forced ? static_cast<int>(std::min<std::size_t>(*forced, 2)) : 2;
  for (const Kernels* k : kernels_for(q)) {
    const std::string_view name = k->name;
    const int level = name.starts_with("avx512") ? 2 : name.starts_with("avx2") ? 1 : 0;
    if (level <= cap) return *k;
  }
  return portable_kernels();
}

}  // namespace tempo::ntt::detail
