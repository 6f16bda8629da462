// HashOp: the Keccak family as a tempo::gpu::BatchOp, and the hash_batch / submit wrappers.
#include <algorithm>
#include <string>

#include "batch_core.hpp"
#include "tempo/keccak/offload.hpp"
#include "tempo/tempo.hpp"

#if defined(TEMPO_KECCAK_HAVE_CUDA)
#include "tempo/keccak/detail/kernels.hpp"
#endif

namespace tempo::keccak {
namespace {

// Messages longer than this are hashed by the CPU even inside GPU chunks: one GPU
// thread needs ~2 us per Keccak-f, a CPU core ~0.15 us, so a single 8 MiB message
// (62k permutations) would keep a GPU thread busy for ~120 ms.
constexpr std::uint64_t kMaxGpuMessage = 8u << 20;

void validate_out_bytes(Algorithm a, std::size_t out_bytes) {
  const std::string name(algorithm_name(a));
  if (out_bytes == 0) throw std::invalid_argument("tempo::keccak::hash_batch: out_bytes is 0");
  if (!is_xof(a) && out_bytes != fixed_digest_bytes(a))
    throw std::invalid_argument("tempo::keccak::hash_batch: " + name + " produces " +
                                std::to_string(fixed_digest_bytes(a)) + "-byte digests, not " +
                                std::to_string(out_bytes));
  if (out_bytes > (1u << 30)) throw std::invalid_argument("tempo::keccak::hash_batch: out_bytes over 1 GiB");
}

void validate_out(std::size_t n, std::size_t out_bytes, std::span<std::uint8_t> out) {
  if (n == 0 && !out.empty()) throw std::invalid_argument("tempo::keccak::hash_batch: out must be empty for no messages");
  if (n != 0 && (out.size() / n != out_bytes || out.size() % n != 0))
    throw std::invalid_argument("tempo::keccak::hash_batch: out holds " + std::to_string(out.size()) +
                                " bytes, expected " + std::to_string(n) + " x " + std::to_string(out_bytes));
}

// Fixed-stride chunks: offsets for up to kRun messages at a time, on the stack, so the
// grouped 4-way path sees an ordinary MessageBatch.
constexpr std::size_t kRun = 256;

gpu::Operand operand_of(const MessageBatch& b) {
  b.validate();
  return gpu::Operand::variable(b.data, b.offsets);
}

gpu::Operand operand_of(const FixedBatch& b) {
  b.validate();
  return gpu::Operand::fixed(b.data, b.msg_len);
}

std::size_t count_of(const MessageBatch& b) { return b.size(); }
std::size_t count_of(const FixedBatch& b) { return b.count; }

template <class Batch>
gpu::BatchReport run(Task& t, Algorithm a, const Batch& batch, std::size_t out_bytes, std::span<std::uint8_t> out,
                     gpu::RunOptions opt) {
  validate_out_bytes(a, out_bytes);
  const gpu::Operand in = operand_of(batch);
  validate_out(count_of(batch), out_bytes, out);
  const HashOp op(a, out_bytes);
  std::string note;
  if (opt.backend == tempo::Backend::cuda && !gpu_supports(a)) {
    gpu::require(tempo::Backend::cuda);
    opt.backend = tempo::Backend::cpu;
    note = "no GPU kernel for " + std::string(algorithm_name(a)) + ": CPU";
  }
  // Zero-length fixed messages: the engine counts items from the output.
  gpu::BatchReport r = gpu::Engine::shared().run(t, op, {in}, out, opt);
  if (!note.empty()) r.reason = note;
  return r;
}

template <class Batch>
gpu::Offload submit_impl(Task& t, Algorithm a, const Batch& batch, std::size_t out_bytes,
                         std::span<std::uint8_t> out, gpu::RunOptions opt) {
  validate_out_bytes(a, out_bytes);
  const gpu::Operand in = operand_of(batch);
  validate_out(count_of(batch), out_bytes, out);
  if (opt.backend == tempo::Backend::cuda && !gpu_supports(a)) {
    gpu::require(tempo::Backend::cuda);
    opt.backend = tempo::Backend::cpu;
  }
  return gpu::Engine::shared().submit(t, std::make_shared<const HashOp>(a, out_bytes), std::span(&in, 1), out, opt);
}

}  // namespace

void FixedBatch::validate() const {
  if (msg_len != 0 && count > data.size() / msg_len)
    throw std::invalid_argument("tempo::keccak::FixedBatch: " + std::to_string(count) + " messages of " +
                                std::to_string(msg_len) + " bytes do not fit in " + std::to_string(data.size()) +
                                " bytes of data");
  if (data.size() != msg_len * count)
    throw std::invalid_argument("tempo::keccak::FixedBatch: data holds " + std::to_string(data.size()) +
                                " bytes, expected count * msg_len = " + std::to_string(msg_len * count));
}

bool gpu_supports(Algorithm a) noexcept { return a != Algorithm::kt128 && a != Algorithm::kt256; }

HashOp::HashOp(Algorithm a, std::size_t out_bytes) : a_(a), out_bytes_(out_bytes) { validate_out_bytes(a, out_bytes); }

std::string HashOp::key() const { return "keccak/" + std::string(algorithm_name(a_)); }

double HashOp::work(double in_bytes) const {
  const double rate = static_cast<double>(rate_bytes(a_));
  const double squeeze_extra = out_bytes_ > rate_bytes(a_) ? static_cast<double>((out_bytes_ - 1) / rate_bytes(a_)) : 0.0;
  return 1.0 + squeeze_extra + in_bytes / rate;
}

// Measured or derived on the H200 host (docs/gpu.md, "Cost prior"): CPU ~150 ns
// per Keccak-f per core, a little per byte, 2 us per block; GPU ~60 us fixed (hand-off,
// launch, sync), 0.28 ns per Keccak-f (3.5 G/s), PCIe ~60-100 GB/s in+out.
gpu::CostPrior HashOp::prior() const {
  gpu::CostPrior p;
  p.cpu_fixed = 0.002;
  p.cpu_per_work = 150e-6;
  p.cpu_per_byte = 0.05e-6;
  p.gpu_fixed = 0.060;
  p.gpu_per_work = 0.28e-6;
  p.gpu_per_byte = 0.015e-6;
  return p;
}

void HashOp::cpu(const gpu::Chunk& c) const {
  const gpu::ChunkInput& in = c.in[0];
  if (in.offsets != nullptr) {
    // SAFETY: chunk offsets index the caller's whole array, whose base is data - offsets[0].
    const std::uint8_t* base = in.data - in.offsets[0];
    MessageBatch b{{base, static_cast<std::size_t>(in.offsets[c.count])}, {in.offsets, c.count + 1}};
    detail::hash_batch_range(a_, b, out_bytes_, c.out, 0, c.count);
    return;
  }
  std::uint64_t offsets[kRun + 1];
  for (std::size_t s = 0; s < c.count; s += kRun) {
    const std::size_t m = std::min(kRun, c.count - s);
    for (std::size_t i = 0; i <= m; ++i) offsets[i] = i * in.stride;
    MessageBatch b{{in.data + s * in.stride, m * in.stride}, {offsets, m + 1}};
    detail::hash_batch_range(a_, b, out_bytes_, c.out + s * out_bytes_, 0, m);
  }
}

bool HashOp::has_cuda() const {
#if defined(TEMPO_KECCAK_HAVE_CUDA)
  return gpu_supports(a_);
#else
  return false;
#endif
}

std::uint64_t HashOp::max_device_item() const { return kMaxGpuMessage; }

int HashOp::cuda(const gpu::Chunk& c, const gpu::DeviceContext& ctx) const {
#if defined(TEMPO_KECCAK_HAVE_CUDA)
  const cuda::SpongeSpec s = cuda::sponge_spec(a_, out_bytes_);
  const gpu::ChunkInput& in = c.in[0];
  if (in.offsets == nullptr) return cuda::launch_fixed(ctx.stream, in.data, in.stride, c.out, c.count, s);
  return cuda::launch_var(ctx.stream, in.data, in.offsets, c.out, c.count, kMaxGpuMessage, s);
#else
  (void)c;
  (void)ctx;
  return 0;
#endif
}

gpu::BatchReport hash_batch(Task& t, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                            std::span<std::uint8_t> out, gpu::RunOptions opt) {
  return run(t, a, batch, out_bytes, out, opt);
}
gpu::BatchReport hash_batch(Task& t, Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                            std::span<std::uint8_t> out, gpu::RunOptions opt) {
  return run(t, a, batch, out_bytes, out, opt);
}
gpu::Offload submit(Task& t, Algorithm a, const MessageBatch& batch, std::size_t out_bytes,
                    std::span<std::uint8_t> out, gpu::RunOptions opt) {
  return submit_impl(t, a, batch, out_bytes, out, opt);
}
gpu::Offload submit(Task& t, Algorithm a, const FixedBatch& batch, std::size_t out_bytes,
                    std::span<std::uint8_t> out, gpu::RunOptions opt) {
  return submit_impl(t, a, batch, out_bytes, out, opt);
}

}  // namespace tempo::keccak
