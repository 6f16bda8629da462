// Internal, no stable API: a batch staged through pinned host slices, two in flight. The
// host prepares slice k + 1 while the device runs slice k, and finishes slice k while the
// device runs slice k + 1. Used by the batches whose device stage sits between per-item
// host halves (FAEST signing and verification, PERK signing).
//
//   run_slices(t, engine, op, n, in_stride, out_stride, {.slice = 4096, .ramp = true},
//              [&](const SliceView& s, std::size_t q) { /* write item s.first + q at s.in_item(q) */ },
//              [&](const SliceView& s, std::size_t q) { /* read s.out_item(q) */ });
//
// When the op holds secrets (BatchOp::holds_secrets: signing), each item's staged input and
// output are wiped right after finish() returns for it; a slice's buffers are wiped before
// they go back to the pool if an exception left items unfinished. The buffers come from
// slice_pool() at the batch's largest slice size, so a later, larger slice never re-pins.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <utility>

#include <tempo/gpu/detail/host_buffer_pool.hpp>
#include <tempo/gpu/engine.hpp>
#include <tempo/secure_zero.hpp>
#include <tempo/tempo.hpp>

namespace tempo::gpu::detail {

// One slice as the callbacks see it: items [first, first + count) of the batch. `slot`
// (0 or 1) tells the two slices in flight apart, for side data the caller keeps per slot.
struct SliceView {
  std::uint8_t* in;
  std::uint8_t* out;
  std::size_t in_stride, out_stride;
  std::size_t first, count;
  unsigned slot;
  std::uint8_t* in_item(std::size_t q) const { return in + q * in_stride; }
  std::uint8_t* out_item(std::size_t q) const { return out + q * out_stride; }
};

struct SliceOptions {
  std::size_t slice = 1;  // items per slice (at least 1)
  // The first slices hold slice / 4 and slice / 2 items, so that the host starts finishing
  // early instead of waiting for a whole slice's device stage.
  bool ramp = false;
  // A host timeline on stderr (allocation, prepare, submit, join, finish per slice), each
  // line starting with `name`.
  bool profile = false;
  const char* name = "slices";
};

namespace slices {

struct Slot {
  HostBuffer in, out;
  Offload offload;
  std::size_t first = 0, count = 0;
  bool dirty = false;  // in/out hold items not yet finished (finished secret ones are wiped one by one)
  Slot() = default;
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() {
    offload = Offload{};  // waits for the device first (an exception left it running)
    if (dirty) {
      secure_zero(in.data(), in.size());
      secure_zero(out.data(), out.size());
    }
    if (in.data() != nullptr) slice_pool().give_back(std::move(in));
    if (out.data() != nullptr) slice_pool().give_back(std::move(out));
  }
  // `n` items now, at most `most` in any slice of the batch: the buffers are taken at their
  // final size, so that the pool's best fit for a small first slice (possibly a buffer an
  // input slice left, too small for an output one) is never regrown and pinned anew later
  // (~25 ms for a slice of 4,096 on the device host).
  void size_for(std::size_t n, std::size_t most, std::size_t in_stride, std::size_t out_stride) {
    count = n;
    if (in.data() == nullptr) in = slice_pool().take(most * in_stride);
    if (out.data() == nullptr) out = slice_pool().take(most * out_stride);
    in.resize(n * in_stride);
    out.resize(n * out_stride);
  }
};

}  // namespace slices

// Runs prepare(view, q) for every item q of every slice, the slice's device stage (op on
// the devices: the caller's placement already said gpu), then finish(view, q) and the
// item's wipe.
template <class Prepare, class Finish>
void run_slices(Task& t, Engine& e, const BatchOp& op, std::size_t n, std::size_t in_stride, std::size_t out_stride,
                const SliceOptions& o, Prepare&& prepare, Finish&& finish) {
  const std::size_t slice = std::max<std::size_t>(o.slice, 1), most = std::min(slice, n);
  slices::Slot slots[2];
  const RunOptions opt(Backend::cuda);
  using clk = std::chrono::steady_clock;
  auto ms = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const auto start = clk::now();
  // Items of an op that holds no secrets (verification: public keys and signatures) are
  // not wiped one by one, as the engine does not wipe its copies of them.
  const bool wipe_items = op.holds_secrets();
  // The host halves' loops: about four grains per worker, so that a loop whose grain takes
  // a good part of a heartbeat is a heavy one (tempo/detail/for_loop.hpp) and takes the
  // whole pool at once instead of a heartbeat later.
  auto host_grain = [&](std::size_t count) { return std::max<std::size_t>(1, count / (4 * t.thread_count())); };
  auto view = [&](slices::Slot& s, unsigned k) {
    return SliceView{s.in.data(), s.out.data(), in_stride, out_stride, s.first, s.count, k};
  };
  auto complete = [&](unsigned k) {
    slices::Slot& s = slots[k];
    const auto t0 = clk::now();
    const BatchReport r = s.offload.join(t);
    const auto t1 = clk::now();
    const SliceView v = view(s, k);
    parallel_for(t, std::size_t{0}, s.count, grain{host_grain(s.count)}, [&](std::size_t q) {
      finish(v, q);
      if (wipe_items) {
        secure_zero(v.in_item(q), in_stride);
        secure_zero(v.out_item(q), out_stride);
      }
    });
    s.dirty = false;
    if (o.profile)
      std::fprintf(stderr,
                   "%s host: at %.2f slice at %zu: join %.2f (device: in %.2f kernels %.2f out %.2f) finish %.2f ms\n",
                   o.name, ms(start, t0), s.first, ms(t0, t1), r.copy_in_ms, r.kernel_ms, r.copy_out_ms,
                   ms(t1, clk::now()));
  };
  std::size_t k = 0, size = o.ramp ? std::max<std::size_t>(1, slice / 4) : slice;
  for (std::size_t first = 0; first < n; first += size, size = std::min(slice, 2 * size), ++k) {
    const unsigned at = static_cast<unsigned>(k % 2);
    slices::Slot& s = slots[at];
    const auto t0 = clk::now();
    s.first = first;
    s.size_for(std::min(size, n - first), most, in_stride, out_stride);
    s.dirty = true;
    const auto t1 = clk::now();
    const SliceView v = view(s, at);
    parallel_for(t, std::size_t{0}, s.count, grain{host_grain(s.count)}, [&](std::size_t q) { prepare(v, q); });
    const auto t2 = clk::now();
    s.offload = e.submit(t, op, {Operand::fixed(s.in.span(), in_stride)}, s.out.span(), opt);
    if (o.profile)
      std::fprintf(stderr, "%s host: at %.2f slice at %zu, %zu items: alloc %.2f prepare %.2f submit %.2f ms\n", o.name,
                   ms(start, t0), first, s.count, ms(t0, t1), ms(t1, t2), ms(t2, clk::now()));
    if (k > 0) complete(at ^ 1u);
  }
  if (k > 0) complete(static_cast<unsigned>((k - 1) % 2));
}

}  // namespace tempo::gpu::detail
