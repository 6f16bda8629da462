// Batches: SignOp and VerifyOp on the offload engine, and the batch calls that run them.
// On the CPU each item is one single call (sign_into, sign_into_deterministic, verify), so a
// batch there is byte-identical to single calls by construction.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <tempo/perk.hpp>
#include <tempo/tempo.hpp>

#include "gpu_path.hpp"

namespace tempo::perk {
namespace {

namespace rows = gpu::rows;

// CPU priors, ms per signature and per verification on one core (thread CPU time, median of
// 7, aesni+pclmul, 2.1 GHz class x86-64), in the enum's order. The engine refines them from
// every batch.
struct Ms {
  double sign, verify;
};
constexpr Ms kCpuMs[18] = {
    {1.0, 0.64}, {1.4, 0.90},  {1.6, 1.3},  {3.8, 2.6},  {5.8, 4.4},  {8.5, 7.3},   // level 1
    {4.4, 3.0},  {4.3, 3.2},   {5.6, 3.4},  {22, 19},    {23, 21},    {24, 22},     // level 3
    {8.7, 6.7},  {9.4, 7.2},   {11, 8.7},   {33, 28},    {42, 38},    {51, 47}};    // level 5
const Ms& cpu_ms(Params p) { return kCpuMs[static_cast<std::size_t>(p)]; }

gpu::CostPrior prior_of(double cpu_ms) {
  gpu::CostPrior c;
  c.cpu_fixed = 0.01;
  c.cpu_per_work = cpu_ms;
  c.cpu_per_byte = 2e-6;  // the message is hashed once (~2 ns/B)
  return c;
}

std::string op_key(const char* what, Params p) { return std::string(what) + name(p); }

}  // namespace

// ---- SignOp -------------------------------------------------------------------------------

SignOp::SignOp(Params p, RandSource rand) : p_(p), rand_(rand) { (void)signature_size(p); }

std::string SignOp::key() const { return op_key("perk-sign/", p_); }
std::size_t SignOp::out_stride() const { return signature_size(p_); }
gpu::CostPrior SignOp::prior() const {
  gpu::CostPrior c = prior_of(cpu_ms(p_).sign);
  detail::gpu_prior(p_, c);  // the device path's terms
  return c;
}

// t: fork inside the signature (a batch smaller than the pool), else serial into the output.
void SignOp::sign_item(Task* t, const gpu::Chunk& c, std::size_t i) const {
  const auto sk = c.in[0].item(i), msg = c.in[1].item(i);
  const auto out = c.out_item(i);
  if (t != nullptr) {
    const std::vector<std::uint8_t> sig =
        rand_ == RandSource::input ? sign_deterministic(*t, p_, sk, msg, c.in[2].item(i)) : sign(*t, p_, sk, msg);
    std::copy(sig.begin(), sig.end(), out.begin());
  } else if (rand_ == RandSource::input) {
    sign_into_deterministic(p_, sk, msg, c.in[2].item(i), out);
  } else {
    sign_into(p_, sk, msg, out);
  }
}

void SignOp::cpu(const gpu::Chunk& c) const {
  for (std::size_t i = 0; i < c.count; ++i) sign_item(nullptr, c, i);
}

void SignOp::cpu_forked(Task& t, const gpu::Chunk& c) const {
  rows::for_each_item(t, c.count, [&](Task* ti, std::size_t i) { sign_item(ti, c, i); });
}

bool SignOp::has_staged_gpu() const { return true; }  // every set has a device stage

void SignOp::gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const {
  std::vector<std::span<const std::uint8_t>> sks(c.count), msgs(c.count), rands;
  std::vector<std::span<std::uint8_t>> outs(c.count);
  for (std::size_t i = 0; i < c.count; ++i) {
    sks[i] = c.in[0].item(i);
    msgs[i] = c.in[1].item(i);
    outs[i] = c.out_item(i);
  }
  if (rand_ == RandSource::input) {
    rands.resize(c.count);
    for (std::size_t i = 0; i < c.count; ++i) rands[i] = c.in[2].item(i);
  }
  detail::sign_batch_gpu(t, p_, sks, msgs, rands, outs, engine);
}

// ---- VerifyOp -----------------------------------------------------------------------------

VerifyOp::VerifyOp(Params p) : p_(p) { (void)signature_size(p); }

std::string VerifyOp::key() const { return op_key("perk-verify/", p_); }
gpu::CostPrior VerifyOp::prior() const {
  gpu::CostPrior c = prior_of(cpu_ms(p_).verify);
  // The device verifier does the signer's device work less the grinding search: the signer's
  // terms bound it until the engine has measured it.
  detail::gpu_prior(p_, c);
  return c;
}

void VerifyOp::verify_item(Task* t, const gpu::Chunk& c, std::size_t i) const {
  const auto pk = c.in[0].item(i), msg = c.in[1].item(i), sig = c.in[2].item(i);
  c.out[i] = (t != nullptr ? verify(*t, p_, pk, msg, sig) : verify(p_, pk, msg, sig)) ? 1 : 0;
}

void VerifyOp::cpu(const gpu::Chunk& c) const {
  for (std::size_t i = 0; i < c.count; ++i) verify_item(nullptr, c, i);
}

void VerifyOp::cpu_forked(Task& t, const gpu::Chunk& c) const {
  rows::for_each_item(t, c.count, [&](Task* ti, std::size_t i) { verify_item(ti, c, i); });
}

bool VerifyOp::has_staged_gpu() const { return true; }

void VerifyOp::gpu_staged(Task& t, gpu::Engine& engine, const gpu::Chunk& c) const {
  std::vector<std::span<const std::uint8_t>> pks(c.count), msgs(c.count), sigs(c.count);
  for (std::size_t i = 0; i < c.count; ++i) {
    pks[i] = c.in[0].item(i);
    msgs[i] = c.in[1].item(i);
    sigs[i] = c.in[2].item(i);
  }
  detail::verify_batch_gpu(t, p_, pks, msgs, sigs, std::span<std::uint8_t>(c.out, c.count), engine);
}

// ---- the batch calls ----------------------------------------------------------------------

gpu::BatchReport sign_batch(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                            std::span<std::uint8_t> signatures_out, gpu::RunOptions opt) {
  const SignOp op(p);
  rows::check_lengths("tempo::perk::sign_batch", "secret key", secret_keys, secret_key_size(p));
  return gpu::Engine::shared().run(t, op, {secret_keys, messages}, signatures_out, opt);
}

gpu::BatchReport sign_batch_deterministic(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                          gpu::Operand rands, std::span<std::uint8_t> signatures_out,
                                          gpu::RunOptions opt) {
  const SignOp op(p, RandSource::input);
  rows::check_lengths("tempo::perk::sign_batch_deterministic", "secret key", secret_keys, secret_key_size(p));
  return gpu::Engine::shared().run(t, op, {secret_keys, messages, rands}, signatures_out, opt);
}

gpu::BatchReport verify_batch(Task& t, Params p, gpu::Operand public_keys, gpu::Operand messages,
                              gpu::Operand signatures, std::span<std::uint8_t> results_out, gpu::RunOptions opt) {
  const VerifyOp op(p);
  rows::check_lengths("tempo::perk::verify_batch", "public key", public_keys, public_key_size(p));
  rows::check_lengths("tempo::perk::verify_batch", "signature", signatures, signature_size(p));
  return gpu::Engine::shared().run(t, op, {public_keys, messages, signatures}, results_out, opt);
}

namespace detail {

gpu::BatchReport sign_rows(Task& t, Params p, rows::Rows sks, rows::Rows msgs, const rows::Rows* rands, rows::OutRows outs,
                           const gpu::RunOptions& opt) {
  const char* who = rands != nullptr ? "tempo::perk::sign_batch_deterministic" : "tempo::perk::sign_batch";
  auto flat = [&](gpu::Operand keys, gpu::Operand messages, const gpu::Operand* r, std::span<std::uint8_t> out) {
    return r == nullptr ? sign_batch(t, p, keys, messages, out, opt)
                        : sign_batch_deterministic(t, p, keys, messages, *r, out, opt);
  };
  return rows::sign_rows(t, who, "rands", secret_key_size(p), signature_size(p), sks, msgs, rands, outs, flat);
}

gpu::BatchReport verify_rows(Task& t, Params p, rows::Rows pks, rows::Rows msgs, rows::Rows sigs, std::span<std::uint8_t> results,
                             const gpu::RunOptions& opt) {
  auto flat = [&](gpu::Operand keys, gpu::Operand messages, gpu::Operand signatures, std::span<std::uint8_t> out) {
    return verify_batch(t, p, keys, messages, signatures, out, opt);
  };
  return rows::verify_rows(t, "tempo::perk::verify_batch", public_key_size(p), signature_size(p), pks, msgs, sigs,
                           results, flat);
}

}  // namespace detail
}  // namespace tempo::perk
