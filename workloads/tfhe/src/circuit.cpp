// Circuit construction (with constant folding of zeros), pruning, levels and evaluation.
#include <algorithm>
#include <array>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tempo/secure_zero.hpp>

#include "internal.hpp"

namespace tempo::tfhe {

namespace {
constexpr Circuit::Ref kIndex = ~Circuit::kNeg;
bool is_zero(Circuit::Ref r) { return r == Circuit::kZero; }
}  // namespace

Circuit::Ref Circuit::input() {
  if (inputs_ != nodes_.size()) throw std::logic_error("tempo::tfhe::Circuit: inputs must come before gates");
  nodes_.push_back(Node{0, 0, {0, 0, 0}});
  return static_cast<Ref>(inputs_++);
}

Circuit::Ref Circuit::gate(Gate g, Ref x, Ref y) {
  nodes_.push_back(Node{1, static_cast<std::uint8_t>(g), {x, y, 0}});
  return static_cast<Ref>(nodes_.size() - 1);
}

Circuit::Ref Circuit::gate3(Gate3 g, Ref x, Ref y, Ref z) {
  nodes_.push_back(Node{2, static_cast<std::uint8_t>(g), {x, y, z}});
  return static_cast<Ref>(nodes_.size() - 1);
}

std::size_t Circuit::gate_count() const noexcept { return nodes_.size() - inputs_; }

namespace {
unsigned arity(std::uint8_t kind) { return kind == 1 ? 2u : kind == 2 ? 3u : 0u; }
}  // namespace

void Circuit::prune() {
  std::vector<char> live(nodes_.size(), 0);
  for (Ref r : outputs_)
    if (!is_zero(r)) live[r & kIndex] = 1;
  for (std::size_t i = nodes_.size(); i-- > inputs_;)
    if (live[i])
      for (unsigned k = 0; k < arity(nodes_[i].kind); ++k) live[nodes_[i].in[k] & kIndex] = 1;
  std::vector<Ref> remap(nodes_.size(), 0);
  std::vector<Node> kept;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (i < inputs_ || live[i]) {
      Node nd = nodes_[i];
      for (unsigned k = 0; k < arity(nd.kind); ++k) nd.in[k] = remap[nd.in[k] & kIndex] | (nd.in[k] & kNeg);
      remap[i] = static_cast<Ref>(kept.size());
      kept.push_back(nd);
    }
  }
  for (Ref& r : outputs_)
    if (!is_zero(r)) r = remap[r & kIndex] | (r & kNeg);
  nodes_ = std::move(kept);
}

std::vector<std::vector<std::uint32_t>> Circuit::levels() const {
  std::vector<std::uint32_t> lv(nodes_.size(), 0);
  std::vector<std::vector<std::uint32_t>> out;
  for (std::size_t i = inputs_; i < nodes_.size(); ++i) {
    std::uint32_t l = 0;
    for (unsigned k = 0; k < arity(nodes_[i].kind); ++k) l = std::max(l, lv[nodes_[i].in[k] & kIndex]);
    lv[i] = l + 1;
    if (out.size() < l + 1) out.resize(l + 1);
    out[l].push_back(static_cast<std::uint32_t>(i));
  }
  return out;
}

std::size_t Circuit::depth() const { return levels().size(); }

std::vector<bool> Circuit::eval_plain(const std::vector<bool>& in) const {
  if (in.size() != inputs_) throw std::invalid_argument("tempo::tfhe::Circuit::eval_plain: wrong input count");
  std::vector<bool> v(nodes_.size());
  for (std::size_t i = 0; i < inputs_; ++i) v[i] = in[i];
  auto get = [&](Ref r) { return is_zero(r) ? false : (v[r & kIndex] != ((r & kNeg) != 0)); };
  for (std::size_t i = inputs_; i < nodes_.size(); ++i) {
    const Node& nd = nodes_[i];
    v[i] = nd.kind == 1 ? gate_plain(static_cast<Gate>(nd.op), get(nd.in[0]), get(nd.in[1]))
                        : gate3_plain(static_cast<Gate3>(nd.op), get(nd.in[0]), get(nd.in[1]), get(nd.in[2]));
  }
  std::vector<bool> out;
  for (Ref r : outputs_) out.push_back(get(r));
  return out;
}

