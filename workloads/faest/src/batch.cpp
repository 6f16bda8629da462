// Batches: SignOp and VerifyOp on the offload engine, and the batch calls that run them.
#include <string>
#include <vector>

#include <tempo/faest.hpp>
#include <tempo/os_random.hpp>
#include <tempo/tempo.hpp>

#include "common.hpp"
#include "gpu_path.hpp"

namespace tempo::faest {
namespace {

namespace rows = gpu::rows;

const char* set_suffix(Params p) { return p == Params::faest_128f ? "128f" : "128s"; }

// Priors from the device host (16 cores, one H200): 16 threads sign 128f at ~31k/s and
// verify at ~44k/s (0.52 and 0.36 ms per core; 128s about 4.5 and 3.5 ms); the hybrid
// device path reached about 45k signatures/s and 47k verifications/s at batches of 16,384,
// after tens of ms per batch (the first slice's device stage, the last slice's host half),
// when the proof still ran on the host (the engine's measurements replace these).
// 128s: at least 4.7k/s and 5.6k/s (measured with a device stage twice as slow as now).
// Bytes: the message is hashed once (~2 ns/B on one core).
gpu::CostPrior prior_of(double cpu_ms, double gpu_ms) {
  gpu::CostPrior c;
  c.cpu_fixed = 0.01;
  c.cpu_per_work = cpu_ms;
  c.cpu_per_byte = 2e-6;
  c.gpu_fixed = 30;
  c.gpu_per_work = gpu_ms;
  c.gpu_per_byte = 0.2e-6;
  return c;
}

// Items of a chunk as spans, for the GPU path's per-signature loops.
std::vector<std::span<const std::uint8_t>> items(const gpu::ChunkInput& in, std::size_t n) {
  std::vector<std::span<const std::uint8_t>> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = in.item(i);
  return v;
}

}  // namespace

// ---- SignOp -------------------------------------------------------------------------------

SignOp::SignOp(Params p, RhoSource rho) : p_(p), rho_(rho) { detail::param_set(p); }

std::string SignOp::key() const { return std::string("faest-sign/") + set_suffix(p_); }
std::size_t SignOp::out_stride() const { return signature_size(p_); }
gpu::CostPrior SignOp::prior() const {
  return p_ == Params::faest_128f ? prior_of(0.52, 0.022) : prior_of(4.5, 0.21);
}

void SignOp::sign_item(Task* t, const gpu::Chunk& c, std::size_t i) const {
  if (rho_ == RhoSource::input) {
    detail::sign_impl(t, p_, c.in[0].item(i), c.in[1].item(i), c.in[2].item(i), c.out_item(i));
    return;
  }
  std::uint8_t rho[16];
  tempo::os_random(rho);
  detail::Wipe<decltype(rho)> wipe{rho};
  detail::sign_impl(t, p_, c.in[0].item(i), c.in[1].item(i), rho, c.out_item(i));
}

void SignOp::cpu(const gpu::Chunk& c) const {
  for (std::size_t i = 0; i < c.count; ++i) sign_item(nullptr, c, i);
}

void SignOp::cpu_forked(Task& t, const gpu::Chunk& c) const {
  rows::for_each_item(t, c.count, [&](Task* ti, std::size_t i) { sign_item(ti, c, i); });
}

void SignOp::gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const {
  const auto sks = items(c.in[0], c.count), msgs = items(c.in[1], c.count);
  const auto rhos = rho_ == RhoSource::input ? items(c.in[2], c.count) : std::vector<std::span<const std::uint8_t>>{};
  std::vector<std::span<std::uint8_t>> outs(c.count);
  for (std::size_t i = 0; i < c.count; ++i) outs[i] = c.out_item(i);
  detail::sign_batch_gpu(t, p_, sks, msgs, rhos, outs, engine);
}

// ---- VerifyOp -----------------------------------------------------------------------------

VerifyOp::VerifyOp(Params p) : p_(p) { detail::param_set(p); }

std::string VerifyOp::key() const { return std::string("faest-verify/") + set_suffix(p_); }
gpu::CostPrior VerifyOp::prior() const {
  return p_ == Params::faest_128f ? prior_of(0.36, 0.021) : prior_of(3.5, 0.18);
}

void VerifyOp::cpu(const gpu::Chunk& c) const {
  for (std::size_t i = 0; i < c.count; ++i)
    c.out[i] = detail::verify_impl(nullptr, p_, c.in[0].item(i), c.in[1].item(i), c.in[2].item(i)) ? 1 : 0;
}

void VerifyOp::cpu_forked(Task& t, const gpu::Chunk& c) const {
  rows::for_each_item(t, c.count, [&](Task* ti, std::size_t i) {
    c.out[i] = detail::verify_impl(ti, p_, c.in[0].item(i), c.in[1].item(i), c.in[2].item(i)) ? 1 : 0;
  });
}

void VerifyOp::gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const {
  const auto pks = items(c.in[0], c.count), msgs = items(c.in[1], c.count), sigs = items(c.in[2], c.count);
  const detail::ParamSet& ps = detail::param_set(p_);
  for (std::size_t i = 0; i < c.count; ++i) {  // the device path reads fixed-size items
    detail::check_size("public key", pks[i].size(), 32);
    detail::check_size("signature", sigs[i].size(), ps.sig_size);
  }
  detail::verify_batch_gpu(t, p_, pks, msgs, sigs, {c.out, c.count}, engine);
}

// ---- the batch calls ----------------------------------------------------------------------

gpu::BatchReport sign_batch(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                            std::span<std::uint8_t> signatures_out, gpu::RunOptions opt) {
  const SignOp op(p);
  rows::check_lengths("tempo::faest::sign_batch", "secret key", secret_keys, secret_key_size(p));
  return gpu::Engine::shared().run(t, op, {secret_keys, messages}, signatures_out, opt);
}

gpu::BatchReport sign_batch_deterministic(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                          gpu::Operand rhos, std::span<std::uint8_t> signatures_out,
                                          gpu::RunOptions opt) {
  const SignOp op(p, RhoSource::input);
  rows::check_lengths("tempo::faest::sign_batch_deterministic", "secret key", secret_keys, secret_key_size(p));
  return gpu::Engine::shared().run(t, op, {secret_keys, messages, rhos}, signatures_out, opt);
}

gpu::BatchReport verify_batch(Task& t, Params p, gpu::Operand public_keys, gpu::Operand messages,
                              gpu::Operand signatures, std::span<std::uint8_t> results_out, gpu::RunOptions opt) {
  const VerifyOp op(p);
  rows::check_lengths("tempo::faest::verify_batch", "public key", public_keys, public_key_size(p));
  rows::check_lengths("tempo::faest::verify_batch", "signature", signatures, signature_size(p));
  return gpu::Engine::shared().run(t, op, {public_keys, messages, signatures}, results_out, opt);
}

namespace detail {

gpu::BatchReport sign_rows(Task& t, Params p, Rows sks, Rows msgs, const Rows* rhos, OutRows outs,
                           const gpu::RunOptions& opt) {
  const char* who = rhos != nullptr ? "tempo::faest::sign_batch_deterministic" : "tempo::faest::sign_batch";
  auto flat = [&](gpu::Operand keys, gpu::Operand messages, const gpu::Operand* r, std::span<std::uint8_t> out) {
    return r == nullptr ? sign_batch(t, p, keys, messages, out, opt)
                        : sign_batch_deterministic(t, p, keys, messages, *r, out, opt);
  };
  return rows::sign_rows(t, who, "rhos", secret_key_size(p), signature_size(p), sks, msgs, rhos, outs, flat);
}

gpu::BatchReport verify_rows(Task& t, Params p, Rows pks, Rows msgs, Rows sigs, std::span<std::uint8_t> results,
                             const gpu::RunOptions& opt) {
  auto flat = [&](gpu::Operand keys, gpu::Operand messages, gpu::Operand signatures, std::span<std::uint8_t> out) {
    return verify_batch(t, p, keys, messages, signatures, out, opt);
  };
  return rows::verify_rows(t, "tempo::faest::verify_batch", public_key_size(p), signature_size(p), pks, msgs, sigs,
                           results, flat);
}

}  // namespace detail
}  // namespace tempo::faest
