// NTT batches over the ranks: ntt::NttOp through mpi::run, in ntt::forward_batch's shape
// with the communicator after the task. A batch is count polynomials of plan.n()
// coefficients laid end to end, as in <tempo/ntt/batch.hpp>.
#pragma once

#include <cstdint>
#include <span>

#include <tempo/mpi.hpp>
#include <tempo/ntt/batch.hpp>

namespace tempo::mpi::ntt {

// In place at the root (others pass {}). Every rank passes an equal plan (n and q are
// checked through the op's key). Coefficients are checked (< q) at the root before anything
// is sent: a bad one is std::invalid_argument on every rank.
Report forward_batch(Task& t, MPI_Comm comm, const tempo::ntt::Plan& plan, std::span<std::uint64_t> polys,
                     const Options& opt = {});
Report inverse_batch(Task& t, MPI_Comm comm, const tempo::ntt::Plan& plan, std::span<std::uint64_t> polys,
                     const Options& opt = {});
// out[i] = a[i] * b[i] mod (X^n + 1, q); out may alias a (not b).
Report multiply_batch(Task& t, MPI_Comm comm, const tempo::ntt::Plan& plan, std::span<const std::uint64_t> a,
                      std::span<const std::uint64_t> b, std::span<std::uint64_t> out, const Options& opt = {});

}  // namespace tempo::mpi::ntt
