// The GPU batch path: per-signature host halves, the engine operation, and the batches
// (gpu::detail::run_slices: two slices of signatures in flight).
#include "gpu_path.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <tempo/tempo.hpp>
#include <tempo/env.hpp>
#include <tempo/os_random.hpp>
#include <tempo/gpu/detail/slice_pipeline.hpp>

#include "backend.hpp"
#include "gpu_halves.hpp"
#include "vc.hpp"

#if defined(TEMPO_FAEST_HAVE_CUDA)
#include "cuda/faest_kernels.hpp"
#endif

namespace tempo::faest::detail {

dev::Layout gpu_layout_of(Params p, bool verifier) { return gpu_layout(param_set(p), verifier); }

void sign_prepare(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                  std::span<const std::uint8_t> rho, std::uint8_t* sig, std::uint8_t* in) {
  const ParamSet& ps = param_set(p);
  const dev::Layout lay = gpu_layout(ps, false);
  std::uint8_t* const pk = in + lay.pk();
  unpack_secret_key(p, sk, pk, in + lay.w());
  // The root goes straight into the item (its first 16 bytes), which the batch loop wipes.
  sign_front(ps, pk, sk.data() + 16, msg.data(), msg.size(), rho.data(), rho.size(), sig, in + lay.mu(), in,
             in + lay.iv());
  leaf_hash_keys(ps, in + lay.iv(), in + lay.uhash());
}

void sign_complete(Params p, const std::uint8_t* out, std::uint8_t* sig) {
  const ParamSet& ps = param_set(p);
  std::memcpy(sig, out, ps.off_chall3());  // the front and the opening
  std::memcpy(sig + ps.off_chall3(), out + ps.off_chall3(), 16);
  std::memcpy(sig + ps.off_ctr(), out + ps.off_chall3() + 16, 4);
}

void verify_prepare(Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                    const std::uint8_t* sig, VerifyJob& job, std::uint8_t* in) {
  const ParamSet& ps = param_set(p);
  const dev::Layout lay = gpu_layout(ps, true);
  std::vector<std::uint8_t> s((2 * ps.L - 1 + 7) / 8, 0);
  std::vector<std::uint32_t> idx(ps.t_open);
  std::uint16_t delta[max_tau];
  job.ok = verify_front(ps, pk.data(), msg.data(), msg.size(), sig, in + lay.mu(), in + lay.iv(), delta) &&
           bavc_copath(ps, sig + ps.off_decom(), delta, s.data(), idx.data());
  if (!job.ok) {  // a harmless item: no co-path nodes, every hidden leaf 0
    std::memset(in, 0, lay.in_stride());
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
      profile_stages_(tempo::env_flag("TEMPO_FAEST_GPU_PROFILE").value_or(false)),
      min_chunk_(tempo::env_integer("TEMPO_FAEST_GPU_CHUNK", 1, 1 << 20).value_or(gpu_chunk)) {}

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

using tempo::gpu::detail::SliceView;

tempo::gpu::detail::SliceOptions slice_options(const StageOp& op, std::size_t slice) {
  return {.slice = slice, .ramp = true, .profile = op.profile_stages(), .name = "faest"};
}

// Per-item host state between the halves, one array per slice in flight.
template <class Job>
struct SlotJobs {
  SecretBuffer<Job> at[2];
  SlotJobs(std::size_t n, std::size_t slice) {
    for (auto& j : at) j.resize(std::min(std::max<std::size_t>(slice, 1), n));
  }
  Job& operator()(const SliceView& s, std::size_t q) { return at[s.slot][q]; }
};

}  // namespace

void sign_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> sks,
                    std::span<const std::span<const std::uint8_t>> msgs,
                    std::span<const std::span<const std::uint8_t>> rhos, std::span<const std::span<std::uint8_t>> outs,
                    tempo::gpu::Engine& engine, std::size_t slice) {
  const StageOp op(p, false);
  const dev::Layout& lay = op.layout();
  tempo::gpu::detail::run_slices(
      t, engine, op, sks.size(), lay.in_stride(), lay.out_stride(), slice_options(op, slice),
      [&](const SliceView& s, std::size_t q) {
        const std::size_t i = s.first + q;
        if (!rhos.empty()) {
          sign_prepare(p, sks[i], msgs[i], rhos[i], outs[i].data(), s.in_item(q));
        } else {
          std::uint8_t rho[16];
          tempo::os_random(rho);
          sign_prepare(p, sks[i], msgs[i], rho, outs[i].data(), s.in_item(q));
          secure_zero(rho, sizeof rho);
        }
      },
      [&](const SliceView& s, std::size_t q) { sign_complete(p, s.out_item(q), outs[s.first + q].data()); });
}

void verify_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> pks,
                      std::span<const std::span<const std::uint8_t>> msgs,
                      std::span<const std::span<const std::uint8_t>> sigs, std::span<std::uint8_t> results,
                      tempo::gpu::Engine& engine, std::size_t slice) {
  const StageOp op(p, true);
  const dev::Layout& lay = op.layout();
  SlotJobs<VerifyJob> jobs(pks.size(), slice);
  tempo::gpu::detail::run_slices(
      t, engine, op, pks.size(), lay.in_stride(), lay.out_stride(), slice_options(op, slice),
      [&](const SliceView& s, std::size_t q) {
        const std::size_t i = s.first + q;
        verify_prepare(p, pks[i], msgs[i], sigs[i].data(), jobs(s, q), s.in_item(q));
      },
      [&](const SliceView& s, std::size_t q) {
        const std::size_t i = s.first + q;
        results[i] = verify_complete(p, jobs(s, q), sigs[i].data(), s.out_item(q)) ? 1 : 0;
      });
}

}  // namespace tempo::faest::detail