std::vector<Ciphertext> Circuit::eval(Task& t, const EvaluationKey& ek, std::span<const Ciphertext> in,
                                      gpu::RunOptions opt) const {
  if (in.size() != inputs_) throw std::invalid_argument("tempo::tfhe::Circuit::eval: wrong input count");
  const detail::EvalData& d = ek.data();
  std::vector<Ciphertext> v(nodes_.size());
  for (std::size_t i = 0; i < inputs_; ++i) v[i] = in[i];
  auto get = [&](Ref r) -> Ciphertext {
    const Ciphertext& c = v[r & kIndex];
    return (r & kNeg) ? eval_not(c) : c;
  };
  // One batch per level: the level's gates combine their inputs (on the pool), then all
  // their bootstraps run as one eval_bootstraps batch. Each sum carries an extra +q/8 that
  // the refresh's -q/8 takes back, so the batch bootstraps exactly the gate's sum.
  for (const auto& level : levels()) {
    std::vector<Ciphertext> sums(level.size());
    tempo::parallel_for(t, std::size_t{0}, level.size(), [&](std::size_t k) {
      const Node& nd = nodes_[level[k]];
      const unsigned na = arity(nd.kind);
      Ciphertext ins[3];
      const Ciphertext* ptr[3];
      for (unsigned j = 0; j < na; ++j) { ins[j] = get(nd.in[j]); ptr[j] = &ins[j]; }
      detail::Linear lin = nd.kind == 1 ? detail::linear_of(static_cast<Gate>(nd.op))
                                        : detail::linear_of(static_cast<Gate3>(nd.op));
      lin.offset8 -= detail::kRefresh.offset8;
      detail::Lwe sum = detail::combine(d, lin, ptr, na);
      sums[k] = Ciphertext{d.params.id, std::move(sum.a), sum.b};
    });
    std::vector<Ciphertext> res(sums.size());
    eval_bootstraps(t, ek, sums, res, opt);
    for (std::size_t k = 0; k < level.size(); ++k) v[level[k]] = std::move(res[k]);
  }
  std::vector<Ciphertext> out;
  out.reserve(outputs_.size());
  for (Ref r : outputs_) {
    if (is_zero(r)) {  // trivial noiseless encryption of 0
      Ciphertext z;
      z.params_id = d.params.id;
      z.a.assign(d.params.n, 0);
      out.push_back(std::move(z));
    } else {
      out.push_back(get(r));
    }
  }
  return out;
}

// Builders that fold the constant zero, so no gate ever sees a constant input.
struct CircuitBuilder {
  Circuit& c;
  using Ref = Circuit::Ref;
  Ref and_(Ref x, Ref y) { return is_zero(x) || is_zero(y) ? Circuit::kZero : c.gate(Gate::and_, x, y); }
  Ref xor_(Ref x, Ref y) {
    if (is_zero(x)) return y;
    if (is_zero(y)) return x;
    return c.gate(Gate::xor_, x, y);
  }
  // (G, P) o (G', P'): G | (P & G'), G and P never both 1.
  Ref carry(Ref g, Ref p, Ref g2) {
    if (is_zero(g2) || is_zero(p)) return g;
    if (is_zero(g)) return and_(p, g2);
    return c.gate3(Gate3::carry, g, p, g2);
  }
  // Sum of two rows (missing bits are kZero) mod 2^bits; appends the outputs.
  void add_rows(const std::vector<Ref>& a, const std::vector<Ref>& b) {
    const std::size_t n = a.size();
    std::vector<Ref> g(n), p(n);
    for (std::size_t i = 0; i < n; ++i) {
      g[i] = and_(a[i], b[i]);
      p[i] = xor_(a[i], b[i]);
    }
    std::vector<Ref> G = g, P = p;
    for (std::size_t l = 0; (std::size_t{1} << l) < n; ++l) {
      std::vector<Ref> G2 = G, P2 = P;
      for (std::size_t i = 0; i < n; ++i) {
        if (((i >> l) & 1u) == 0) continue;
        const std::size_t j = ((i >> l) << l) - 1;
        G2[i] = carry(G[i], P[i], G[j]);
        P2[i] = and_(P[i], P[j]);
      }
      G = std::move(G2);
      P = std::move(P2);
    }
    for (std::size_t i = 0; i < n; ++i) c.output(i == 0 ? p[0] : xor_(p[i], G[i - 1]));
  }
};

Circuit Circuit::adder(std::size_t bits) {
  if (bits == 0) throw std::invalid_argument("tempo::tfhe::Circuit::adder: bits must be at least 1");
  Circuit c;
  std::vector<Ref> a(bits), b(bits);
  for (auto& r : a) r = c.input();
  for (auto& r : b) r = c.input();
  CircuitBuilder{c}.add_rows(a, b);
  c.prune();
  return c;
}

