// PERK batches over the ranks: the family's public ops through the generic run().
#include <tempo/mpi/perk.hpp>

#include "signatures.hpp"

namespace tempo::mpi::perk {

using tempo::perk::Params;

Report sign_batch(Task& t, MPI_Comm comm, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                  std::span<std::uint8_t> signatures_out, const Options& opt) {
  const tempo::perk::SignOp op(p);
  const gpu::Operand ins[2] = {secret_keys, messages};
  return detail::run_signing(t, comm, op, ins, signatures_out, opt, "tempo::mpi::perk::sign_batch",
                             tempo::perk::secret_key_size(p));
}

Report sign_batch_deterministic(Task& t, MPI_Comm comm, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                gpu::Operand rands, std::span<std::uint8_t> signatures_out, const Options& opt) {
  const tempo::perk::SignOp op(p, tempo::perk::RandSource::input);
  const gpu::Operand ins[3] = {secret_keys, messages, rands};
  return detail::run_signing(t, comm, op, ins, signatures_out, opt, "tempo::mpi::perk::sign_batch_deterministic",
                             tempo::perk::secret_key_size(p));
}

Report verify_batch(Task& t, MPI_Comm comm, Params p, gpu::Operand public_keys, gpu::Operand messages,
                    gpu::Operand signatures, std::span<std::uint8_t> results_out, const Options& opt) {
  const tempo::perk::VerifyOp op(p);
  const gpu::Operand ins[3] = {public_keys, messages, signatures};
  return detail::run_verifying(t, comm, op, ins, results_out, opt, "tempo::mpi::perk::verify_batch",
                               tempo::perk::public_key_size(p), tempo::perk::signature_size(p));
}

}  // namespace tempo::mpi::perk
