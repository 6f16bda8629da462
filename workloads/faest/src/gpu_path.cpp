// The GPU batch path: per-signature host halves, the engine operation, and the batch loop
// (slices of signatures: the host prepares slice k + 1 while the device runs slice k, and
// finishes slice k while the device runs slice k + 1).
#include "gpu_path.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <tempo/tempo.hpp>
#include <tempo/env.hpp>
#include <tempo/os_random.hpp>
#include <tempo/gpu/detail/host_buffer_pool.hpp>

#include "backend.hpp"
#include "gpu_halves.hpp"
#include "vc.hpp"

#if defined(TEMPO_FAEST_HAVE_CUDA)
#include "cuda/faest_kernels.hpp"
#endif

namespace tempo::faest::detail {

dev::Layout gpu_layout_of(Params p, bool verifier) { return gpu_layout(param_set(p), verifier); }

void sign_prepare(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                  std::span<const std::uint8_t> rho, std::uint8_t* sig, SignJob& job, std::uint8_t* in) {
  const ParamSet& ps = param_set(p);
  const dev::Layout lay = gpu_layout(ps, false);
  std::uint8_t* const pk = in + lay.pk();
  unpack_secret_key(p, sk, pk, in + lay.w());
  sign_front(ps, pk, sk.data() + 16, msg.data(), msg.size(), rho.data(), rho.size(), sig, in + lay.mu(), job.root,
             in + lay.iv());
  std::memcpy(in, job.root, 16);
  leaf_hash_keys(ps, in + lay.iv(), in + lay.uhash());
}

void sign_complete(Params p, const SignJob& job, const std::uint8_t* in, const std::uint8_t* out, std::uint8_t* sig) {
  active_backend().gpu->sign_back(param_set(p), job.root, in, out, sig);
}

void verify_prepare(Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                    const std::uint8_t* sig, VerifyJob& job, std::uint8_t* in) {
  const ParamSet& ps = param_set(p);
  const dev::Layout lay = gpu_layout(ps, true);
  std::memset(in, 0, lay.in_stride());
  std::vector<std::uint8_t> s((2 * ps.L - 1 + 7) / 8, 0);
  std::vector<std::uint32_t> idx(ps.t_open);
  std::uint16_t delta[max_tau];
  job.ok = verify_front(ps, pk.data(), msg.data(), msg.size(), sig, in + lay.mu(), in + lay.iv(), delta) &&
           bavc_copath(ps, sig + ps.off_decom(), delta, s.data(), idx.data());
  if (!job.ok) {  // a harmless item: no co-path nodes, every hidden leaf 0
    for (unsigned e = 0; e < ps.t_open; ++e) put_le32(in + lay.copath_idx() + 4 * e, ~std::uint32_t{0});
    return;
  }
  leaf_hash_keys(ps, in + lay.iv(), in + lay.uhash());
  std::memcpy(in + lay.hidden_com(), sig + ps.off_decom(), ps.decom_bytes());
  for (unsigned e = 0; e < ps.t_open; ++e) put_le32(in + lay.copath_idx() + 4 * e, idx[e]);
  for (unsigned i = 0; i < ps.tau; ++i) put_le32(in + lay.delta() + 4 * i, delta[i]);
  std::memcpy(in + lay.pk(), pk.data(), 32);
  std::memcpy(in + lay.sig(), sig, ps.off_decom());
  std::memcpy(in + lay.sig_chall3(), sig + ps.off_chall3(), 16);
  std::memcpy(in + lay.sig_chall3() + 16, sig + ps.off_ctr(), 4);
}

bool verify_complete(Params p, const VerifyJob& job, const std::uint8_t* sig, const std::uint8_t* out) {
  const ParamSet& ps = param_set(p);
  return job.ok && std::memcmp(out, sig + ps.off_chall3(), 16) == 0;
}

// ---- the engine operation ---------------------------------------------------------------

StageOp::StageOp(Params p, bool verifier)
    : p_(p),
      lay_(gpu_layout_of(p, verifier)),
      profile_stages_(tempo::env_flag("TEMPO_FAEST_GPU_PROFILE").value_or(false)) {}

std::string StageOp::key() const {
  return std::string(lay_.verifier ? "faest-verify-stage/" : "faest-sign-stage/") + name(p_);
}

double StageOp::work(double) const {
  // AES blocks: the tree (2 per internal node), each leaf (4 + 14); the proof scales with them.
  return double(lay_.s.L - 1) * 2 + double(lay_.s.L) * 18;
}

tempo::gpu::CostPrior StageOp::prior() const {
  tempo::gpu::CostPrior c;
  // Milliseconds per AES block (work()) and its share of the rest: the commitment ~10 ns
  // per block on one core, the proof (VOLEHash, QuickSilver, grinding) another 0.6 of that
  // (TEMPO_FAEST_STAGES); on the H200 the 128f commitment stage takes ~10 us per signature
  // (82k blocks), the proof's device stages are not measured yet (the engine's measurements
  // replace both).
  c.cpu_per_work = 16e-6;
  c.gpu_per_work = 0.12e-6;
  return c;
}

void StageOp::cpu(const tempo::gpu::Chunk& c) const {
  const ParamSet& ps = param_set(p_);
  const GpuOps& isa = *active_backend().gpu;
  for (std::size_t i = 0; i < c.count; ++i)
    isa.stage_cpu(ps, lay_.verifier, c.in[0].data + i * c.in[0].stride, c.out + i * c.out_stride);
}

#if defined(TEMPO_FAEST_HAVE_CUDA)
bool StageOp::has_cuda() const { return true; }
int StageOp::cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const {
  return tempo::faest::cuda::run_stage(lay_, c.in[0].data, c.out, c.count, ctx.stream, profile_stages_);
}
#else
bool StageOp::has_cuda() const { return false; }
int StageOp::cuda(const tempo::gpu::Chunk&, const tempo::gpu::DeviceContext&) const { return 0; }
#endif

// ---- batches -----------------------------------------------------------------------------

namespace {

using tempo::gpu::detail::slice_pool;  // pinned slices kept between batches

template <class Job>
struct Slot {
  tempo::gpu::HostBuffer in, out;
  SecretBuffer<Job> jobs;
  tempo::gpu::Offload offload;
  std::size_t first = 0, count = 0;
  bool dirty = false;  // in/out hold items not yet finished (finished items are wiped one by one)
  Slot() = default;
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() {
    offload = tempo::gpu::Offload{};  // waits for the device first (an exception left it running)
    if (dirty) {
      secure_zero(in.data(), in.size());
      secure_zero(out.data(), out.size());
    }
    if (in.data() != nullptr) slice_pool().give_back(std::move(in));
    if (out.data() != nullptr) slice_pool().give_back(std::move(out));
  }
  // n items now, at most `most` in any slice of the batch: the buffers are taken at their
  // final size, so that the pool's best fit for a small first slice (possibly a buffer an
  // input slice left, too small for an output one) is never regrown and pinned anew later
  // (~25 ms for a slice of 4,096 on the device host).
  void size_for(std::size_t n, std::size_t most, const dev::Layout& lay) {
    count = n;
    if (in.data() == nullptr) in = slice_pool().take(most * lay.in_stride());
    if (out.data() == nullptr) out = slice_pool().take(most * lay.out_stride());
    in.resize(n * lay.in_stride());
    out.resize(n * lay.out_stride());
    jobs.resize(n);
  }
};

// Runs prepare(slot, q) for every item q of every slice, the slice's device stage, then
// finish(slot, q) and the item's wipe; two slices in flight. The first slices are smaller
// (slice / 4, slice / 2) so that the host starts finishing early.
template <class Job, class Prepare, class Finish>
void run_slices(tempo::Task& t, const StageOp& op, std::size_t n, tempo::gpu::Engine& e, std::size_t slice,
                Prepare&& prepare, Finish&& finish) {
  slice = std::max<std::size_t>(slice, 1);
  const dev::Layout& lay = op.layout();
  Slot<Job> slots[2];
  const tempo::gpu::RunOptions opt(tempo::Backend::cuda);  // the caller's placement said gpu
  const bool prof = op.profile_stages();
  using clk = std::chrono::steady_clock;
  auto ms = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const auto start = clk::now();
  auto complete = [&](Slot<Job>& s) {
    const auto t0 = clk::now();
    s.offload.join(t);
    const auto t1 = clk::now();
    tempo::parallel_for(t, 0, s.count, [&](std::size_t q) {
      finish(s, q);
      secure_zero(s.in.data() + q * lay.in_stride(), lay.in_stride());
      secure_zero(s.out.data() + q * lay.out_stride(), lay.out_stride());
    });
    s.dirty = false;
    if (prof)
      std::fprintf(stderr, "faest host: at %.2f slice at %zu: join %.2f finish %.2f ms\n", ms(start, t0), s.first,
                   ms(t0, t1), ms(t1, clk::now()));
  };
  std::size_t k = 0, size = std::max<std::size_t>(1, slice / 4);
  for (std::size_t first = 0; first < n; first += size, size = std::min(slice, 2 * size), ++k) {
    Slot<Job>& s = slots[k % 2];
    const auto t0 = clk::now();
    s.first = first;
    s.size_for(std::min(size, n - first), std::min(slice, n), lay);
    s.dirty = true;
    const auto t1 = clk::now();
    tempo::parallel_for(t, 0, s.count, [&](std::size_t q) { prepare(s, q); });
    const auto t2 = clk::now();
    s.offload = e.submit(t, op, {tempo::gpu::Operand::fixed(s.in.span(), lay.in_stride())}, s.out.span(), opt);
    if (prof)
      std::fprintf(stderr, "faest host: at %.2f slice at %zu, %zu items: alloc %.2f prepare %.2f submit %.2f ms\n",
                   ms(start, t0), first, s.count, ms(t0, t1), ms(t1, t2), ms(t2, clk::now()));
    if (k > 0) complete(slots[(k - 1) % 2]);
  }
  if (k > 0) complete(slots[(k - 1) % 2]);
}

}  // namespace

void sign_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> sks,
                    std::span<const std::span<const std::uint8_t>> msgs,
                    std::span<const std::span<const std::uint8_t>> rhos, std::span<const std::span<std::uint8_t>> outs,
                    tempo::gpu::Engine& engine, std::size_t slice) {
  const StageOp op(p, false);
  const dev::Layout& lay = op.layout();
  run_slices<SignJob>(
      t, op, sks.size(), engine, slice,
      [&](Slot<SignJob>& s, std::size_t q) {
        const std::size_t i = s.first + q;
        std::uint8_t* in = s.in.data() + q * lay.in_stride();
        if (!rhos.empty()) {
          sign_prepare(p, sks[i], msgs[i], rhos[i], outs[i].data(), s.jobs[q], in);
        } else {
          std::uint8_t rho[16];
          tempo::os_random(rho);
          sign_prepare(p, sks[i], msgs[i], rho, outs[i].data(), s.jobs[q], in);
          secure_zero(rho, sizeof rho);
        }
      },
      [&](Slot<SignJob>& s, std::size_t q) {
        sign_complete(p, s.jobs[q], s.in.data() + q * lay.in_stride(), s.out.data() + q * lay.out_stride(),
                      outs[s.first + q].data());
      });
}

void verify_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> pks,
                      std::span<const std::span<const std::uint8_t>> msgs,
                      std::span<const std::span<const std::uint8_t>> sigs, std::span<std::uint8_t> results,
                      tempo::gpu::Engine& engine, std::size_t slice) {
  const StageOp op(p, true);
  const dev::Layout& lay = op.layout();
  run_slices<VerifyJob>(
      t, op, pks.size(), engine, slice,
      [&](Slot<VerifyJob>& s, std::size_t q) {
        const std::size_t i = s.first + q;
        verify_prepare(p, pks[i], msgs[i], sigs[i].data(), s.jobs[q], s.in.data() + q * lay.in_stride());
      },
      [&](Slot<VerifyJob>& s, std::size_t q) {
        const std::size_t i = s.first + q;
        const bool ok = verify_complete(p, s.jobs[q], sigs[i].data(), s.out.data() + q * lay.out_stride());
        results[i] = ok ? 1 : 0;
      });
}

}  // namespace tempo::faest::detail
