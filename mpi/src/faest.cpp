// FAEST batches over the ranks: the family's public ops through the generic run().
#include <tempo/mpi/faest.hpp>

#include <string>

#include "internal.hpp"

namespace tempo::mpi::faest {

namespace {
using tempo::faest::Params;

// Every item of `keys` is `len` bytes (a fixed stride, or offsets): else the message.
std::string check_lengths(const char* fn, const char* what, const gpu::Operand& keys, std::size_t len) {
  const auto bad = [&](std::size_t i, std::size_t got) {
    return std::string("tempo::mpi::faest::") + fn + ": " + what + " " + std::to_string(i) + " is " +
           std::to_string(got) + " bytes, not " + std::to_string(len);
  };
  if (keys.is_fixed()) return keys.stride == len || keys.data.empty() ? std::string() : bad(0, keys.stride);
  for (std::size_t i = 0; i + 1 < keys.offsets.size(); ++i)
    if (keys.offsets[i + 1] - keys.offsets[i] != len) return bad(i, keys.offsets[i + 1] - keys.offsets[i]);
  return {};
}

Report sign(Task& t, MPI_Comm comm, Params p, std::span<const gpu::Operand> ins, std::span<std::uint8_t> out,
            const Options& opt, tempo::faest::RhoSource rho, const char* fn) {
  const tempo::faest::SignOp op(p, rho);
  Options o = opt;
  o.wipe_inputs = true;  // secret keys
  if (!detail::is_root(comm, o.root)) return detail::run_checked(t, comm, op, {}, {}, o, {});
  const std::string error = check_lengths(fn, "secret key", ins[0], tempo::faest::secret_key_size(p));
  if (!error.empty()) return detail::run_checked(t, comm, op, {}, {}, o, error);
  return detail::run_checked(t, comm, op, ins, out, o, {});
}
}  // namespace

Report sign_batch(Task& t, MPI_Comm comm, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                  std::span<std::uint8_t> signatures_out, const Options& opt) {
  const gpu::Operand ins[2] = {secret_keys, messages};
  return sign(t, comm, p, ins, signatures_out, opt, tempo::faest::RhoSource::os_random, "sign_batch");
}

Report sign_batch_deterministic(Task& t, MPI_Comm comm, Params p, gpu::Operand secret_keys, gpu::Operand messages,
                                gpu::Operand rhos, std::span<std::uint8_t> signatures_out, const Options& opt) {
  const gpu::Operand ins[3] = {secret_keys, messages, rhos};
  return sign(t, comm, p, ins, signatures_out, opt, tempo::faest::RhoSource::input, "sign_batch_deterministic");
}

Report verify_batch(Task& t, MPI_Comm comm, Params p, gpu::Operand public_keys, gpu::Operand messages,
                    gpu::Operand signatures, std::span<std::uint8_t> results_out, const Options& opt) {
  const tempo::faest::VerifyOp op(p);
  if (!detail::is_root(comm, opt.root)) return detail::run_checked(t, comm, op, {}, {}, opt, {});
  std::string error = check_lengths("verify_batch", "public key", public_keys, tempo::faest::public_key_size(p));
  if (error.empty())
    error = check_lengths("verify_batch", "signature", signatures, tempo::faest::signature_size(p));
  if (!error.empty()) return detail::run_checked(t, comm, op, {}, {}, opt, error);
  const gpu::Operand ins[3] = {public_keys, messages, signatures};
  return detail::run_checked(t, comm, op, ins, results_out, opt, {});
}

}  // namespace tempo::mpi::faest
