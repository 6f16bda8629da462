// TFHE batches over the ranks: tfhe::GateOp and BootstrapOp through mpi::run, in the
// family's batch shape (<tempo/tfhe/batch.hpp>) with the communicator after the task.
#pragma once

#include <span>

#include <tempo/mpi.hpp>
#include <tempo/tfhe.hpp>

namespace tempo::mpi::tfhe {

// out[i] = g(xs[i], ys[i]) as tempo::tfhe::eval_gates, over the ranks. Collective; only
// the root's xs, ys and out are used (others pass {}). Every rank passes the same evaluation
// key (keys are large and travel by the caller's means); the parameter set and the gate are
// checked through the op's key, the key itself is not. Byte-identical to eval_gates.
Report eval_gates(Task& t, MPI_Comm comm, const tempo::tfhe::EvaluationKey& ek, tempo::tfhe::Gate g,
                  std::span<const tempo::tfhe::Ciphertext> xs, std::span<const tempo::tfhe::Ciphertext> ys,
                  std::span<tempo::tfhe::Ciphertext> out, const Options& opt = {});
// out[i] = eval_bootstrap(cs[i]) as tempo::tfhe::eval_bootstraps, over the ranks.
Report eval_bootstraps(Task& t, MPI_Comm comm, const tempo::tfhe::EvaluationKey& ek,
                       std::span<const tempo::tfhe::Ciphertext> cs, std::span<tempo::tfhe::Ciphertext> out,
                       const Options& opt = {});

}  // namespace tempo::mpi::tfhe
