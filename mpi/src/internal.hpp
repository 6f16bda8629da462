// The distribution mechanism, shared by run() and the family wrappers (keccak, ntt, tfhe, faest).
#pragma once

#include <functional>
#include <string>

#include <tempo/mpi.hpp>

namespace tempo::mpi::detail {

// What travels with each item, derived from the BatchOp by run_checked.
struct ItemKind {
  std::string key;                        // the same on every rank (checked)
  std::size_t inputs = 1;                 // 1..gpu::kMaxInputs
  std::size_t out_stride = 0;             // output bytes per item
  std::function<double(double)> work;     // work of one item from its input bytes; empty: 1
};
// Computes the chunk's items on this rank (host pointers; c.out has c.count * out_stride
// bytes; c.begin is the first item's index in the whole batch). Called on the calling
// thread with its task, once per piece, pieces in order. (A BatchOp under run() is given
// to Engine::run piece by piece, so its cpu() sees Chunk::begin counted from the piece.)
using Compute = std::function<void(Task&, const gpu::Chunk&)>;

// The mechanism under run(), over any per-rank computation. The root may already know its
// batch is bad (root_error non-empty): then every rank throws
// std::invalid_argument(root_error) and nothing is sent.
Report run_items_checked(Task& t, MPI_Comm comm, const ItemKind& kind, std::span<const gpu::Operand> inputs,
                         gpu::Output out, const Compute& compute, const Options& opt, const std::string& root_error);
// run over a BatchOp, likewise.
Report run_checked(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> inputs,
                   gpu::Output out, const Options& opt, const std::string& root_error);

bool is_root(MPI_Comm comm, int root);

}  // namespace tempo::mpi::detail
