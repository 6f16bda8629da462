// The NTT batch operation on the offload engine and the batch entry points.
#include <atomic>
#include <cstring>
#include <vector>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tempo/ntt/batch.hpp>
#include <tempo/ntt/detail/kernels.hpp>
#include <tempo/tempo.hpp>

#include "tables.hpp"

namespace tempo::ntt {
namespace detail {
bool any_out_of_range(const u64* a, std::size_t n, u64 q);
}  // namespace detail

namespace {

using detail::u64;

const char* kind_name(OpKind k) {
  switch (k) {
    case OpKind::forward: return "fwd";
    case OpKind::inverse: return "inv";
    case OpKind::pointwise: return "pointwise";
    default: return "mul";
  }
}

std::span<const std::uint8_t> bytes_of(const std::vector<std::uint8_t>& v) { return {v.data(), v.size()}; }

// Scratch for multiply's second transform, one per worker thread.
std::vector<u64>& scratch(std::size_t n) {
  thread_local std::vector<u64> s;
  if (s.size() < n) s.resize(n);
  return s;
}

// The layouts get keys of their own: the cost model learns each one's bytes and times.
std::string op_key(const Plan& plan, OpKind kind, Layout layout) {
  return std::string("ntt-") + kind_name(kind) + "/n" + std::to_string(plan.n()) + "/q" + std::to_string(plan.q()) +
         (layout == Layout::u32 ? "/u32" : "");
}

const Plan& layout_ok(const Plan& plan, Layout layout) {
  if (layout == Layout::u32) detail::check_u32_plan("NttOp", plan.q());
  return plan;
}

gpu::DeviceConstants shared_tables(const Plan& plan) {
  const detail::Tables& t = plan.tables();
  std::lock_guard lock(t.device_mu);
  if (!t.shared_device_tables)
    t.shared_device_tables = std::make_shared<gpu::DeviceConstants>(
        gpu::Engine::shared(), bytes_of(detail::device_table_bytes(t)));
  return *static_cast<gpu::DeviceConstants*>(t.shared_device_tables.get());
}

}  // namespace

NttOp::NttOp(const Plan& plan, OpKind kind, Layout layout)
    : plan_(layout_ok(plan, layout)),
      kind_(kind),
      layout_(layout),
      key_(op_key(plan, kind, layout)),
      tables_(shared_tables(plan)) {}

NttOp::NttOp(const Plan& plan, OpKind kind, gpu::Engine& engine, Layout layout)
    : plan_(layout_ok(plan, layout)),
      kind_(kind),
      layout_(layout),
      key_(op_key(plan, kind, layout)),
      tables_(engine, bytes_of(detail::device_table_bytes(plan.tables()))) {}

double NttOp::work(double) const {
  const double n = static_cast<double>(plan_.n()), bf = n / 2 * plan_.log_n();
  switch (kind_) {
    case OpKind::pointwise: return n / 4;
    case OpKind::multiply: return 3 * bf + n / 4;
    default: return bf;
  }
}

gpu::CostPrior NttOp::prior() const {
  gpu::CostPrior p;
  p.cpu_per_work = 1.0e-6;   // ~1 ns per butterfly on one core (AVX2; AVX-512 is faster)
  p.cpu_per_byte = 0;
  p.gpu_per_work = 2.0e-9;   // ~0.5 T butterflies/s on an H100/H200-class device
  return p;
}

namespace {

// Item i of a chunk's operand or output as a pointer to its words.
template <typename S>
const S* item(const gpu::ChunkInput& in, std::size_t i) {
  return reinterpret_cast<const S*>(in.data + i * in.stride);
}

// One item of kind k on the CPU, 64-bit words: out from a (and b); out may be a's memory
// (the engine's in-place rule). tb: n words of scratch for multiply.
void compute(const detail::Tables& t, OpKind k, const u64* a, const u64* b, u64* out, u64* tb) {
  const std::size_t bytes = t.n * sizeof(u64);
  switch (k) {
    case OpKind::forward:
    case OpKind::inverse:
      if (static_cast<const void*>(out) != a) std::memmove(out, a, bytes);
      (k == OpKind::forward ? t.kernels->forward : t.kernels->inverse)(t, out);
      break;
    case OpKind::pointwise: t.kernels->pointwise(t, a, b, out, false); break;
    case OpKind::multiply:
      std::memcpy(tb, b, bytes);
      if (static_cast<const void*>(out) != a) std::memmove(out, a, bytes);
      t.kernels->forward(t, out);
      t.kernels->forward(t, tb);
      t.kernels->pointwise(t, out, tb, out, false);
      t.kernels->inverse(t, out);
      detail::wipe(tb, t.n);  // b's transform: b may be secret
      break;
  }
}

}  // namespace

void NttOp::cpu(const gpu::Chunk& c) const {
  const detail::Tables& t = plan_.tables();
  const std::size_t n = t.n;
  const bool two = inputs() == 2;
  if (layout_ == Layout::u64) {
    u64* tb = two ? scratch(n).data() : nullptr;
    for (std::size_t i = 0; i < c.count; ++i)
      compute(t, kind_, item<u64>(c.in[0], i), two ? item<u64>(c.in[1], i) : nullptr,
              reinterpret_cast<u64*>(c.out + i * c.out_stride), tb);
    return;
  }
  // 32-bit words: the CPU kernels take 64-bit ones; widen into scratch, narrow back.
  u64* x = scratch(3 * n).data();
  u64 *y = x + n, *tb = y + n;
  for (std::size_t i = 0; i < c.count; ++i) {
    const auto* a = item<std::uint32_t>(c.in[0], i);
    std::copy(a, a + n, x);
    if (two) {
      const auto* b = item<std::uint32_t>(c.in[1], i);
      std::copy(b, b + n, y);
    }
    compute(t, kind_, x, y, x, tb);
    std::copy(x, x + n, reinterpret_cast<std::uint32_t*>(c.out + i * c.out_stride));  // values < q < 2^31
  }
  detail::wipe(x, 2 * n);  // the inputs' copies: they may be secret
}

#if defined(TEMPO_NTT_HAVE_CUDA)
bool NttOp::has_cuda() const { return true; }

namespace {
template <typename S>
int launch(const NttOp& op, const void* tables, const gpu::Chunk& c, void* stream) {
  const cuda::Params p = detail::device_params(op.plan().tables());
  const auto* a = reinterpret_cast<const S*>(c.in[0].data);
  auto* out = reinterpret_cast<S*>(c.out);
  switch (op.kind()) {
    case OpKind::forward: return cuda::forward(p, tables, a, out, c.count, stream);
    case OpKind::inverse: return cuda::inverse(p, tables, a, out, c.count, stream);
    case OpKind::pointwise:
      return cuda::pointwise(p, a, reinterpret_cast<const S*>(c.in[1].data), out, c.count, stream);
    default:
      return cuda::multiply(p, tables, a, reinterpret_cast<const S*>(c.in[1].data), out, c.count, stream);
  }
}
}  // namespace

int NttOp::cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const {
  return layout_ == Layout::u32 ? launch<std::uint32_t>(*this, tables_.on(ctx), c, ctx.stream)
                                : launch<u64>(*this, tables_.on(ctx), c, ctx.stream);
}
#else
bool NttOp::has_cuda() const { return false; }
int NttOp::cuda(const gpu::Chunk&, const gpu::DeviceContext&) const { return 0; }
#endif

namespace {

std::size_t poly_count(const char* fn, const char* arg, std::size_t size, std::size_t n) {
  if (size % n != 0)
    throw std::invalid_argument(std::string("tempo::ntt::") + fn + ": " + arg + " has " + std::to_string(size) +
                                " coefficients, not a multiple of n = " + std::to_string(n));
  return size / n;
}

// Values < q in every polynomial, scanned on the pool; names "polys[i]" by global index.
template <typename S>
void check_batch(Task& t, const char* fn, const char* arg, std::span<const S> v, const detail::Tables& tb) {
  const std::size_t n = tb.n, count = v.size() / n;
  tempo::parallel_for(t, 0, count, [&](std::size_t i) {
    const S* p = v.data() + i * n;
    if (detail::any_out_of_range(p, n, tb.q)) {
      for (std::size_t j = 0; j < n; ++j)
        if (p[j] >= tb.q)
          throw std::invalid_argument(std::string("tempo::ntt::") + fn + ": " + arg + "[" + std::to_string(i * n + j) +
                                      "] (polynomial " + std::to_string(i) + ", coefficient " + std::to_string(j) +
                                      ") = " + std::to_string(p[j]) + " is not below q = " + std::to_string(tb.q));
    }
  });
}

template <typename S>
std::span<const std::uint8_t> as_bytes(std::span<const S> v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(S)};
}
template <typename S>
std::span<std::uint8_t> as_bytes(std::span<S> v) {
  return {reinterpret_cast<std::uint8_t*>(v.data()), v.size() * sizeof(S)};
}

// The layout of a span's words.
template <typename S>
constexpr Layout layout_of() {
  return sizeof(S) == 4 ? Layout::u32 : Layout::u64;
}

// A forward or inverse batch that stays on the CPU with the value check fused into each
// polynomial's transform (the kernels check in the pass that reads the values), instead
// of a separate scan: a scan is a second trip through memory, as long as the transform's
// own on a large batch, and it stops the batch from scaling with the cores. A polynomial
// that fails its check is left untouched; the batch then stops taking new polynomials,
// and the caller transforms back the ones already done (the transforms are exact
// inverses), so a failed batch leaves `polys` as it was.
class FusedCheckOp final : public gpu::BatchOp {
 public:
  FusedCheckOp(const NttOp& op, std::size_t count) : op_(op), done_(count, 0) {}
  std::string key() const override { return op_.key(); }  // the same cost model
  std::size_t out_stride() const override { return op_.out_stride(); }
  bool in_place_ok() const override { return true; }
  double work(double in_bytes) const override { return op_.work(in_bytes); }
  gpu::CostPrior prior() const override { return op_.prior(); }
  void cpu(const gpu::Chunk& c) const override {
    const detail::Tables& t = op_.plan().tables();
    const auto check = op_.kind() == OpKind::forward ? t.kernels->forward_checked : t.kernels->inverse_checked;
    for (std::size_t i = 0; i < c.count; ++i) {
      // Relaxed: a stale false only transforms one more polynomial, which is undone.
      if (failed_.load(std::memory_order_relaxed)) return;
      auto* p = reinterpret_cast<u64*>(c.out + i * c.out_stride);  // in place: out is the input
      if (check(t, p)) done_[c.begin + i] = 1;  // each item has one writer; read after run()
      else failed_.store(true, std::memory_order_relaxed);
    }
  }
  bool failed() const noexcept { return failed_.load(std::memory_order_relaxed); }
  const std::vector<std::uint8_t>& done() const noexcept { return done_; }

