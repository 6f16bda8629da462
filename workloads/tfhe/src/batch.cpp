// The batch operations (BootstrapOp, GateOp) and the batch calls. Both ops bootstrap a
// weighted sum of an item's inputs plus a constant (a gate's, or -q/8 for a refresh), on
// the pool (groups sharing key reads, detail::group_size) or on CUDA devices through
// tempo::gpu's engine, with the evaluation key resident on each device.
#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include <tempo/tfhe/batch.hpp>

#include "device_tables.hpp"
#include "internal.hpp"

namespace tempo::tfhe {

namespace detail {

struct OpState {
  OpState(const EvaluationKey& k, const Linear& l, unsigned a, gpu::Engine* e)
      : ek(k), lin(l), arity(a), engine(e) {
    (void)ek.data();  // an empty key fails here, not in the middle of a batch
  }
  EvaluationKey ek;
  Linear lin;
  unsigned arity;
  gpu::Engine* engine;  // nullptr: Engine::shared(), whose device copies live with the key
  // The key's copies on `engine`, made by the op's first device chunk there (type-erased
  // DeviceKey, which only CUDA builds define).
  mutable std::mutex mu;
  mutable std::shared_ptr<const void> own;
};

}  // namespace detail

namespace {

using detail::EvalData;
using detail::Lwe;
using detail::OpState;

std::size_t item_bytes(const Params& p) { return (p.n + 1) * sizeof(std::uint32_t); }

// Ops driven directly by users get their layout checked: fixed items of n + 1 words.
void check_layout(const OpState& s, const gpu::Chunk& c) {
  const std::size_t bytes = item_bytes(s.ek.params());
  for (unsigned j = 0; j < s.arity; ++j)
    if (c.in[j].offsets != nullptr || c.in[j].stride != bytes)
      throw std::invalid_argument("tempo::tfhe: batch input " + std::to_string(j) + " must hold fixed items of " +
                                  std::to_string(bytes) + " bytes (n + 1 uint32 of " +
                                  std::string(s.ek.params().name) + ")");
}

// Item k of the chunk as the LWE to bootstrap: the op's weighted sum of its inputs.
Lwe load(const OpState& s, const gpu::Chunk& c, std::size_t k) {
  const EvalData& d = s.ek.data();
  const std::size_t n = d.params.n;
  Ciphertext in[2];
  const Ciphertext* ptr[2] = {&in[0], &in[1]};
  for (unsigned j = 0; j < s.arity; ++j) {
    const std::uint8_t* w = c.in[j].item(k).data();
    in[j].params_id = d.params.id;
    in[j].a.resize(n);
    std::memcpy(in[j].a.data(), w, n * sizeof(std::uint32_t));
    std::memcpy(&in[j].b, w + n * sizeof(std::uint32_t), sizeof(std::uint32_t));
  }
  return detail::combine(d, s.lin, ptr, s.arity);
}

void store(const Ciphertext& r, const gpu::Chunk& c, std::size_t k) {
  std::uint8_t* w = c.out_item(k).data();
  std::memcpy(w, r.a.data(), r.a.size() * sizeof(std::uint32_t));
  std::memcpy(w + r.a.size() * sizeof(std::uint32_t), &r.b, sizeof(std::uint32_t));
}

// Items [first, last) of the chunk as one group. Every input is read before any output is
// written, so the op may run in place.
void bootstrap_items(const OpState& s, const gpu::Chunk& c, std::size_t first, std::size_t last, Task* t) {
  std::vector<Lwe> in;
  in.reserve(last - first);
  for (std::size_t k = first; k < last; ++k) in.push_back(load(s, c, k));
  std::vector<Ciphertext> res(in.size());
  detail::bootstrap_batch(s.ek.data(), in, res, t);
  for (std::size_t k = first; k < last; ++k) store(res[k - first], c, k);
}

void run_cpu(const OpState& s, const gpu::Chunk& c) {
  check_layout(s, c);
  const std::size_t group = detail::cpu_group_max();
  for (std::size_t first = 0; first < c.count; first += group)
    bootstrap_items(s, c, first, std::min(c.count, first + group), nullptr);
}

// Groups [lo, hi) of `group` bootstraps, halved by join down to one group per leaf. A group
// takes tens of milliseconds, so a parallel_for (which answers heartbeats between items)
// would keep every group but the first queued until the first finished: the whole batch
// would take two groups' time. Here the right halves are queued forks and the leaves tick
// between blind-rotation steps, so each heartbeat hands the oldest (largest) halves to idle
// workers within one step, and a pool of T threads is busy after about log2(T) heartbeats.
void run_groups(Task& t, const OpState& s, const gpu::Chunk& c, std::size_t group, std::size_t lo, std::size_t hi) {
  if (hi - lo == 1) {
    bootstrap_items(s, c, lo * group, std::min(c.count, (lo + 1) * group), &t);
    return;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  // SAFETY: both branches finish before join returns, so the references they capture
  // outlive them.
  t.join([&](Task& w) { run_groups(w, s, c, group, lo, mid); },
         [&](Task& w) { run_groups(w, s, c, group, mid, hi); });
}

void run_forked(Task& t, const OpState& s, const gpu::Chunk& c) {
  check_layout(s, c);
  if (c.count == 0) return;
  const std::size_t group = detail::group_size(c.count, t.thread_count());
  run_groups(t, s, c, group, 0, (c.count + group - 1) / group);
}

std::string op_key(const OpState& s) { return "tfhe-bootstrap/" + std::string(s.ek.params().name); }

// Measured on the device host (bench/results/tfhe): a PN10QP27 bootstrap takes 30-40 ms on
// one core; an H100 runs ~30k per second, and one gate takes 3.4 ms host to host (its 556
// blind-rotation steps in a row, on a cluster of 2L blocks). Other sets scale with n N L,
// twice with 64-bit words (PN11QP54 on an H200: 72 ms for one gate, ~2k per second). The
// engine refines these per key.
gpu::CostPrior op_prior(const OpState& s) {
  const EvalData& d = s.ek.data();
  const Params& p = d.params;
  // Multi-bit steps (grouping 2): half the steps, each with four times the key products and
  // twice the key bytes per coefficient: counted as 0.75 of the one-coefficient steps' work.
  const double size = static_cast<double>(p.n) * static_cast<double>(p.N) * p.levels / (556.0 * 1024.0 * 4.0) *
                      (d.ring.mod.small() ? 1.0 : 2.0) * (p.grouping == 1 ? 1.0 : 0.75);
  gpu::CostPrior c;
  c.cpu_per_work = 30.0 * size;  // work: one bootstrap per item
  c.cpu_per_byte = 0;            // the bytes are noise beside the bootstrap
  c.gpu_fixed = 0.06;
  c.gpu_per_work = 1e3 / 30000.0 * size;
  c.gpu_item_latency_per_work = 3.5 * size;  // a bootstrap is a chain of steps on one cluster
  return c;
}

#if defined(TEMPO_TFHE_HAVE_CUDA)
constexpr bool kHaveCuda = true;

std::span<const std::uint8_t> bytes_of(const void* p, std::size_t n) {
  return {static_cast<const std::uint8_t*>(p), n};
}

// One evaluation key's device copies on one engine: the transform tables, the
// bootstrapping key (as stored: 32-bit words when Q < 2^27) and the key-switching key.
// Each reaches a device with the first chunk there and serves every later chunk.
struct DeviceKey {
  cuda::DeviceParams params;
  gpu::DeviceConstants tables, bk, ks;
  DeviceKey(const EvalData& d, gpu::Engine& engine) : params(detail::device_params(d)) {
    const std::vector<detail::u64> t = detail::device_tables(d);
    tables = gpu::DeviceConstants(engine, bytes_of(t.data(), t.size() * sizeof(detail::u64)));
    bk = d.bk32.empty() ? gpu::DeviceConstants(engine, bytes_of(d.bk.data(), d.bk.size() * sizeof(detail::u64)))
                        : gpu::DeviceConstants(engine, bytes_of(d.bk32.data(), d.bk32.size() * 4));
    ks = gpu::DeviceConstants(engine, bytes_of(d.ks.data(), d.ks.size() * sizeof(std::uint16_t)));
  }
  DeviceKey(const DeviceKey&) = delete;
  DeviceKey& operator=(const DeviceKey&) = delete;
  ~DeviceKey() {
    tables.release();
    bk.release();
    ks.release();
  }
};

std::shared_ptr<const DeviceKey> device_key(const OpState& s) {
  const EvalData& d = s.ek.data();
  if (s.engine == nullptr) {
    std::lock_guard lock(d.device_mu);
    if (!d.device_state) d.device_state = std::make_shared<const DeviceKey>(d, gpu::Engine::shared());
    return std::static_pointer_cast<const DeviceKey>(d.device_state);
  }
  std::lock_guard lock(s.mu);
  if (!s.own) s.own = std::make_shared<const DeviceKey>(d, *s.engine);
  return std::static_pointer_cast<const DeviceKey>(s.own);
}

int run_cuda(const OpState& s, const gpu::Chunk& c, const gpu::DeviceContext& ctx) {
  check_layout(s, c);
  const std::shared_ptr<const DeviceKey> key = device_key(s);
  const cuda::DeviceParams& p = key->params;
  std::size_t optin = 0;
  if (const int e = cuda::block_limits(ctx.device, &optin); e != 0) return e;
  if (cuda::block_smem_bytes(p) > optin)
    throw std::runtime_error("tempo::tfhe: a " + std::string(s.ek.params().name) + " bootstrap needs " +
                             std::to_string(cuda::block_smem_bytes(p)) + " bytes of shared memory per block, device " +
                             std::to_string(ctx.device) + " allows " + std::to_string(optin));
  const cuda::Combination lin{static_cast<std::uint32_t>(s.lin.w[0]),
                              s.arity > 1 ? static_cast<std::uint32_t>(s.lin.w[1]) : 0u,
                              detail::offset_word(s.lin, s.ek.params())};
  return cuda::gate(p, lin, key->tables.on(ctx), key->bk.on(ctx), static_cast<const std::uint16_t*>(key->ks.on(ctx)),
                    reinterpret_cast<const std::uint32_t*>(c.in[0].data),
                    s.arity > 1 ? reinterpret_cast<const std::uint32_t*>(c.in[1].data) : nullptr,
                    reinterpret_cast<std::uint32_t*>(c.out), c.count, c.batch, ctx.stream);
}
#else
constexpr bool kHaveCuda = false;

[[noreturn]] int run_cuda(const OpState&, const gpu::Chunk&, const gpu::DeviceContext&) {
  throw std::logic_error("tempo::tfhe: built without CUDA, has_cuda() is false");
}
#endif

std::span<const std::uint8_t> in_bytes(const std::vector<std::uint32_t>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(std::uint32_t)};
}
std::span<std::uint8_t> out_bytes(std::vector<std::uint32_t>& v) {
  return {reinterpret_cast<std::uint8_t*>(v.data()), v.size() * sizeof(std::uint32_t)};
}

}  // namespace

BootstrapOp::BootstrapOp(const EvaluationKey& ek)
    : s_(std::make_shared<const OpState>(ek, detail::kRefresh, 1u, nullptr)) {}
BootstrapOp::BootstrapOp(const EvaluationKey& ek, gpu::Engine& engine)
    : s_(std::make_shared<const OpState>(ek, detail::kRefresh, 1u, &engine)) {}
std::string BootstrapOp::key() const { return op_key(*s_); }
std::size_t BootstrapOp::out_stride() const { return item_bytes(s_->ek.params()); }
gpu::CostPrior BootstrapOp::prior() const { return op_prior(*s_); }
void BootstrapOp::cpu(const gpu::Chunk& c) const { run_cpu(*s_, c); }
void BootstrapOp::cpu_forked(Task& t, const gpu::Chunk& c) const { run_forked(t, *s_, c); }
bool BootstrapOp::has_cuda() const { return kHaveCuda; }
int BootstrapOp::cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const { return run_cuda(*s_, c, ctx); }

GateOp::GateOp(const EvaluationKey& ek, Gate g)
    : s_(std::make_shared<const OpState>(ek, detail::linear_of(g), 2u, nullptr)), gate_(g) {}
GateOp::GateOp(const EvaluationKey& ek, Gate g, gpu::Engine& engine)
    : s_(std::make_shared<const OpState>(ek, detail::linear_of(g), 2u, &engine)), gate_(g) {}
// The gate in the key: mpi::run checks that every rank runs the same operation.
std::string GateOp::key() const {
  return "tfhe-gate/" + std::string(s_->ek.params().name) + "/" + std::string(gate_name(gate_));
}
std::size_t GateOp::out_stride() const { return item_bytes(s_->ek.params()); }
gpu::CostPrior GateOp::prior() const { return op_prior(*s_); }
void GateOp::cpu(const gpu::Chunk& c) const { run_cpu(*s_, c); }
void GateOp::cpu_forked(Task& t, const gpu::Chunk& c) const { run_forked(t, *s_, c); }
bool GateOp::has_cuda() const { return kHaveCuda; }
int GateOp::cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const { return run_cuda(*s_, c, ctx); }

std::vector<std::uint32_t> to_items(Task& t, const Params& p, std::span<const Ciphertext> cs, const char* what) {
  const std::size_t words = p.n + 1;
  std::vector<std::uint32_t> buf(cs.size() * words);
  tempo::parallel_for(t, std::size_t{0}, cs.size(), [&](std::size_t i) {
    const Ciphertext& c = cs[i];
    detail::check_same_params(p, c.params_id, what);
    if (c.a.size() != p.n)
      throw std::invalid_argument(std::string("tempo::tfhe: ") + what + " " + std::to_string(i) +
                                  " has the wrong dimension");
    std::memcpy(buf.data() + i * words, c.a.data(), p.n * sizeof(std::uint32_t));
    buf[i * words + p.n] = c.b;
  });
  return buf;
}

void from_items(Task& t, const Params& p, std::span<const std::uint32_t> items, std::span<Ciphertext> out) {
  const std::size_t words = p.n + 1;
  tempo::parallel_for(t, std::size_t{0}, out.size(), [&](std::size_t i) {
    Ciphertext& c = out[i];
    c.params_id = p.id;
    c.a.assign(items.data() + i * words, items.data() + i * words + p.n);
    c.b = items[i * words + p.n];
  });
}

gpu::BatchReport eval_gates(Task& t, const EvaluationKey& ek, Gate g, std::span<const Ciphertext> xs,
                            std::span<const Ciphertext> ys, std::span<Ciphertext> out, gpu::RunOptions opt) {
  if (xs.size() != ys.size() || out.size() != xs.size())
    throw std::invalid_argument("tempo::tfhe::eval_gates: xs, ys and out must have the same length");
  const Params& p = ek.params();
  const std::vector<std::uint32_t> x = to_items(t, p, xs, "gate input x"), y = to_items(t, p, ys, "gate input y");
  std::vector<std::uint32_t> r(x.size());
  const GateOp op(ek, g);
  const std::size_t stride = op.out_stride();
  const gpu::BatchReport rep = gpu::Engine::shared().run(
      t, op, {gpu::Operand::fixed(in_bytes(x), stride), gpu::Operand::fixed(in_bytes(y), stride)}, out_bytes(r), opt);
  from_items(t, p, r, out);
  return rep;
}

gpu::BatchReport eval_bootstraps(Task& t, const EvaluationKey& ek, std::span<const Ciphertext> cs,
                                 std::span<Ciphertext> out, gpu::RunOptions opt) {
  if (out.size() != cs.size())
    throw std::invalid_argument("tempo::tfhe::eval_bootstraps: cs and out must have the same length");
  const Params& p = ek.params();
  std::vector<std::uint32_t> buf = to_items(t, p, cs, "bootstrap input");
  const BootstrapOp op(ek);
  const gpu::BatchReport rep =
      gpu::Engine::shared().run(t, op, {gpu::Operand::fixed(in_bytes(buf), op.out_stride())}, out_bytes(buf), opt);
  from_items(t, p, buf, out);
  return rep;
}

}  // namespace tempo::tfhe
