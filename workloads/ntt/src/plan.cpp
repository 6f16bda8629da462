// Plan construction (parameter checks, root of unity, tables), presets, checked entry points.
#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tempo/env.hpp>
#include <tempo/ntt/detail/cpu_paths.hpp>
#include <tempo/ntt/plan.hpp>

#include "tables.hpp"

namespace tempo::ntt {
namespace detail {

bool is_prime(u64 n) {
  if (n < 2) return false;
  static constexpr u64 bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (u64 p : bases)
    if (n % p == 0) return n == p;
  u64 d = n - 1;
  unsigned s = 0;
  while ((d & 1) == 0) d >>= 1, ++s;
  for (u64 a : bases) {
    u64 x = pow_mod(a, d, n);
    if (x == 1 || x == n - 1) continue;
    bool composite = true;
    for (unsigned i = 1; i < s && composite; ++i) {
      x = mul_mod_slow(x, x, n);
      if (x == n - 1) composite = false;
    }
    if (composite) return false;
  }
  return true;
}

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("tempo::ntt::Plan: " + what); }

std::size_t bit_reverse(std::size_t x, unsigned bits) {
  std::size_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((x >> i) & 1) << (bits - 1 - i);
  return r;
}

}  // namespace

void check_params(std::size_t n, u64 q) {
  if (n < 16 || n > 65536 || (n & (n - 1)) != 0)
    bad("n = " + std::to_string(n) + " must be a power of two in [16, 65536]");
  if (q >= (u64{1} << 62)) bad("q = " + std::to_string(q) + " must be below 2^62");
  if (q % (2 * n) != 1)
    bad("q = " + std::to_string(q) + " must be 1 mod 2n = " + std::to_string(2 * n) + " (no 2n-th root of unity)");
  if (!is_prime(q)) bad("q = " + std::to_string(q) + " is not prime");
}

// The smallest primitive 2n-th root of unity: take any (g^((q-1)/2n) for the first g that
// gives one), then the least of its odd powers, which are all the primitive 2n-th roots.
u64 minimal_root(std::size_t n, u64 q) {
  u64 root = 0;
  for (u64 g = 2; root == 0; ++g) {
    const u64 y = pow_mod(g, (q - 1) / (2 * n), q);
    if (pow_mod(y, n, q) == q - 1) root = y;
  }
  const u64 sq = mul_mod_slow(root, root, q);
  u64 best = root, r = root;
  for (std::size_t k = 1; k < n; ++k) {
    r = mul_mod_slow(r, sq, q);
    best = std::min(best, r);
  }
  return best;
}

std::shared_ptr<const Tables> build_tables(std::size_t n, u64 q, u64 psi, const Kernels& kernels) {
  auto t = std::make_shared<Tables>();
  t->n = n;
  t->log_n = static_cast<unsigned>(__builtin_ctzll(n));
  t->q = q;
  t->psi = psi;
  t->n_inv = pow_mod(n, q - 2, q);
  t->n_inv_shoup = shoup(t->n_inv, q);
  std::vector<u64> pw(n);
  pw[0] = 1;
  for (std::size_t i = 1; i < n; ++i) pw[i] = mul_mod_slow(pw[i - 1], psi, q);
  t->fwd.resize(n);
  t->fwd_shoup.resize(n);
  t->inv.resize(n);
  t->inv_shoup.resize(n);
  for (std::size_t m = 0; m < n; ++m) {
    const u64 w = pw[bit_reverse(m, t->log_n)];
    t->fwd[m] = w;
    t->fwd_shoup[m] = shoup(w, q);
    t->inv[m] = (q - w) % q;
  }
  t->inv[1] = mul_mod_slow(t->inv[1], t->n_inv, q);
  for (std::size_t m = 0; m < n; ++m) t->inv_shoup[m] = shoup(t->inv[m], q);
  t->barrett = Barrett(q);
  t->kernels = &kernels;
  if (kernels.prepare) kernels.prepare(*t);
  return t;
}

namespace {

void check_len(const char* fn, const char* arg, std::size_t got, std::size_t n) {
  if (got != n)
    throw std::invalid_argument(std::string("tempo::ntt::") + fn + ": " + arg + " has " + std::to_string(got) +
                                " coefficients, the plan's n is " + std::to_string(n));
}

}  // namespace

// Branch-free scan, then a second look only to name the culprit. a >= q exactly when the
// top bit of (q - 1 - a) | a is set (q < 2^62): subtractions, ORs and shifts, which the
// compiler vectorizes even for baseline x86-64 (SSE2 has no 64-bit compare).
bool any_out_of_range(const u64* a, std::size_t n, u64 q) {
  u64 acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc |= (q - 1 - a[i]) | a[i];
  return (acc >> 63) != 0;
}

// The same for 32-bit words (q <= 2^31, so the top bit of a 32-bit word tells).
bool any_out_of_range(const std::uint32_t* a, std::size_t n, u64 q) {
  const auto q32 = static_cast<std::uint32_t>(q);
  std::uint32_t acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc |= (q32 - 1 - a[i]) | a[i];
  return (acc >> 31) != 0;
}

