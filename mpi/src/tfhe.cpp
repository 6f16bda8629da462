#include <tempo/mpi/tfhe.hpp>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "internal.hpp"

namespace tempo::mpi {

namespace {
// Wire format of one LWE ciphertext of dimension n: b, then a[0..n), little-endian u32
// (the host order on every platform tempo builds for). The parameter id is the key's.
std::size_t stride_of(std::size_t n) { return 4 * (n + 1); }

void put(const tfhe::Ciphertext& c, std::uint8_t* dst) {
  std::memcpy(dst, &c.b, 4);
  std::memcpy(dst + 4, c.a.data(), 4 * c.a.size());
}

tfhe::Ciphertext get(std::span<const std::uint8_t> src, std::uint8_t id, std::size_t n) {
  tfhe::Ciphertext c;
  c.params_id = id;
  c.a.resize(n);
  std::memcpy(&c.b, src.data(), 4);
  std::memcpy(c.a.data(), src.data() + 4, 4 * n);
  return c;
}
}  // namespace

Report tfhe_eval_gates(Task& t, MPI_Comm comm, const tfhe::EvaluationKey& ek, tfhe::Gate g,
                       std::span<const tfhe::Ciphertext> xs, std::span<const tfhe::Ciphertext> ys,
                       std::span<tfhe::Ciphertext> out, tfhe::Backend backend, const Options& opt) {
  const tfhe::Params& p = ek.params();
  const std::size_t n = p.n;
  const std::size_t stride = stride_of(n);
  const ItemKind kind{"tfhe-gate/" + std::string(p.name) + "/" + std::string(tfhe::gate_name(g)), 2, stride, {}};
  const auto compute = [&](Task& tt, const gpu::Chunk& c) {
    std::vector<tfhe::Ciphertext> x(c.count), y(c.count), z(c.count);
    for (std::size_t i = 0; i < c.count; ++i) {
      x[i] = get(c.in[0].item(i), p.id, n);
      y[i] = get(c.in[1].item(i), p.id, n);
    }
    tfhe::eval_gates(tt, ek, g, x, y, z, backend);
    for (std::size_t i = 0; i < c.count; ++i) put(z[i], c.out + i * stride);
  };
  if (!detail::is_root(comm, opt.root)) return detail::run_items_checked(t, comm, kind, {}, {}, compute, opt, {});

  std::string error;
  if (xs.size() != ys.size() || out.size() != xs.size())
    error = "tempo::mpi::tfhe_eval_gates: xs, ys and out must have the same length";
  for (std::size_t i = 0; i < xs.size() && error.empty(); ++i)
    for (const tfhe::Ciphertext* c : {&xs[i], &ys[i]})
      if (c->params_id != p.id || c->a.size() != n)
        error = "tempo::mpi::tfhe_eval_gates: ciphertext " + std::to_string(i) +
                " does not belong to the key's parameter set " + std::string(p.name);
  if (!error.empty()) return detail::run_items_checked(t, comm, kind, {}, {}, compute, opt, error);

  std::vector<std::uint8_t> xb(xs.size() * stride), yb(ys.size() * stride), zb(out.size() * stride);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    put(xs[i], xb.data() + i * stride);
    put(ys[i], yb.data() + i * stride);
  }
  const gpu::Operand ins[2] = {gpu::Operand::fixed(xb, stride), gpu::Operand::fixed(yb, stride)};
  Report r = detail::run_items_checked(t, comm, kind, ins, zb, compute, opt, {});
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = get({zb.data() + i * stride, stride}, p.id, n);
  return r;
}

}  // namespace tempo::mpi
