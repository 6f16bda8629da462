// Gates: a weighted sum of the inputs plus a constant, then one bootstrap.
#include <algorithm>
#include <stdexcept>
#include <string>

#include <tempo/env.hpp>

#include "internal.hpp"

namespace tempo::tfhe {

namespace detail {

// Inputs encode m*q/4. The combination must put the phase in [0, q/2) exactly when the
// output is 1, with q/8 of margin on each side (XOR-like gates double the inputs and get
// q/4). Offsets in units of q/8 (README "Gates" has the table of phases).
Linear linear_of(Gate g) noexcept {
  switch (g) {
    case Gate::and_: return {{1, 1, 0}, -3};
    case Gate::or_: return {{1, 1, 0}, -1};
    case Gate::xor_: return {{2, 2, 0}, -2};
    case Gate::nand: return {{1, 1, 0}, 1};
    case Gate::nor: return {{1, 1, 0}, 3};
    case Gate::xnor: return {{2, 2, 0}, 2};
  }
  return {{0, 0, 0}, 0};
}

Linear linear_of(Gate3 g) noexcept {
  switch (g) {
    case Gate3::majority: return {{1, 1, 1}, -3};
    case Gate3::parity: return {{2, 2, 2}, -2};
    case Gate3::carry: return {{2, 1, 1}, -3};
  }
  return {{0, 0, 0}, 0};
}

Lwe combine(const EvalData& ek, const Linear& lin, const Ciphertext* const* in, unsigned count) {
  const Params& p = ek.params;
  for (unsigned k = 0; k < count; ++k) {
    check_same_params(p, in[k]->params_id, "gate input");
    if (in[k]->a.size() != p.n) throw std::invalid_argument("tempo::tfhe: gate input has the wrong dimension");
  }
  const std::uint32_t mask = p.q() - 1;
  Lwe r;
  r.a.assign(p.n, 0);
  std::uint32_t b = offset_word(lin, p);
  for (unsigned k = 0; k < count; ++k) {
    const std::uint32_t wk = static_cast<std::uint32_t>(lin.w[k]);
    for (std::size_t t = 0; t < p.n; ++t) r.a[t] += wk * in[k]->a[t];
    b += wk * in[k]->b;
  }
  for (auto& v : r.a) v &= mask;
  r.b = b & mask;
  return r;
}

std::size_t cpu_group_max() {
  return static_cast<std::size_t>(tempo::env_integer("TEMPO_TFHE_CPU_GROUP", 1, 16).value_or(4));
}

std::size_t group_size(std::size_t count, std::size_t threads) {
  const std::size_t per_thread = count / (threads == 0 ? 1 : threads);
  return std::clamp<std::size_t>(per_thread, 1, cpu_group_max());
}

}  // namespace detail

namespace {
// A single gate on the calling thread (batch.hpp says why not on a device); the bootstrap
// ticks, so the pool can hand out the caller's queued work meanwhile.
Ciphertext eval_linear(Task& t, const EvaluationKey& ek, const detail::Linear& lin, const Ciphertext* const* in,
                       unsigned count) {
  const detail::EvalData& d = ek.data();
  const detail::Lwe x = detail::combine(d, lin, in, count);
  Ciphertext out;
  detail::bootstrap_batch(d, std::span<const detail::Lwe>(&x, 1), std::span<Ciphertext>(&out, 1), &t);
  return out;
}
}  // namespace

std::string_view gate_name(Gate g) noexcept {
  switch (g) {
    case Gate::and_: return "and";
    case Gate::or_: return "or";
    case Gate::xor_: return "xor";
    case Gate::nand: return "nand";
    case Gate::nor: return "nor";
    case Gate::xnor: return "xnor";
  }
  return "?";
}

Gate parse_gate(std::string_view name) {
  const std::string_view key = name.ends_with('_') ? name.substr(0, name.size() - 1) : name;
  for (Gate g : {Gate::and_, Gate::or_, Gate::xor_, Gate::nand, Gate::nor, Gate::xnor})
    if (tempo::iequals(key, gate_name(g))) return g;
  throw std::invalid_argument("unknown gate '" + std::string(name) + "' (expected one of: and, or, xor, nand, nor, xnor)");
}

bool gate_plain(Gate g, bool x, bool y) noexcept {
  switch (g) {
    case Gate::and_: return x && y;
    case Gate::or_: return x || y;
    case Gate::xor_: return x != y;
    case Gate::nand: return !(x && y);
    case Gate::nor: return !(x || y);
    case Gate::xnor: return x == y;
  }
  return false;
}

bool gate3_plain(Gate3 g, bool x, bool y, bool z) noexcept {
  switch (g) {
    case Gate3::majority: return (int(x) + int(y) + int(z)) >= 2;
    case Gate3::parity: return (x != y) != z;
    case Gate3::carry: return x || (y && z);
  }
  return false;
}

Ciphertext eval_gate(Task& t, const EvaluationKey& ek, Gate g, const Ciphertext& x, const Ciphertext& y) {
  const Ciphertext* in[2] = {&x, &y};
  return eval_linear(t, ek, detail::linear_of(g), in, 2);
}

Ciphertext eval_gate3(Task& t, const EvaluationKey& ek, Gate3 g, const Ciphertext& x, const Ciphertext& y,
                      const Ciphertext& z) {
  const Ciphertext* in[3] = {&x, &y, &z};
  return eval_linear(t, ek, detail::linear_of(g), in, 3);
}

Ciphertext eval_not(const Ciphertext& x) {
  const Params* p = detail::params_by_id(x.params_id);
  if (p == nullptr) throw std::invalid_argument("tempo::tfhe::eval_not: unknown parameter set id");
  const std::uint32_t mask = p->q() - 1;
  Ciphertext r;
  r.params_id = x.params_id;
  r.a.resize(x.a.size());
  for (std::size_t t = 0; t < x.a.size(); ++t) r.a[t] = (0u - x.a[t]) & mask;
  r.b = ((1u << (p->log_q - 2)) - x.b) & mask;
  return r;
}

Ciphertext eval_bootstrap(Task& t, const EvaluationKey& ek, const Ciphertext& c) {
  const Ciphertext* in[1] = {&c};
  return eval_linear(t, ek, detail::kRefresh, in, 1);
}

std::vector<std::uint32_t> key_switch(const EvaluationKey& ek, std::span<const std::uint32_t> a_N,
                                      std::uint32_t b) {
  const detail::EvalData& d = ek.data();
  if (a_N.size() != d.params.N)
    throw std::invalid_argument("tempo::tfhe::key_switch: input must have N = " + std::to_string(d.params.N) +
                                " coefficients");
  for (std::size_t i = 0; i < a_N.size(); ++i)
    if (a_N[i] >= d.params.qks())
      throw std::invalid_argument("tempo::tfhe::key_switch: coefficient " + std::to_string(i) + " = " +
                                  std::to_string(a_N[i]) + " is not below Q_ks");
  return detail::key_switch_raw(d, a_N, b & (d.params.qks() - 1));
}

}  // namespace tempo::tfhe