void check_u32_plan(const char* fn, u64 q) {
  if (q >> 31)
    throw std::invalid_argument(std::string("tempo::ntt::") + fn + ": 32-bit coefficients need q < 2^31, the plan's q is " +
                                std::to_string(q));
}

bool via_u64(const Tables& t, std::uint32_t* a, bool (*f)(const Tables&, u64*)) {
  thread_local std::vector<u64> w;
  w.assign(a, a + t.n);
  const bool ok = f(t, w.data());
  if (ok) std::copy(w.begin(), w.end(), a);  // values < q < 2^31: exact
  wipe(w.data(), w.size());
  return ok;
}
bool forward_any(const Tables& t, u64* a) {
  t.kernels->forward(t, a);
  return true;
}
bool inverse_any(const Tables& t, u64* a) {
  t.kernels->inverse(t, a);
  return true;
}

template <typename Word>
void check_values(const char* fn, const char* arg, const Word* a, std::size_t n, u64 q) {
  if (!any_out_of_range(a, n, q)) return;
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] >= q)
      throw std::invalid_argument(std::string("tempo::ntt::") + fn + ": " + arg + "[" + std::to_string(i) +
                                  "] = " + std::to_string(a[i]) + " is not below q = " + std::to_string(q));
}

void check_span(const char* fn, const char* arg, std::span<const u64> a, const Tables& t, bool values) {
  check_len(fn, arg, a.size(), t.n);
  if (values) check_values(fn, arg, a.data(), t.n, t.q);
}

struct PlanAccess {
  static Plan make(std::shared_ptr<const Tables> t) { return Plan(std::move(t)); }
};

std::vector<std::string_view> cpu_paths(u64 q) {
  std::vector<std::string_view> names;
  for (const Kernels* k : kernels_for(q)) names.emplace_back(k->name);
  return names;
}

Plan with_cpu_path(const Plan& plan, std::string_view path) {
  std::string known;
  for (const Kernels* k : kernels_for(plan.q())) {
    if (k->name == path) return PlanAccess::make(build_tables(plan.n(), plan.q(), plan.psi(), *k));
    known += (known.empty() ? "" : ", ") + std::string(k->name);
  }
  throw std::invalid_argument("tempo::ntt: no CPU path \"" + std::string(path) + "\" for q = " +
                              std::to_string(plan.q()) + " here (expected one of: " + known + ")");
}

}  // namespace detail

using detail::u64;

Plan::Plan(std::size_t n, std::uint64_t q) {
  detail::check_params(n, q);
  tables_ = detail::build_tables(n, q, detail::minimal_root(n, q), detail::pick_kernels(q));
}

Plan::Plan(std::size_t n, std::uint64_t q, std::uint64_t psi) {
  detail::check_params(n, q);
  if (psi >= q || detail::pow_mod(psi, n, q) != q - 1)
    detail::bad("psi = " + std::to_string(psi) + " is not a primitive 2n-th root of unity mod q (psi^n != -1)");
  tables_ = detail::build_tables(n, q, psi, detail::pick_kernels(q));
}

Plan Plan::preset(std::string_view name) {
  struct Spec {
    std::string_view name;
    std::size_t n;
    u64 q, psi;  // psi 0: the smallest root
  };
  static constexpr Spec specs[] = {
      {"MLDSA", 256, 8380417, 1753},
      {"PN10QP27", 1024, 134215681, 0},
      {"PN11QP54", 2048, 18014398509404161ull, 0},
      {"PN12QP60", 4096, 1152921504606584833ull, 0},
      {"PN14QP60", 16384, 1152921504606584833ull, 0},
  };
  for (const Spec& s : specs) {
    if (!tempo::iequals(s.name, name)) continue;
    // Built once per process; copies share the tables.
    static std::mutex mu;
    static std::map<std::string_view, Plan> cache;
    std::lock_guard lock(mu);
    auto it = cache.find(s.name);
    if (it == cache.end()) {
      Plan p = s.psi ? Plan(s.n, s.q, s.psi) : Plan(s.n, s.q);
      it = cache.emplace(s.name, std::move(p)).first;
    }
    return it->second;
  }
  std::string known;
  for (const Spec& s : specs) known += (known.empty() ? "" : ", ") + std::string(s.name);
  throw std::invalid_argument("tempo::ntt::Plan::preset: unknown preset \"" + std::string(name) +
                              "\" (expected one of: " + known + "; case does not matter)");
}

std::size_t Plan::n() const noexcept { return tables_->n; }
unsigned Plan::log_n() const noexcept { return tables_->log_n; }
std::uint64_t Plan::q() const noexcept { return tables_->q; }
std::uint64_t Plan::psi() const noexcept { return tables_->psi; }
std::uint64_t Plan::n_inv() const noexcept { return tables_->n_inv; }
std::string_view Plan::cpu_path() const noexcept { return tables_->kernels->name; }

