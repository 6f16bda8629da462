// What a workload gives the engine: a batch operation (BatchOp) over items laid out
// at a fixed stride or by offsets, with a CPU implementation over an index range and,
// optionally, a CUDA launch over a chunk already on a device.
//
// The engine owns placement (CPU, GPU, or both from the two ends of the batch),
// chunking, staging, streams, copies and calibration; the op owns only the per-item
// computation. An op object must be safe to call from several threads at once on
// disjoint chunks (const member functions over immutable state do that).
//
// A complete user-defined operation, with its own kernel, is in docs/gpu-engine.md
// and examples/offload_op.cu (tested in CI on the CPU path and on the device).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>

namespace tempo {
class Task;  // <tempo/tempo.hpp>
}

namespace tempo::gpu {

class Engine;

// One input of a batch: `count` items, either at a fixed stride (offsets empty) or
// item i = data[offsets[i], offsets[i+1]) with offsets.size() == count + 1,
// offsets[0] == 0, non-decreasing, offsets[count] == data.size().
struct Operand {
  std::span<const std::uint8_t> data;
  std::size_t stride = 0;
  std::span<const std::uint64_t> offsets;

  static Operand fixed(std::span<const std::uint8_t> data, std::size_t stride) noexcept {
    return Operand{data, stride, {}};
  }
  static Operand variable(std::span<const std::uint8_t> data, std::span<const std::uint64_t> offsets) noexcept {
    return Operand{data, 0, offsets};
  }
  bool is_fixed() const noexcept { return offsets.empty(); }
};

// The output of a batch: count * out_stride bytes (out_stride is the op's).
using Output = std::span<std::uint8_t>;

constexpr std::size_t kMaxInputs = 4;

// One input as a chunk sees it. Item i (0 <= i < count) of the chunk is
//   fixed:    data + i * stride, `stride` bytes
//   variable: data + (offsets[i] - offsets[0]), offsets[i+1] - offsets[i] bytes
// On the device, offsets point to device memory and offsets[0] == 0 (the engine rebases
// them); on the host they point into the caller's array.
struct ChunkInput {
  const std::uint8_t* data = nullptr;
  std::size_t stride = 0;
  const std::uint64_t* offsets = nullptr;  // nullptr: fixed stride

  // Host side only (dereferences offsets).
  std::span<const std::uint8_t> item(std::size_t i) const noexcept {
    if (offsets == nullptr) return {data + i * stride, stride};
    return {data + (offsets[i] - offsets[0]), static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
  }
};

// Items [begin, begin + count) of a batch, on the host (BatchOp::cpu) or on one
// device (BatchOp::cuda). Item i's output is out + i * out_stride. When the op runs
// in place, out may equal inputs[0].data (same stride).
struct Chunk {
  std::size_t begin = 0;  // index of the chunk's first item in the whole batch
  std::size_t count = 0;
  // Items in the whole batch (0: unknown). A batch's device chunks run side by side on
  // several streams, so a kernel that picks its launch shape by how many items share the
  // device looks at this, not at count.
  std::size_t batch = 0;
  std::array<ChunkInput, kMaxInputs> in{};
  std::size_t inputs = 0;
  std::uint8_t* out = nullptr;
  std::size_t out_stride = 0;
  std::span<std::uint8_t> out_item(std::size_t i) const noexcept { return {out + i * out_stride, out_stride}; }
};

// Where a CUDA launch goes: the device (already current on the calling thread) and
// the stream the engine owns for this chunk. `stream` is a cudaStream_t.
struct DeviceContext {
  int device = 0;
  void* stream = nullptr;
};

// Linear cost priors of one operation, in milliseconds, before any measurement:
//   CPU, one core:     cpu_fixed + cpu_per_work * work + cpu_per_byte * bytes
//   GPU, one device:   gpu_fixed + gpu_per_work * work + gpu_per_byte * bytes (host to host)
// `work` is the sum of BatchOp::work over the items, `bytes` all inputs plus output.
// The engine refines them online from every batch (per operation key).
struct CostPrior {
  double cpu_fixed = 0.002;
  double cpu_per_work = 1e-3;   // 1 us per work unit
  double cpu_per_byte = 0.05e-6;
  double gpu_fixed = 0.060;     // engine hand-off, launch, synchronise
  double gpu_per_work = 1e-6;   // 1 ns per work unit (the device is ~1000x wider)
  double gpu_per_byte = 0.02e-6;  // ~50 GB/s each way, both ways overlapped
  // The device's latency for one work unit of one item, when the op knows it: a device
  // cannot finish a batch before its longest item. 0: one GPU thread per item, about
  // CostModel::gpu_thread_slowdown times a CPU core's time (ops whose item is a whole
  // thread block, like a TFHE bootstrap, set it).
  double gpu_item_latency_per_work = 0;
};

class BatchOp {
 public:
  virtual ~BatchOp() = default;

