// PERK batches over the ranks: perk::SignOp and VerifyOp through mpi::run, in the family's
// flat batch shape (<tempo/perk.hpp>) with the communicator after the task.
#pragma once

#include <cstdint>
#include <span>

#include <tempo/mpi.hpp>
#include <tempo/perk.hpp>

namespace tempo::mpi::perk {

// As tempo::perk::sign_batch, over the ranks: each rank draws its items' rand from its OS.
// Collective; only the root's operands and output are read (others pass {}). Secret keys
// travel to the other ranks in the clear over the MPI transport (run it on a network you
// trust); every copy is zeroed after use.
Report sign_batch(Task& t, MPI_Comm comm, tempo::perk::Params p, gpu::Operand secret_keys, gpu::Operand messages,
                  std::span<std::uint8_t> signatures_out, const Options& opt = {});
// As tempo::perk::sign_batch_deterministic (tests and known answers): byte-identical to it.
Report sign_batch_deterministic(Task& t, MPI_Comm comm, tempo::perk::Params p, gpu::Operand secret_keys,
                                gpu::Operand messages, gpu::Operand rands, std::span<std::uint8_t> signatures_out,
                                const Options& opt = {});
// As tempo::perk::verify_batch: one byte per signature, 1 when it verifies.
Report verify_batch(Task& t, MPI_Comm comm, tempo::perk::Params p, gpu::Operand public_keys, gpu::Operand messages,
                    gpu::Operand signatures, std::span<std::uint8_t> results_out, const Options& opt = {});

}  // namespace tempo::mpi::perk
