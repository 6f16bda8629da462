// The signature families' batch calls over the ranks (faest, perk): the root checks the key
// and signature lengths before anything is sent (every rank then throws the same one-line
// error), and signing wipes every rank's copy of the secret keys.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include <tempo/mpi.hpp>

namespace tempo::mpi::detail {

// ins[0]: the secret keys, each sk_len bytes. `who` names the call in errors
// ("tempo::mpi::perk::sign_batch").
Report run_signing(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> ins,
                   std::span<std::uint8_t> out, const Options& opt, std::string_view who, std::size_t sk_len);
// ins: the public keys (pk_len bytes each), the messages, the signatures (sig_len bytes each).
Report run_verifying(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> ins,
                     std::span<std::uint8_t> out, const Options& opt, std::string_view who, std::size_t pk_len,
                     std::size_t sig_len);

}  // namespace tempo::mpi::detail
