// TFHE batches over the ranks: the family's public ops through the generic run().
#include <tempo/mpi/tfhe.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "internal.hpp"

namespace tempo::mpi::tfhe {

namespace {
using tempo::tfhe::Ciphertext;
using tempo::tfhe::Params;

// The ops' item: n + 1 little-endian u32, the mask then b (the host order on every platform
// tempo builds for).
std::size_t stride_of(const Params& p) { return 4 * (p.n + 1); }

std::vector<std::uint8_t> pack(std::span<const Ciphertext> cs, const Params& p) {
  const std::size_t stride = stride_of(p);
  std::vector<std::uint8_t> v(cs.size() * stride);
  for (std::size_t i = 0; i < cs.size(); ++i) {
    std::memcpy(v.data() + i * stride, cs[i].a.data(), 4 * p.n);
    std::memcpy(v.data() + i * stride + 4 * p.n, &cs[i].b, 4);
  }
  return v;
}

void unpack(std::span<const std::uint8_t> v, const Params& p, std::span<Ciphertext> out) {
  const std::size_t stride = stride_of(p);
  for (std::size_t i = 0; i < out.size(); ++i) {
    Ciphertext& c = out[i];
    c.params_id = p.id;
    c.a.resize(p.n);
    std::memcpy(c.a.data(), v.data() + i * stride, 4 * p.n);
    std::memcpy(&c.b, v.data() + i * stride + 4 * p.n, 4);
  }
}

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
  std::vector<std::vector<std::uint8_t>> packed;
  std::vector<gpu::Operand> operands;
  for (auto in : ins) packed.push_back(pack(in, p));
  for (const auto& v : packed) operands.push_back(gpu::Operand::fixed(v, stride_of(p)));
  std::vector<std::uint8_t> result(out.size() * stride_of(p));
  Report r = detail::run_checked(t, comm, op, operands, result, opt, {});
  unpack(result, p, out);
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
