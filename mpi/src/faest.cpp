// FAEST batches over the ranks: the family's public ops through the generic run().
#include <tempo/mpi/faest.hpp>

#include "signatures.hpp"

namespace tempo::mpi::faest {

using tempo::faest::Params;

Report sign_batch(Task& t, MPI_Comm comm, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                  std::span<std::uint8_t> signatures_out, const Options& opt) {
  const tempo::faest::SignOp op(p);
  const gpu::Operand ins[2] = {secret_keys, messages};
  return detail::run_signing(t, comm, op, ins, signatures_out, opt, "tempo::mpi::faest::sign_batch",
                             tempo::faest::secret_key_size(p));
}

Report sign_batch_deterministic(Task& t, MPI_Comm comm, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                gpu::Operand rhos, std::span<std::uint8_t> signatures_out, const Options& opt) {
  const tempo::faest::SignOp op(p, tempo::faest::RhoSource::input);
  const gpu::Operand ins[3] = {secret_keys, messages, rhos};
  return detail::run_signing(t, comm, op, ins, signatures_out, opt, "tempo::mpi::faest::sign_batch_deterministic",
                             tempo::faest::secret_key_size(p));
}

Report verify_batch(Task& t, MPI_Comm comm, Params p, gpu::Operand public_keys, gpu::Operand messages,
                    gpu::Operand signatures, std::span<std::uint8_t> results_out, const Options& opt) {
  const tempo::faest::VerifyOp op(p);
  const gpu::Operand ins[3] = {public_keys, messages, signatures};
  return detail::run_verifying(t, comm, op, ins, results_out, opt, "tempo::mpi::faest::verify_batch",
                               tempo::faest::public_key_size(p), tempo::faest::signature_size(p));
}

}  // namespace tempo::mpi::faest