 private:
  const NttOp& op_;
  mutable std::vector<std::uint8_t> done_;
  mutable std::atomic<bool> failed_{false};
};

// Only the pool can run a batch: the fused check applies (the GPU kernels do not check).
bool cpu_only(const gpu::RunOptions& opt) {
  return opt.backend == Backend::cpu || (opt.backend == Backend::auto_select && gpu::device_count() == 0);
}

// 32-bit words: the value scan, then the batch (the fused check runs on 64-bit words).
template <typename S>
gpu::BatchReport unary(Task& t, const Plan& plan, std::span<S> polys, const gpu::RunOptions& opt, OpKind kind,
                       bool check) {
  const char* fn = kind == OpKind::forward ? "forward_batch" : "inverse_batch";
  if constexpr (sizeof(S) == 4) detail::check_u32_plan(fn, plan.q());
  const std::size_t count = poly_count(fn, "polys", polys.size(), plan.n());
  const NttOp op(plan, kind, layout_of<S>());
  const auto items = std::vector<gpu::Operand>{gpu::Operand::fixed(as_bytes(std::span<const S>(polys)), op.out_stride())};
  if constexpr (sizeof(S) == 8) {
    if (check && cpu_only(opt)) {
      FusedCheckOp fused(op, count);
      gpu::BatchReport r = gpu::Engine::shared().run(t, fused, items, as_bytes(polys), opt);
      if (!fused.failed()) return r;
      const detail::Tables& tb = plan.tables();
      const auto undo = kind == OpKind::forward ? tb.kernels->inverse : tb.kernels->forward;
      tempo::parallel_for(t, 0, count, [&](std::size_t i) {
        if (fused.done()[i]) undo(tb, polys.data() + i * tb.n);
      });
      check_batch(t, fn, "polys", std::span<const S>(polys), tb);  // names the first bad value, then throws
      throw std::logic_error("tempo::ntt: a failed value check found no bad value");
    }
  }
  if (check) check_batch(t, fn, "polys", std::span<const S>(polys), plan.tables());
  return gpu::Engine::shared().run(t, op, items, as_bytes(polys), opt);
}

}  // namespace

