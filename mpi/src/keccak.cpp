// Keccak batches over the ranks: keccak::HashOp through the generic run().
#include <stdexcept>
#include <vector>

#include <tempo/mpi/keccak.hpp>

#include "internal.hpp"

namespace tempo::mpi::keccak {

using tempo::keccak::FixedBatch;
using tempo::keccak::HashOp;
using tempo::keccak::MessageBatch;

Report hash_batch(Task& t, MPI_Comm comm, tempo::keccak::Algorithm a, const MessageBatch& batch,
                  std::size_t out_bytes, std::span<std::uint8_t> out, const Options& opt) {
  const HashOp op(a, out_bytes);  // the same arguments everywhere: throws everywhere
  if (!detail::is_root(comm, opt.root)) return detail::run_checked(t, comm, op, {}, {}, opt, {});
  std::string error;
  try {
    batch.validate();
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  const gpu::Operand in = gpu::Operand::variable(batch.data, batch.offsets);
  return detail::run_checked(t, comm, op, error.empty() ? std::span(&in, 1) : std::span<const gpu::Operand>{}, out,
                             opt, error);
}

Report hash_batch(Task& t, MPI_Comm comm, tempo::keccak::Algorithm a, const FixedBatch& batch,
                  std::size_t out_bytes, std::span<std::uint8_t> out, const Options& opt) {
  const HashOp op(a, out_bytes);
  if (!detail::is_root(comm, opt.root)) return detail::run_checked(t, comm, op, {}, {}, opt, {});
  std::string error;
  try {
    batch.validate();
  } catch (const std::invalid_argument& e) {
    error = e.what();
  }
  // Empty messages: a stride-0 operand has no item count, so they go by offsets (all 0).
  std::vector<std::uint64_t> zeros(batch.msg_len == 0 && error.empty() ? batch.count + 1 : 0, 0);
  const gpu::Operand in = batch.msg_len == 0 ? gpu::Operand::variable(batch.data, zeros)
                                             : gpu::Operand::fixed(batch.data, batch.msg_len);
  return detail::run_checked(t, comm, op, error.empty() ? std::span(&in, 1) : std::span<const gpu::Operand>{}, out,
                             opt, error);
}

}  // namespace tempo::mpi::keccak
