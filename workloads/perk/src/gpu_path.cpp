// The GPU batch path: per-signature host halves, the engine operation, and the batch loop
// (slices of signatures: the host prepares slice k + 1 while the device runs slice k, and
// finishes slice k while the device runs slice k + 1).
#include "gpu_path.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <tempo/env.hpp>
#include <tempo/gpu/detail/slice_pipeline.hpp>
#include <tempo/os_random.hpp>
#include <tempo/secure_zero.hpp>
#include <tempo/tempo.hpp>

#include "core.hpp"
#include "kernels.hpp"
#include "scheme.hpp"
#include "sponge.hpp"

#if defined(TEMPO_PERK_HAVE_CUDA)
#include "cuda/perk_kernels.hpp"
#endif

namespace tempo::perk::detail {
namespace {

dev::Shape shape_of(const ParamSet& p) {
  const unsigned rs = (p.prg2_blocks() * p.lambda_bytes + 7) / 8 * 8;
  const dev::ProofShape proof{p.lambda_bytes, p.n,     p.m,       p.d,         p.ext,
                              p.l_vhm(),      p.l(),   p.l_bar(), p.l_prime(), p.rho()};
  return dev::Shape{p.level,         p.lambda_bytes, p.tau(),       p.tau1,     p.kappa1, p.kappa2,
                    p.tau_prime,     p.mu1,          p.mu2,         p.vole_bytes(), p.prg2_blocks(), rs,
                    p.sha3_rate(),   p.shake_rate(), p.chall_dec_bits(), p.w,   p.ch3_bytes(), p.t_open, proof,
                    p.aes_prg,       p.aes_commit};
}

// ---- sign.cpp's steps, for sign_prepare and the stage on the CPU (StageOp::cpu) -----------

// The grinding search (sign.cpp sign_core): the first ctr whose ch3 = H2_3(ch2, a, ctr) has w
// zero bits after the leaf indices and whose opening fits in t_open seeds (i_vect, s_idx).
std::uint64_t grind(const ParamSet& p, const std::uint8_t* ch2, const std::uint16_t* a, std::uint8_t* ch3,
                    std::uint32_t* i_vect, std::vector<std::uint32_t>& s_idx) {
  const Sponge prefix = third_prefix(p, ch2, a);
  for (std::uint64_t ctr = 0;; ++ctr) {
    third_challenge(p, prefix, ctr, ch3);
    BitReader r{ch3, p.chall_dec_bits()};
    if (r.read(p.w) != 0) continue;
    decode_challenge(p, ch3, i_vect);
    if (open_indexes(p, i_vect, s_idx) && s_idx.size() <= p.t_open) return ctr;
  }
}

}  // namespace

dev::Layout gpu_layout_of(Params p) { return dev::Layout{shape_of(param_set(p))}; }

void gpu_prior(Params p, tempo::gpu::CostPrior& c) {
  // One H200 with 16 host cores: about 60k signatures/s at level 1 (fast) in batches of 4096
  // and more, 17k/s at level 3, 8.7k/s at level 5 (batches of 4096), after tens of ms per
  // batch; the short sets (more leaves, not measured) taken as about 3x slower, as on the CPU,
  // and the aes_keccak and keccak_keccak sets (not measured) as their aes_aes set.
  const ParamSet& ps = param_set(p);
  const double fast_ms = ps.level == 1 ? 0.017 : ps.level == 3 ? 0.057 : 0.115;
  c.gpu_fixed = 30;
  const bool short_mode = ps.kappa1 > 8;  // subtrees of 2^11 or 2^12 leaves (fast: 2^8)
  c.gpu_per_work = short_mode ? 3 * fast_ms : fast_ms;
  c.gpu_per_byte = 0.2e-6;
}

void sign_prepare(Params p, std::span<const std::uint8_t> sk, std::span<const std::uint8_t> msg,
                  std::span<const std::uint8_t> rand, std::uint8_t* sig, std::uint8_t* in) {
  const ParamSet& ps = param_set(p);
  check_size("secret key", sk.size(), ps.sk_bytes());
  const unsigned lb = ps.lambda_bytes;
  const std::uint8_t* pk = sk.data() + lb;
  std::uint16_t x[128];  // n <= 118
  if (!unpack_pk(ps, pk, x))
    throw std::invalid_argument("tempo::perk: malformed secret key (nonzero padding bits in its public key)");
  std::uint8_t mu[64];
  message_digest(ps, pk, msg.data(), msg.size(), mu);
  // mseed (the tree root) and salt = H3(perm_seed, mu, rand)
  Sponge g = Sponge::prg(ps);
  g.absorb(sk.data(), lb);
  g.absorb(mu, ps.hash_bytes());
  g.absorb(rand.data(), rand.size());
  g.finalize(dom_h3);
  g.squeeze(in, lb);
  g.squeeze(sig + ps.off_salt(), ps.salt_bytes());
  std::memcpy(in + lb, sig + ps.off_salt(), ps.salt_bytes());
  std::memcpy(in + 3 * lb, mu, ps.hash_bytes());
}

void sign_complete(Params p, const std::uint8_t* out, std::uint8_t* sig) {
  const ParamSet& ps = param_set(p);
  const dev::Layout lay = gpu_layout_of(p);
  // c, u_tilde, the opening and the hidden leaves' commitments as the device wrote them;
  // t, a, ctr little-endian; then the bits: t, a (without X^d's coefficients), ch3's leaf bits.
  std::memcpy(sig, out, lay.out_u_tilde());
  std::memcpy(sig + ps.off_u_tilde(), out + lay.out_u_tilde(), ps.vole_hash_bytes());
  std::memcpy(sig + ps.off_pdecom(), out + lay.out_pdecom(), std::size_t{ps.t_open} * ps.lambda_bytes);
  std::memcpy(sig + ps.off_com(), out + lay.out_com(), std::size_t{ps.tau()} * ps.hash_bytes());
  std::memcpy(sig + ps.off_ctr(), out + lay.out_ctr(), 8);
  std::memset(sig + ps.off_bits(), 0, ps.sig_bytes() - ps.off_bits());
  BitWriter w{sig + ps.off_bits()};
  for (unsigned i = 0; i < ps.n; ++i) w.write(get_le16(out + lay.out_t() + 2 * i), ps.l_row());
  for (unsigned i = 0; i < ps.d; ++i)
    for (unsigned j = 0; j < ps.ext; ++j) w.write(get_le16(out + lay.out_a() + 2 * (std::size_t{i + 1} * ps.ext + j)), q_bits);
  BitReader r3{out + lay.out_ch3()};
  for (unsigned b = 0; b < ps.chall_dec_bits(); ++b) w.write(r3.read(1), 1);
}

// ---- the engine operation ---------------------------------------------------------------

StageOp::StageOp(Params p)
    : p_(p), lay_(gpu_layout_of(p)), profile_stages_(tempo::env_flag("TEMPO_PERK_GPU_PROFILE").value_or(false)) {}

std::string StageOp::key() const { return std::string("perk-commit/") + name(p_); }

double StageOp::work(double) const {
  // AES blocks: the tree (2 per internal node), each leaf (2 + prg2_blocks) and its key
  // schedule (the proof's share is of the same order at these sizes).
  const dev::Shape& s = lay_.s;
  return double(s.leaves() - 1) * 3 + double(s.leaves()) * (3 + s.prg2_blocks);
}

tempo::gpu::CostPrior StageOp::prior() const {
  tempo::gpu::CostPrior c;
  c.cpu_per_work = 15e-6;  // ~15 ns per AES block and its share of the proof, one core
  c.gpu_per_work = 0.65e-6;  // one H200: ~29 us per level-1 signature (45k blocks) in large batches
  return c;
}

std::size_t StageOp::min_device_chunk() const { return gpu_chunk; }

void StageOp::cpu(const tempo::gpu::Chunk& c) const {
  const ParamSet& ps = param_set(p_);
  const Kernels& k = active_kernels();
  const unsigned lb = ps.lambda_bytes, vb = ps.vole_bytes(), tau = ps.tau();
  std::vector<std::uint8_t> tree(std::size_t{ps.nodes()} * lb), cmt(std::size_t{ps.leaves()} * ps.hash_bytes()),
      scratch(subtree_scratch_bytes(ps)), u(std::size_t{tau} * vb), v(std::size_t{ps.rho()} * vb);
  std::vector<const std::uint8_t*> vp(ps.rho());
  for (unsigned i = 0; i < ps.rho(); ++i) vp[i] = v.data() + std::size_t{i} * vb;
  const std::vector<std::uint8_t> zero_perm(ps.n, 0);
  std::vector<std::uint16_t> t(ps.n), a(std::size_t{ps.d + 1} * ps.ext);
  std::vector<std::uint32_t> i_vect(tau), s_idx;
  for (std::size_t item = 0; item < c.count; ++item) {
    const std::uint8_t* in = c.in[0].data + item * c.in[0].stride;
    std::uint8_t* out = c.out + item * c.out_stride;
    const std::uint8_t* salt = in + lay_.in_salt();
    std::memset(out, 0, lay_.out_stride());
    std::fill(v.begin(), v.end(), 0);
    std::memcpy(tree.data(), in, lb);
    expand_tree(ps, k, salt, tree.data());
    for (unsigned e = 0, row = 0; e < tau; ++e) {
      subtree_voles(ps, k, salt, tree.data(), e, 0, cmt.data(), v.data() + std::size_t{row} * vb,
                    u.data() + std::size_t{e} * vb, scratch.data());
      row += ps.mu_of(e);
      if (e > 0)
        for (unsigned b = 0; b < vb; ++b) out[std::size_t{e - 1} * vb + b] = static_cast<std::uint8_t>(u[b] ^ u[e * vb + b]);
    }
    std::uint8_t h_com[64], ch1[168], h_v[64], vh[34];
    hash_commitments(ps, salt, cmt.data(), h_com);
    first_challenge(ps, salt, in + lay_.in_mu(), h_com, out, ch1);
    std::uint8_t* u_tilde = out + lay_.out_u_tilde();
    vole_hash(ps, k, ch1, u.data(), u_tilde);
    Sponge h = Sponge::hash(ps);
    for (unsigned i = 0; i < ps.rho(); ++i) {
      vole_hash(ps, k, ch1, vp[i], vh);
      h.absorb(vh, ps.vole_hash_bytes());
    }
    h.finalize(dom_h1);
    h.squeeze(h_v, ps.hash_bytes());
    // v2.1.0's zero permutation and zero matrix, as sign_core
    const PkpKey key{zero_perm.data(), nullptr, nullptr};
    std::uint8_t* ch2 = out + lay_.out_ch2();
    prove_pkp(ps, k, key, u.data(), vp.data(), t.data(),
              [&](const std::uint16_t* tt, std::uint8_t* o) { second_challenge(ps, ch1, u_tilde, h_v, tt, o); }, ch2,
              a.data());
    for (unsigned i = 0; i < ps.n; ++i) put_le16(out + lay_.out_t() + 2 * i, t[i]);
    for (std::size_t i = 0; i < a.size(); ++i) put_le16(out + lay_.out_a() + 2 * i, a[i]);
    const std::uint64_t ctr = grind(ps, ch2, a.data(), out + lay_.out_ch3(), i_vect.data(), s_idx);
    put_le64(out + lay_.out_ctr(), ctr);
    for (std::size_t j = 0; j < s_idx.size(); ++j)
      std::memcpy(out + lay_.out_pdecom() + j * lb, tree.data() + std::size_t{s_idx[j]} * lb, lb);
    for (unsigned e = 0; e < tau; ++e)
      std::memcpy(out + lay_.out_com() + std::size_t{e} * ps.hash_bytes(),
                  cmt.data() + std::size_t{i_vect[e] - ps.leaf_offset()} * ps.hash_bytes(), ps.hash_bytes());
    secure_zero(ch1, sizeof ch1);
    secure_zero(h_v, sizeof h_v);
    secure_zero(vh, sizeof vh);
  }
  secure_zero(tree);
  secure_zero(scratch);
  secure_zero(u);
  secure_zero(v);
  secure_zero(t);
  secure_zero(a);
}

#if defined(TEMPO_PERK_HAVE_CUDA)
bool StageOp::has_cuda() const { return true; }
int StageOp::cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const {
  return tempo::perk::cuda::run_stage(lay_, c.in[0].data, c.out, c.count, ctx.stream, profile_stages_);
}
#else
bool StageOp::has_cuda() const { return false; }
int StageOp::cuda(const tempo::gpu::Chunk&, const tempo::gpu::DeviceContext&) const { return 0; }
#endif

// ---- verification ------------------------------------------------------------------------

dev::VerifyLayout gpu_verify_layout_of(Params p) { return dev::verify_layout(gpu_layout_of(p).s); }

bool verify_prepare(Params p, std::span<const std::uint8_t> pk, std::span<const std::uint8_t> msg,
                    std::span<const std::uint8_t> sig_span, std::uint8_t* in) {
  const ParamSet& ps = param_set(p);
  const dev::VerifyLayout v = gpu_verify_layout_of(p);
  check_size("public key", pk.size(), ps.pk_bytes());
  check_size("signature", sig_span.size(), ps.sig_bytes());
  const std::uint8_t* sig = sig_span.data();
  const unsigned lb = ps.lambda_bytes, tau = ps.tau();
  // What verify_core rejects before hashing, in its order.
  std::uint16_t x[128];  // n <= 118
  if (!unpack_pk(ps, pk.data(), x)) return false;
  const unsigned pad = ps.sig_bytes() * 8 - ps.sig_bits();
  if (pad != 0 && (sig[ps.sig_bytes() - 1] >> (8 - pad)) != 0) return false;
  std::memset(in, 0, v.lay.in_stride());
  BitReader r{sig + ps.off_bits()};
  for (unsigned i = 0; i < ps.n; ++i) put_le16(in + v.x_t() + 2 * i, static_cast<std::uint16_t>(r.read(ps.l_row())));
  for (unsigned i = 0; i < ps.d; ++i)  // a's X^d coefficients stay zero
    for (unsigned j = 0; j < ps.ext; ++j)
      put_le16(in + v.x_a() + 2 * (std::size_t{i + 1} * ps.ext + j), static_cast<std::uint16_t>(r.read(q_bits)));
  std::uint8_t* ch3 = in + v.x_ch3();
  BitWriter w{ch3};
  for (unsigned b = 0; b < ps.chall_dec_bits(); ++b) w.write(r.read(1), 1);
  std::vector<std::uint32_t> i_vect(tau), s_idx;
  decode_challenge(ps, ch3, i_vect.data());
  if (!open_indexes(ps, i_vect.data(), s_idx) || s_idx.size() > ps.t_open) return false;
  const std::uint8_t* pdecom = sig + ps.off_pdecom();
  for (std::size_t b = s_idx.size() * lb; b < std::size_t{ps.t_open} * lb; ++b)
    if (pdecom[b] != 0) return false;
  std::vector<std::uint16_t> delta(ps.ext, 0);
  for (unsigned e = 0, fb = 0; e < tau; ++e) {
    unsigned e1, leaf;
    ps.subtree_and_leaf(i_vect[e], e1, leaf);
    if (e1 != e) return false;
    dev::put_le32(in + v.x_hidden() + 4 * e, i_vect[e]);
    dev::put_le32(in + v.x_deltas() + 4 * e, leaf);
    // Delta as a tower element: bit i of the leaf at position (earlier mu) + i, i < mu_e
    for (unsigned i = 0; i < ps.mu_of(e); ++i, ++fb)
      delta[fb / q_bits] = static_cast<std::uint16_t>(delta[fb / q_bits] | ((leaf >> i) & 1u) << (fb % q_bits));
  }
  for (unsigned j = 0; j < ps.ext; ++j) put_le16(in + v.x_dtower() + 2 * j, delta[j]);
  dev::put_le32(in + v.x_count(), static_cast<std::uint32_t>(s_idx.size()));
  for (std::size_t j = 0; j < s_idx.size(); ++j) dev::put_le32(in + v.x_open() + 4 * j, s_idx[j]);
  std::memcpy(in + v.lay.in_salt(), sig + ps.off_salt(), ps.salt_bytes());
  message_digest(ps, pk.data(), msg.data(), msg.size(), in + v.lay.in_mu());
  std::memcpy(in + v.x_sig(), sig, v.sig_prefix());  // c | u_tilde | pdecom | com_e | ctr
  return true;
}

void verify_stage_host(const dev::VerifyLayout& v, const std::uint8_t* in, std::uint8_t* out, std::size_t count) {
  const dev::Layout& lay = v.lay;
  std::vector<std::uint8_t> nodes(count * lay.nodes_bytes()), com(count * lay.com_bytes()),
      rows(count * lay.rows_bytes()), hq(count * lay.hq_bytes()), st(count * lay.st_bytes());
  const dev::Args a{lay, count, in, out, nodes.data(), com.data(), rows.data(), hq.data(), st.data()};
  dev::for_each_verify_stage(v, [&](const dev::VerifyLaunch& l) {
    for (std::uint64_t q = 0; q < count * l.per_sig; ++q) dev::run_verify_thread(v, a, out, l, q);
  });
}

VerifyStageOp::VerifyStageOp(Params p) : p_(p), v_(gpu_verify_layout_of(p)) {}

std::string VerifyStageOp::key() const { return std::string("perk-verify-stage/") + name(p_); }

double VerifyStageOp::work(double) const {
  // As the signer's (StageOp::work) without the grinding search: the verifier expands the
  // forest less the hidden paths and hashes every leaf.
  const dev::Shape& s = v_.lay.s;
  return double(s.leaves() - 1) * 3 + double(s.leaves()) * (3 + s.prg2_blocks);
}

tempo::gpu::CostPrior VerifyStageOp::prior() const {
  tempo::gpu::CostPrior c;
  // Not measured yet: the signer's device rate per block; the CPU side (the device code on
  // the host, bit-sliced AES) taken as four times the signer's CPU stage.
  c.cpu_per_work = 60e-6;
  c.gpu_per_work = 0.65e-6;
  return c;
}

std::size_t VerifyStageOp::min_device_chunk() const { return gpu_chunk; }

void VerifyStageOp::cpu(const tempo::gpu::Chunk& c) const {
  std::vector<std::uint8_t> in(c.count * v_.lay.in_stride());
  for (std::size_t i = 0; i < c.count; ++i)
    std::memcpy(in.data() + i * v_.lay.in_stride(), c.in[0].data + i * c.in[0].stride, v_.lay.in_stride());
  verify_stage_host(v_, in.data(), c.out, c.count);
}

#if defined(TEMPO_PERK_HAVE_CUDA)
bool VerifyStageOp::has_cuda() const { return true; }
int VerifyStageOp::cuda(const tempo::gpu::Chunk& c, const tempo::gpu::DeviceContext& ctx) const {
  return tempo::perk::cuda::run_verify_stage(v_, c.in[0].data, c.out, c.count, ctx.stream);
}
#else
bool VerifyStageOp::has_cuda() const { return false; }
int VerifyStageOp::cuda(const tempo::gpu::Chunk&, const tempo::gpu::DeviceContext&) const { return 0; }
#endif

namespace {

using tempo::gpu::detail::slice_pool;  // pinned slices kept between batches

// A pooled buffer for public bytes (verification): back to the pool unwiped.
struct PublicSlice {
  tempo::gpu::HostBuffer buf;
  explicit PublicSlice(std::size_t bytes) : buf(slice_pool().take(bytes)) {}
  PublicSlice(const PublicSlice&) = delete;
  PublicSlice& operator=(const PublicSlice&) = delete;
  ~PublicSlice() { slice_pool().give_back(std::move(buf)); }
};

}  // namespace

void verify_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> pks,
                      std::span<const std::span<const std::uint8_t>> msgs,
                      std::span<const std::span<const std::uint8_t>> sigs, std::span<std::uint8_t> results,
                      tempo::gpu::Engine& engine, std::size_t slice) {
  const VerifyStageOp op(p);
  const dev::VerifyLayout& v = op.layout();
  const std::size_t n = pks.size(), stride = v.lay.in_stride();
  slice = std::max<std::size_t>(slice, 1);
  const tempo::gpu::RunOptions opt(tempo::Backend::cuda);  // the caller's placement said gpu
  std::vector<std::uint8_t> ok(std::min(slice, n));
  std::vector<std::size_t> sent;
  PublicSlice pin(std::min(slice, n) * stride), pout(std::min(slice, n));
  tempo::gpu::HostBuffer &in = pin.buf, &out = pout.buf;
  for (std::size_t first = 0; first < n; first += slice) {
    const std::size_t count = std::min(slice, n - first);
    in.resize(count * stride);
    tempo::parallel_for(t, std::size_t{0}, count, [&](std::size_t q) {
      const std::size_t i = first + q;
      ok[q] = verify_prepare(p, pks[i], msgs[i], sigs[i], in.data() + q * stride) ? 1 : 0;
    });
    // Only what passed the host's checks goes to the device, packed.
    sent.clear();
    for (std::size_t q = 0; q < count; ++q) {
      if (ok[q] == 0) {
        results[first + q] = 0;
        continue;
      }
      if (sent.size() != q) std::memcpy(in.data() + sent.size() * stride, in.data() + q * stride, stride);
      sent.push_back(first + q);
    }
    if (sent.empty()) continue;
    out.resize(sent.size());
    engine.submit(t, op, {tempo::gpu::Operand::fixed(in.span().first(sent.size() * stride), stride)}, out.span(), opt)
        .join(t);
    for (std::size_t j = 0; j < sent.size(); ++j) results[sent[j]] = out.data()[j];
  }
}

