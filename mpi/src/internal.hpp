// Entry points shared by the convenience wrappers (keccak, faest, tfhe).
#pragma once

#include <string>

#include <tempo/mpi.hpp>

namespace tempo::mpi::detail {

// run_items, where the root may already know its batch is bad (root_error non-empty):
// then every rank throws std::invalid_argument(root_error), nothing is sent.
Report run_items_checked(Task& t, MPI_Comm comm, const ItemKind& kind, std::span<const gpu::Operand> inputs,
                         gpu::Output out, const Compute& compute, const Options& opt, const std::string& root_error);
// run over a BatchOp, likewise.
Report run_checked(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> inputs,
                   gpu::Output out, const Options& opt, const std::string& root_error);

bool is_root(MPI_Comm comm, int root);

}  // namespace tempo::mpi::detail