Circuit Circuit::multiplier(std::size_t bits) {
  if (bits == 0) throw std::invalid_argument("tempo::tfhe::Circuit::multiplier: bits must be at least 1");
  Circuit c;
  CircuitBuilder cb{c};
  std::vector<Ref> x(bits), y(bits);
  for (auto& r : x) r = c.input();
  for (auto& r : y) r = c.input();
  std::vector<std::vector<Ref>> col(bits);
  for (std::size_t i = 0; i < bits; ++i)
    for (std::size_t j = 0; i + j < bits; ++j) col[i + j].push_back(cb.and_(x[i], y[j]));
  // Dadda reduction: stage j brings every column down to d_j (2, 3, 4, 6, 9, 13, ...), counting
  // the carries this stage sends into it, so each stage is one gate level deep. Full adders
  // (majority + parity) and, where one bit too many remains, half adders (and + xor).
  std::vector<std::size_t> targets{2};
  std::size_t tallest = 0;
  for (const auto& cl : col) tallest = std::max(tallest, cl.size());
  while (targets.back() < tallest) targets.push_back(targets.back() * 3 / 2);
  targets.pop_back();
  for (std::size_t ti = targets.size(); ti-- > 0;) {
    const std::size_t d = targets[ti];
    std::vector<std::vector<Ref>> next(bits);
    for (std::size_t k = 0; k < bits; ++k) {
      const auto& cl = col[k];
      std::size_t h = cl.size() + next[k].size(), t = 0;
      const bool up = k + 1 < bits;
      while (h > d) {
        if (h - d >= 2 && t + 3 <= cl.size()) {
          next[k].push_back(c.gate3(Gate3::parity, cl[t], cl[t + 1], cl[t + 2]));
          if (up) next[k + 1].push_back(c.gate3(Gate3::majority, cl[t], cl[t + 1], cl[t + 2]));
          t += 3;
          h -= 2;
        } else if (t + 2 <= cl.size()) {
          next[k].push_back(c.gate(Gate::xor_, cl[t], cl[t + 1]));
          if (up) next[k + 1].push_back(c.gate(Gate::and_, cl[t], cl[t + 1]));
          t += 2;
          h -= 1;
        } else {
          break;
        }
      }
      for (; t < cl.size(); ++t) next[k].push_back(cl[t]);
    }
    col = std::move(next);
  }
  std::vector<Ref> a(bits, kZero), b(bits, kZero);
  for (std::size_t k = 0; k < bits; ++k) {
    if (!col[k].empty()) a[k] = col[k][0];
    if (col[k].size() > 1) b[k] = col[k][1];
  }
  cb.add_rows(a, b);
  c.prune();
  return c;
}

EncryptedUint encrypt_uint(const SecretKey& sk, std::span<const std::uint64_t> value, std::size_t bits) {
  const detail::OsSeed seed;
  return encrypt_uint_deterministic(sk, value, bits, seed.bytes());
}

EncryptedUint encrypt_uint_deterministic(const SecretKey& sk, std::span<const std::uint64_t> value,
                                         std::size_t bits, std::span<const std::uint8_t> seed) {
  detail::check_seed(seed);
  EncryptedUint r;
  r.bits.reserve(bits);
  detail::Xof x("encrypt-uint", seed);
  std::array<std::uint8_t, 32> sub{};
  for (std::size_t i = 0; i < bits; ++i) {
    for (auto& s : sub) s = x.byte();
    const std::size_t limb = i / 64;
    const bool bit = limb < value.size() && ((value[limb] >> (i % 64)) & 1u);
    r.bits.push_back(encrypt_bit_deterministic(sk, bit, sub));
  }
  tempo::secure_zero(sub.data(), sub.size());
  return r;
}

std::vector<std::uint64_t> decrypt_uint(const SecretKey& sk, const EncryptedUint& x) {
  std::vector<std::uint64_t> v((x.bits.size() + 63) / 64, 0);
  for (std::size_t i = 0; i < x.bits.size(); ++i)
    if (decrypt_bit(sk, x.bits[i])) v[i / 64] |= std::uint64_t{1} << (i % 64);
  return v;
}

namespace {
const Circuit& cached(bool multiply, std::size_t bits, Circuit& local) {
  if (bits == 256) {
    static std::once_flag fa, fm;
    static Circuit ca, cm;
    if (multiply) std::call_once(fm, [] { cm = Circuit::multiplier(256); });
    else std::call_once(fa, [] { ca = Circuit::adder(256); });
    return multiply ? cm : ca;
  }
  local = multiply ? Circuit::multiplier(bits) : Circuit::adder(bits);
  return local;
}

EncryptedUint run(Task& t, const EvaluationKey& ek, const EncryptedUint& x, const EncryptedUint& y,
                  const gpu::RunOptions& opt, bool multiply) {
  if (x.bits.size() != y.bits.size() || x.bits.empty())
    throw std::invalid_argument("tempo::tfhe: encrypted operands must have the same, nonzero width (" +
                                std::to_string(x.bits.size()) + " vs " + std::to_string(y.bits.size()) + ")");
  Circuit local;
  const Circuit& c = cached(multiply, x.bits.size(), local);
  std::vector<Ciphertext> in;
  in.reserve(2 * x.bits.size());
  in.insert(in.end(), x.bits.begin(), x.bits.end());
  in.insert(in.end(), y.bits.begin(), y.bits.end());
  return EncryptedUint{c.eval(t, ek, in, opt)};
}
}  // namespace

EncryptedUint add(Task& t, const EvaluationKey& ek, const EncryptedUint& x, const EncryptedUint& y,
                  gpu::RunOptions opt) {
  return run(t, ek, x, y, opt, false);
}

EncryptedUint mul(Task& t, const EvaluationKey& ek, const EncryptedUint& x, const EncryptedUint& y,
                  gpu::RunOptions opt) {
  return run(t, ek, x, y, opt, true);
}

}  // namespace tempo::tfhe