// The kernels check values in the pass that reads them; only a failure scans again to
// name the culprit (a is still untouched then).
void Plan::forward(std::span<std::uint64_t> a) const {
  const detail::Tables& t = *tables_;
  detail::check_span("forward", "a", a, t, false);
  if (!t.kernels->forward_checked(t, a.data())) detail::check_values("forward", "a", a.data(), t.n, t.q);
}
void Plan::inverse(std::span<std::uint64_t> a) const {
  const detail::Tables& t = *tables_;
  detail::check_span("inverse", "a", a, t, false);
  if (!t.kernels->inverse_checked(t, a.data())) detail::check_values("inverse", "a", a.data(), t.n, t.q);
}
void Plan::forward_unchecked(std::span<std::uint64_t> a) const {
  detail::check_span("forward_unchecked", "a", a, *tables_, false);
  tables_->kernels->forward(*tables_, a.data());
}
void Plan::inverse_unchecked(std::span<std::uint64_t> a) const {
  detail::check_span("inverse_unchecked", "a", a, *tables_, false);
  tables_->kernels->inverse(*tables_, a.data());
}

// 32-bit coefficients: in place where the kernel has uint32 forms (a checked form scans
// first, a failure leaves a untouched), else on a widened copy (the check fused there as
// above).
void Plan::forward(std::span<std::uint32_t> a) const {
  const detail::Tables& t = *tables_;
  detail::check_u32_plan("forward", t.q);
  detail::check_len("forward", "a", a.size(), t.n);
  if (t.forward_u32 != nullptr) {
    detail::check_values("forward", "a", a.data(), t.n, t.q);
    t.forward_u32(t, a.data(), {});
  } else if (!detail::via_u64(t, a.data(), t.kernels->forward_checked)) {
    detail::check_values("forward", "a", a.data(), t.n, t.q);
  }
}
void Plan::inverse(std::span<std::uint32_t> a) const {
  const detail::Tables& t = *tables_;
  detail::check_u32_plan("inverse", t.q);
  detail::check_len("inverse", "a", a.size(), t.n);
  if (t.inverse_u32 != nullptr) {
    detail::check_values("inverse", "a", a.data(), t.n, t.q);
    t.inverse_u32(t, a.data(), {});
  } else if (!detail::via_u64(t, a.data(), t.kernels->inverse_checked)) {
    detail::check_values("inverse", "a", a.data(), t.n, t.q);
  }
}
void Plan::forward_unchecked(std::span<std::uint32_t> a) const { forward_unchecked(a, Prefetch{}); }
void Plan::inverse_unchecked(std::span<std::uint32_t> a) const { inverse_unchecked(a, Prefetch{}); }
void Plan::forward_unchecked(std::span<std::uint32_t> a, Prefetch ahead) const {
  const detail::Tables& t = *tables_;
  detail::check_u32_plan("forward_unchecked", t.q);
  detail::check_len("forward_unchecked", "a", a.size(), t.n);
  if (t.forward_u32 != nullptr) t.forward_u32(t, a.data(), ahead);
  else detail::via_u64(t, a.data(), detail::forward_any);
}
void Plan::inverse_unchecked(std::span<std::uint32_t> a, Prefetch ahead) const {
  const detail::Tables& t = *tables_;
  detail::check_u32_plan("inverse_unchecked", t.q);
  detail::check_len("inverse_unchecked", "a", a.size(), t.n);
  if (t.inverse_u32 != nullptr) t.inverse_u32(t, a.data(), ahead);
  else detail::via_u64(t, a.data(), detail::inverse_any);
}

void Plan::pointwise(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                     std::span<std::uint64_t> out) const {
  detail::check_span("pointwise", "a", a, *tables_, true);
  detail::check_span("pointwise", "b", b, *tables_, true);
  detail::check_span("pointwise", "out", out, *tables_, false);
  tables_->kernels->pointwise(*tables_, a.data(), b.data(), out.data(), false);
}

void Plan::pointwise_add(std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
                         std::span<std::uint64_t> acc) const {
  detail::check_span("pointwise_add", "a", a, *tables_, true);
  detail::check_span("pointwise_add", "b", b, *tables_, true);
  detail::check_span("pointwise_add", "acc", acc, *tables_, true);
  tables_->kernels->pointwise(*tables_, a.data(), b.data(), acc.data(), true);
}

void multiply(const Plan& plan, std::span<const std::uint64_t> a, std::span<const std::uint64_t> b,
              std::span<std::uint64_t> out) {
  const detail::Tables& t = plan.tables();
  detail::check_span("multiply", "a", a, t, true);
  detail::check_span("multiply", "b", b, t, true);
  detail::check_span("multiply", "out", out, t, false);
  // One scratch polynomial per thread: out may alias a or b, so b's transform goes there.
  thread_local std::vector<u64> scratch;
  scratch.assign(b.begin(), b.end());
  if (out.data() != a.data()) std::copy(a.begin(), a.end(), out.begin());
  t.kernels->forward(t, out.data());
  t.kernels->forward(t, scratch.data());
  t.kernels->pointwise(t, out.data(), scratch.data(), out.data(), false);
  t.kernels->inverse(t, out.data());
  detail::wipe(scratch.data(), scratch.size());  // b's transform: b may be secret
}

}  // namespace tempo::ntt
