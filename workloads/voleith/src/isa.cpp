#include <tempo/env.hpp>
#include <tempo/voleith/isa.hpp>

namespace tempo::voleith {

namespace {

bool detect(Isa isa) noexcept {
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
  switch (isa) {
    case Isa::portable: return true;
    case Isa::aesni:
      return __builtin_cpu_supports("aes") && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    case Isa::vaes:
      return detect(Isa::aesni) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vaes");
  }
  return false;
#else
  return isa == Isa::portable;
#endif
}

}  // namespace

bool cpu_has(Isa isa) noexcept {
  static const bool has[3] = {true, detect(Isa::aesni), detect(Isa::vaes)};
  return has[static_cast<std::size_t>(isa)];
}

Isa active_isa(const char* variable) {
  const std::size_t cap = tempo::env_choice(variable, {"portable", "aesni", "vaes"}).value_or(2);
  if (cap >= 2 && cpu_has(Isa::vaes)) return Isa::vaes;
  if (cap >= 1 && cpu_has(Isa::aesni)) return Isa::aesni;
  return Isa::portable;
}

const char* isa_name(Isa isa) noexcept {
  switch (isa) {
    case Isa::portable: return "portable";
    case Isa::aesni: return "aesni";
    case Isa::vaes: return "vaes";
  }
  return "?";
}

}  // namespace tempo::voleith
