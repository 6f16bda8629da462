// TFHE gate batches over the ranks (tempo::tfhe::eval_gates on each rank's share).
#pragma once

#include <span>

#include <tempo/mpi.hpp>
#include <tempo/tfhe.hpp>

namespace tempo::mpi {

// out[i] = g(xs[i], ys[i]) as tfhe::eval_gates, over the ranks. Collective; only the
// root's xs, ys and out are used (others pass {}). Every rank passes the same evaluation
// key (e.g. made from the same seed: keys are large and travel by the caller's means);
// the parameter set is checked, the key itself is not. Byte-identical to eval_gates.
Report tfhe_eval_gates(Task& t, MPI_Comm comm, const tfhe::EvaluationKey& ek, tfhe::Gate g,
                       std::span<const tfhe::Ciphertext> xs, std::span<const tfhe::Ciphertext> ys,
                       std::span<tfhe::Ciphertext> out, tfhe::Backend backend = tfhe::backend_from_env(),
                       const Options& opt = {});

}  // namespace tempo::mpi