// ---- the batch ---------------------------------------------------------------------------

void sign_batch_gpu(tempo::Task& t, Params p, std::span<const std::span<const std::uint8_t>> sks,
                    std::span<const std::span<const std::uint8_t>> msgs,
                    std::span<const std::span<const std::uint8_t>> rands, std::span<const std::span<std::uint8_t>> outs,
                    tempo::gpu::Engine& engine, std::size_t slice) {
  using tempo::gpu::detail::SliceView;
  const StageOp op(p);
  const dev::Layout& lay = op.layout();
  const std::size_t rand_bytes = sign_randomness_size(p);
  tempo::gpu::detail::run_slices(
      t, engine, op, sks.size(), lay.in_stride(), lay.out_stride(), {.slice = slice, .name = "perk"},
      [&](const SliceView& s, std::size_t q) {
        const std::size_t i = s.first + q;
        if (!rands.empty()) {
          sign_prepare(p, sks[i], msgs[i], rands[i], outs[i].data(), s.in_item(q));
        } else {
          std::uint8_t rand[2 * max_lambda_bytes];
          tempo::os_random(std::span<std::uint8_t>(rand, rand_bytes));
          sign_prepare(p, sks[i], msgs[i], std::span<const std::uint8_t>(rand, rand_bytes), outs[i].data(),
                       s.in_item(q));
          secure_zero(rand, sizeof rand);
        }
      },
      [&](const SliceView& s, std::size_t q) { sign_complete(p, s.out_item(q), outs[s.first + q].data()); });
}

}  // namespace tempo::perk::detail
