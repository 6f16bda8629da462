// The signature families' batch calls over the ranks: the root's length checks, then run().
#include "signatures.hpp"

#include <stdexcept>
#include <string>

#include <tempo/gpu/rows.hpp>

#include "internal.hpp"

namespace tempo::mpi::detail {
namespace {

// gpu::rows::check_lengths's message, or empty when every item of `o` is `len` bytes.
std::string length_error(std::string_view who, const char* what, const gpu::Operand& o, std::size_t len) {
  try {
    gpu::rows::check_lengths(who, what, o, len);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

Report run_signing(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> ins,
                   std::span<std::uint8_t> out, const Options& opt, std::string_view who, std::size_t sk_len) {
  Options o = opt;
  o.wipe_inputs = true;  // secret keys
  if (!is_root(comm, o.root)) return run_checked(t, comm, op, {}, {}, o, {});
  const std::string error = length_error(who, "secret key", ins[0], sk_len);
  if (!error.empty()) return run_checked(t, comm, op, {}, {}, o, error);
  return run_checked(t, comm, op, ins, out, o, {});
}

Report run_verifying(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> ins,
                     std::span<std::uint8_t> out, const Options& opt, std::string_view who, std::size_t pk_len,
                     std::size_t sig_len) {
  if (!is_root(comm, opt.root)) return run_checked(t, comm, op, {}, {}, opt, {});
  std::string error = length_error(who, "public key", ins[0], pk_len);
  if (error.empty()) error = length_error(who, "signature", ins[2], sig_len);
  if (!error.empty()) return run_checked(t, comm, op, {}, {}, opt, error);
  return run_checked(t, comm, op, ins, out, opt, {});
}

}  // namespace tempo::mpi::detail
