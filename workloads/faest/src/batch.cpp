// Batches: SignOp and VerifyOp on the offload engine, and the batch calls that run them.
#include <cstring>
#include <string>
#include <vector>

#include <tempo/faest.hpp>
#include <tempo/os_random.hpp>
#include <tempo/tempo.hpp>

#include "common.hpp"
#include "gpu_path.hpp"

namespace tempo::faest {
namespace {

const char* set_suffix(Params p) { return p == Params::faest_128f ? "128f" : "128s"; }

// Priors from the device host (16 cores, one H200): 16 threads sign 128f at 18.5k/s and
// verify at 20.2k/s (0.86 and 0.79 ms per core; 128s about 4.5 and 3.5 ms); the hybrid
// device path reaches about 23k signatures/s and 27k verifications/s at batches of 16,384
// (128s 4.7k/s and 5.6k/s), after tens of ms per batch (slices, host halves not yet
// overlapped). So a 16-core host keeps batches below several thousand signatures on the
// pool: in a stream of 4,096-signature batches the device path was 1.5x slower there.
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

// Fewer items than workers: each signature forks inside (tree levels, VOLE instances) so
// that the idle workers help; otherwise whole signatures per worker keep them all busy
// without the inner loops' polling.
template <class Item>
void forked(Task& t, std::size_t n, Item&& item) {
  const bool inner = n < t.thread_count();
  tempo::parallel_for(t, std::size_t{0}, n, [&](Task& t2, std::size_t i) { item(inner ? &t2 : nullptr, i); });
}

void check_count(const char* fn, const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw std::invalid_argument(std::string("tempo::faest::") + fn + ": " + what + " has " + std::to_string(got) +
                                " entries, expected " + std::to_string(want));
}

// Every item of `o` is `len` bytes (fixed stride len, or offsets len apart).
void check_items(const char* fn, const char* what, const gpu::Operand& o, std::size_t len) {
  auto fail = [&](const std::string& why) {
    throw std::invalid_argument(std::string("tempo::faest::") + fn + ": " + what + " " + why + ", expected " +
                                std::to_string(len) + " bytes each");
  };
  if (o.is_fixed()) {
    if (o.stride != len) fail("have a stride of " + std::to_string(o.stride));
    return;
  }
  for (std::size_t i = 0; i + 1 < o.offsets.size(); ++i)
    if (o.offsets[i + 1] - o.offsets[i] != len)
      fail(std::to_string(i) + " is " + std::to_string(o.offsets[i + 1] - o.offsets[i]) + " bytes");
}

// Rows laid end to end with offsets: the engine's layout of the range forms' inputs.
// Wiped when destroyed where it holds secrets.
class Packed {
 public:
  Packed(Task& t, detail::Rows rows, bool secret) : offsets_(rows.size() + 1, 0), secret_(secret) {
    for (std::size_t i = 0; i < rows.size(); ++i) offsets_[i + 1] = offsets_[i] + rows[i].size();
    data_.resize(offsets_.back());
    tempo::parallel_for(t, std::size_t{0}, rows.size(), [&](std::size_t i) {
      if (!rows[i].empty()) std::memcpy(data_.data() + offsets_[i], rows[i].data(), rows[i].size());
    });
  }
  Packed(const Packed&) = delete;
  Packed& operator=(const Packed&) = delete;
  ~Packed() {
    if (secret_) secure_zero(data_);
  }
  gpu::Operand operand() const { return gpu::Operand::variable(data_, offsets_); }