  // Names the operation and its parameter set ("shake256/32", "ntt-fwd/PN10QP27"):
  // the cost model is calibrated per key. Stable for the op's lifetime.
  virtual std::string key() const = 0;
  // Inputs per item (1..kMaxInputs) and output bytes per item.
  virtual std::size_t inputs() const { return 1; }
  virtual std::size_t out_stride() const = 0;
  // Whether `out` may be the same memory as input 0 (then out_stride == input 0's stride).
  virtual bool in_place_ok() const { return false; }
  // Work units of one item whose inputs total `in_bytes` (e.g. Keccak-f calls);
  // the cost model is linear in the sum. Must be cheap: called per chunk, not per item,
  // with the chunk's average when items vary.
  virtual double work(double in_bytes) const {
    (void)in_bytes;
    return 1.0;
  }
  virtual CostPrior prior() const { return {}; }

  // Host: computes items [c.begin, c.begin + c.count). Called on tempo workers,
  // concurrently on disjoint chunks. Throws std::exception on failure.
  virtual void cpu(const Chunk& c) const = 0;

  // Host, with the pool: ops whose items take milliseconds (a bootstrap, a signature)
  // return true from forks_on_cpu() and get each CPU range whole in cpu_forked(), to split
  // it with t.join themselves (so that each heartbeat hands the largest remaining halves to
  // idle workers) instead of the engine's blocks of about 100 us. Where the engine shares
  // a batch with the devices it still calls cpu() on claimed blocks.
  virtual bool forks_on_cpu() const { return false; }
  virtual void cpu_forked(Task& t, const Chunk& c) const {
    (void)t;
    cpu(c);
  }

  // Device: enqueues the chunk's work on ctx.stream and returns without synchronising.
  // Pointers in `c` are device pointers. Returns a cudaError_t (0 = success), e.g. the
  // value of cudaGetLastError() after the launch. Only called when has_cuda().
  virtual bool has_cuda() const { return false; }
  virtual int cuda(const Chunk& c, const DeviceContext& ctx) const {
    (void)c;
    (void)ctx;
    return 0;
  }
  // Staged device paths: ops whose GPU form is not one kernel per chunk but host stages
  // around device stages (FAEST and PERK: the host prepares each signature's inputs, the
  // device runs the whole proof and the opening, the host copies the signature out) return
  // true from has_staged_gpu() and implement gpu_staged(): when the placement is gpu
  // (Backend::cuda, or the cost model under auto), the engine calls it once with the whole
  // batch (host pointers, as cpu()), and the op runs its device stages through `engine`
  // (Engine::run with its own stage ops). The engine times the call and feeds the op's cost
  // model with it, so auto learns where such an op pays like any other. Such an op is never split between CPU and GPU.
  // Only called when has_staged_gpu() and not has_cuda().
  virtual bool has_staged_gpu() const { return false; }
  virtual void gpu_staged(Task& t, Engine& engine, const Chunk& c) const {
    (void)t;
    (void)engine;
    cpu(c);
  }
  // Items whose input 0 is longer than this are left to the CPU even inside a GPU
  // chunk: the kernel must skip them (leave their output untouched); the engine
  // computes them with cpu() afterwards. Fixed-stride batches longer than this run on the CPU.
  virtual std::uint64_t max_device_item() const { return std::numeric_limits<std::uint64_t>::max(); }
  // The fewest items a device chunk should hold (up to the whole batch). The engine sizes
  // chunks by bytes, for copies and kernels to overlap; an op whose kernels run a thread or
  // a warp per item through serial stages (a signature's hashes, its opening) needs
  // thousands of items per launch to fill the device, whatever their bytes.
  virtual std::size_t min_device_chunk() const { return 1; }
  // True when items carry secrets (signing keys, seeds). The engine then zeroes its own
  // copies of every chunk once the chunk is done: the pinned staging slots and the
  // lane's device input and output buffers (a memset each, queued before the chunk
  // counts as complete). The caller's memory, DeviceBatch and DeviceConstants are the
  // caller's to wipe.
  virtual bool holds_secrets() const { return false; }
  // Device input buffers carry kDevicePadding bytes of readable slack after the last item.
};

// Readable slack after a chunk's last input byte in device buffers (vector loads).
constexpr std::size_t kDevicePadding = 64;

}  // namespace tempo::gpu
