// Internal, no stable API: every CPU path (kernel set) this machine can run for a
// modulus, and a Plan bound to any one of them, whatever the automatic pick (and
// TEMPO_NTT_ISA) would be. For tempo's own benchmarks (bench/ntt: one row per path) and
// tests; programs use Plan, which picks the best path itself.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <tempo/ntt/plan.hpp>

namespace tempo::ntt::detail {

// Plan::cpu_path() names of the kernel sets usable for q on this CPU and build, best
// first, "portable" last.
std::vector<std::string_view> cpu_paths(std::uint64_t q);

// The same transform as `plan` (n, q, psi) on the named path, one of cpu_paths(plan.q());
// std::invalid_argument naming the path and listing those otherwise.
Plan with_cpu_path(const Plan& plan, std::string_view path);

}  // namespace tempo::ntt::detail