 private:
  std::vector<std::uint8_t> data_;
  std::vector<std::uint64_t> offsets_;
  bool secret_;
};

}  // namespace

// ---- SignOp -------------------------------------------------------------------------------

SignOp::SignOp(Params p, RhoSource rho) : p_(p), rho_(rho) { detail::param_set(p); }

std::string SignOp::key() const { return std::string("faest-sign/") + set_suffix(p_); }
std::size_t SignOp::out_stride() const { return signature_size(p_); }
gpu::CostPrior SignOp::prior() const {
  return p_ == Params::faest_128f ? prior_of(0.86, 0.045) : prior_of(4.5, 0.21);
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
  forked(t, c.count, [&](Task* ti, std::size_t i) { sign_item(ti, c, i); });
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
  return p_ == Params::faest_128f ? prior_of(0.79, 0.037) : prior_of(3.5, 0.18);
}

void VerifyOp::cpu(const gpu::Chunk& c) const {
  for (std::size_t i = 0; i < c.count; ++i)
    c.out[i] = detail::verify_impl(nullptr, p_, c.in[0].item(i), c.in[1].item(i), c.in[2].item(i)) ? 1 : 0;
}

void VerifyOp::cpu_forked(Task& t, const gpu::Chunk& c) const {
  forked(t, c.count, [&](Task* ti, std::size_t i) {
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
  check_items("sign_batch", "secret keys", secret_keys, secret_key_size(p));
  return gpu::Engine::shared().run(t, op, {secret_keys, messages}, signatures_out, opt);
}

gpu::BatchReport sign_batch_deterministic(Task& t, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                          gpu::Operand rhos, std::span<std::uint8_t> signatures_out,
                                          gpu::RunOptions opt) {
  const SignOp op(p, RhoSource::input);
  check_items("sign_batch_deterministic", "secret keys", secret_keys, secret_key_size(p));
  return gpu::Engine::shared().run(t, op, {secret_keys, messages, rhos}, signatures_out, opt);
}

gpu::BatchReport verify_batch(Task& t, Params p, gpu::Operand public_keys, gpu::Operand messages,
                              gpu::Operand signatures, std::span<std::uint8_t> results_out, gpu::RunOptions opt) {
  const VerifyOp op(p);
  check_items("verify_batch", "public keys", public_keys, public_key_size(p));
  check_items("verify_batch", "signatures", signatures, signature_size(p));
  return gpu::Engine::shared().run(t, op, {public_keys, messages, signatures}, results_out, opt);
}

namespace detail {

gpu::BatchReport sign_rows(Task& t, Params p, Rows sks, Rows msgs, const Rows* rhos, OutRows outs,
                           const gpu::RunOptions& opt) {
  const char* fn = rhos != nullptr ? "sign_batch_deterministic" : "sign_batch";
  const std::size_t n = sks.size(), sig = signature_size(p);
  check_count(fn, "messages", msgs.size(), n);
  check_count(fn, "signatures_out", outs.size(), n);
  if (rhos != nullptr) check_count(fn, "rhos", rhos->size(), n);
  for (std::size_t i = 0; i < n; ++i) {  // every check before any work
    check_size("secret key", sks[i].size(), 32);
    check_size("signature buffer", outs[i].size(), sig);
  }
  const Packed keys(t, sks, true), messages(t, msgs, false);
  // Signatures go straight into the caller's rows when they are one array (numpy, a flat
  // buffer), else through one buffer.
  bool flat = true;
  for (std::size_t i = 1; i < n && flat; ++i) flat = outs[i].data() == outs[0].data() + i * sig;
  std::vector<std::uint8_t> buffer(flat ? 0 : n * sig);
  const std::span<std::uint8_t> out = flat ? std::span<std::uint8_t>(n != 0 ? outs[0].data() : nullptr, n * sig)
                                           : std::span<std::uint8_t>(buffer);
  gpu::BatchReport report;
  if (rhos != nullptr) {
    const Packed r(t, *rhos, true);
    report = sign_batch_deterministic(t, p, keys.operand(), messages.operand(), r.operand(), out, opt);
  } else {
    report = sign_batch(t, p, keys.operand(), messages.operand(), out, opt);
  }
  if (!flat)
    tempo::parallel_for(t, std::size_t{0}, n, [&](std::size_t i) { std::memcpy(outs[i].data(), out.data() + i * sig, sig); });
  return report;
}

gpu::BatchReport verify_rows(Task& t, Params p, Rows pks, Rows msgs, Rows sigs, std::span<std::uint8_t> results,
                             const gpu::RunOptions& opt) {
  const std::size_t n = pks.size(), sig = signature_size(p);
  check_count("verify_batch", "messages", msgs.size(), n);
  check_count("verify_batch", "signatures", sigs.size(), n);
  check_count("verify_batch", "results_out", results.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    check_size("public key", pks[i].size(), 32);
    check_size("signature", sigs[i].size(), sig);
  }
  const Packed keys(t, pks, false), messages(t, msgs, false), signatures(t, sigs, false);
  return verify_batch(t, p, keys.operand(), messages.operand(), signatures.operand(), results, opt);
}

}  // namespace detail
}  // namespace tempo::faest
