// FAEST batch signing over the ranks (tempo::faest::sign_batch_spans on each rank's share).
#pragma once

#include <span>

#include <tempo/faest.hpp>
#include <tempo/mpi.hpp>

namespace tempo::mpi {

// signatures_out[i * signature_size(p), ...) = sign(p, secret_keys[i], messages[i], rhos[i]).
// Collective; only the root's spans are read (others pass {}). rhos empty: the root draws
// 16 random bytes per item (faest::os_random); with rhos the output is byte-identical to
// faest::sign_batch_spans on one process.
// Secret keys travel to the other ranks in the clear over the MPI transport (run it on
// a network you trust); every copy is zeroed after use.
Report faest_sign_batch(Task& t, MPI_Comm comm, faest::Params p, std::span<const std::span<const std::uint8_t>> secret_keys,
                        std::span<const std::span<const std::uint8_t>> messages,
                        std::span<const std::span<const std::uint8_t>> rhos, std::span<std::uint8_t> signatures_out,
                        faest::Backend backend = faest::Backend::cpu, const Options& opt = {});

}  // namespace tempo::mpi