gpu::BatchReport forward_batch(Task& t, const Plan& plan, std::span<std::uint64_t> polys, gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::forward, true);
}
gpu::BatchReport inverse_batch(Task& t, const Plan& plan, std::span<std::uint64_t> polys, gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::inverse, true);
}
gpu::BatchReport forward_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint64_t> polys,
                                         gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::forward, false);
}
gpu::BatchReport inverse_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint64_t> polys,
                                         gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::inverse, false);
}

gpu::BatchReport forward_batch(Task& t, const Plan& plan, std::span<std::uint32_t> polys, gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::forward, true);
}
gpu::BatchReport inverse_batch(Task& t, const Plan& plan, std::span<std::uint32_t> polys, gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::inverse, true);
}
gpu::BatchReport forward_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint32_t> polys,
                                         gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::forward, false);
}
gpu::BatchReport inverse_batch_unchecked(Task& t, const Plan& plan, std::span<std::uint32_t> polys,
                                         gpu::RunOptions opt) {
  return unary(t, plan, polys, opt, OpKind::inverse, false);
}

namespace {
template <typename S>
gpu::BatchReport multiply_impl(Task& t, const Plan& plan, std::span<const S> a, std::span<const S> b,
                               std::span<S> out, const gpu::RunOptions& opt, bool check) {
  if constexpr (sizeof(S) == 4) detail::check_u32_plan("multiply_batch", plan.q());
  const std::size_t n = plan.n();
  const std::size_t count = poly_count("multiply_batch", "a", a.size(), n);
  if (b.size() != a.size() || out.size() != a.size())
    throw std::invalid_argument("tempo::ntt::multiply_batch: a, b and out must have the same size (" +
                                std::to_string(a.size()) + ", " + std::to_string(b.size()) + ", " +
                                std::to_string(out.size()) + ")");
  if (count > 0 && out.data() == b.data() && out.data() != a.data()) {
    // The engine allows out to alias input 0 only: swap (the product commutes).
    std::swap(a, b);
  }
  if (check) {
    check_batch(t, "multiply_batch", "a", a, plan.tables());
    check_batch(t, "multiply_batch", "b", b, plan.tables());
  }
  const NttOp op(plan, OpKind::multiply, layout_of<S>());
  return gpu::Engine::shared().run(
      t, op, {gpu::Operand::fixed(as_bytes(a), op.out_stride()), gpu::Operand::fixed(as_bytes(b), op.out_stride())},
      as_bytes(out), opt);
}
}  // namespace

gpu::BatchReport multiply_batch(Task& t, const Plan& plan, std::span<const std::uint64_t> a,
                                std::span<const std::uint64_t> b, std::span<std::uint64_t> out, gpu::RunOptions opt) {
  return multiply_impl(t, plan, a, b, out, opt, true);
}
gpu::BatchReport multiply_batch_unchecked(Task& t, const Plan& plan, std::span<const std::uint64_t> a,
                                          std::span<const std::uint64_t> b, std::span<std::uint64_t> out,
                                          gpu::RunOptions opt) {
  return multiply_impl(t, plan, a, b, out, opt, false);
}

gpu::BatchReport multiply_batch(Task& t, const Plan& plan, std::span<const std::uint32_t> a,
                                std::span<const std::uint32_t> b, std::span<std::uint32_t> out, gpu::RunOptions opt) {
  return multiply_impl(t, plan, a, b, out, opt, true);
}
gpu::BatchReport multiply_batch_unchecked(Task& t, const Plan& plan, std::span<const std::uint32_t> a,
                                          std::span<const std::uint32_t> b, std::span<std::uint32_t> out,
                                          gpu::RunOptions opt) {
  return multiply_impl(t, plan, a, b, out, opt, false);
}

}  // namespace tempo::ntt
