// TFHE batches over the ranks: the family's public ops through the generic run().
#include <tempo/mpi/tfhe.hpp>

#include <string>
#include <vector>

#include "internal.hpp"

namespace tempo::mpi::tfhe {

namespace {
using tempo::tfhe::Ciphertext;
using tempo::tfhe::Params;

std::string check(const char* fn, const Params& p, std::initializer_list<std::span<const Ciphertext>> ins,
                  std::size_t out_size) {
  for (auto in : ins) {
    if (in.size() != out_size)
      return std::string("tempo::mpi::tfhe::") + fn + ": the inputs and out must have the same length";
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in[i].params_id != p.id || in[i].a.size() != p.n)
        return std::string("tempo::mpi::tfhe::") + fn + ": ciphertext " + std::to_string(i) +
               " does not belong to the key's parameter set " + std::string(p.name);
  }
  return {};
}

Report run_on(Task& t, MPI_Comm comm, const gpu::BatchOp& op, const Params& p,
              std::initializer_list<std::span<const Ciphertext>> ins, std::span<Ciphertext> out, const Options& opt,
              const char* fn) {
  if (!detail::is_root(comm, opt.root)) return detail::run_checked(t, comm, op, {}, {}, opt, {});
  const std::string error = check(fn, p, ins, out.size());
  if (!error.empty()) return detail::run_checked(t, comm, op, {}, {}, opt, error);
  // Items as the ops take them (tempo::tfhe::to_items), checked above.
  std::vector<std::vector<std::uint32_t>> items;
  std::vector<gpu::Operand> operands;
  for (auto in : ins) items.push_back(tempo::tfhe::to_items(t, p, in));
  for (const auto& v : items)
    operands.push_back(gpu::Operand::fixed({reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 4}, op.out_stride()));
  std::vector<std::uint32_t> result(out.size() * (p.n + 1));
  Report r = detail::run_checked(t, comm, op, operands,
                                 {reinterpret_cast<std::uint8_t*>(result.data()), result.size() * 4}, opt, {});
  tempo::tfhe::from_items(t, p, result, out);
  return r;
}
}  // namespace

Report eval_gates(Task& t, MPI_Comm comm, const tempo::tfhe::EvaluationKey& ek, tempo::tfhe::Gate g,
                  std::span<const Ciphertext> xs, std::span<const Ciphertext> ys, std::span<Ciphertext> out,
                  const Options& opt) {
  const tempo::tfhe::GateOp op(ek, g);
  return run_on(t, comm, op, ek.params(), {xs, ys}, out, opt, "eval_gates");
}

Report eval_bootstraps(Task& t, MPI_Comm comm, const tempo::tfhe::EvaluationKey& ek, std::span<const Ciphertext> cs,
                       std::span<Ciphertext> out, const Options& opt) {
  const tempo::tfhe::BootstrapOp op(ek);
  return run_on(t, comm, op, ek.params(), {cs}, out, opt, "eval_bootstraps");
}

}  // namespace tempo::mpi::tfhe
