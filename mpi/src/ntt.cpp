// NTT batches over the ranks: ntt::NttOp through the generic run().
#include <tempo/mpi/ntt.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "internal.hpp"

namespace tempo::mpi::ntt {

namespace {
using tempo::ntt::NttOp;
using tempo::ntt::OpKind;
using tempo::ntt::Plan;

std::span<const std::uint8_t> bytes_of(std::span<const std::uint64_t> v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * sizeof(std::uint64_t)};
}

// The root's checks, as the single-process batch calls make them, as one message.
std::string check(const char* fn, const Plan& plan, std::initializer_list<std::pair<const char*, std::span<const std::uint64_t>>> args) {
  const std::size_t n = plan.n();
  for (const auto& [name, v] : args) {
    if (v.size() % n != 0)
      return std::string("tempo::mpi::ntt::") + fn + ": " + name + " has " + std::to_string(v.size()) +
             " coefficients, not a multiple of n = " + std::to_string(n);
    if (v.size() != args.begin()->second.size())
      return std::string("tempo::mpi::ntt::") + fn + ": the spans differ in length";
    const auto bad = std::find_if(v.begin(), v.end(), [q = plan.q()](std::uint64_t c) { return c >= q; });
    if (bad != v.end()) {
      const auto i = static_cast<std::size_t>(bad - v.begin());
      return std::string("tempo::mpi::ntt::") + fn + ": " + name + " polynomial " + std::to_string(i / n) +
             ", coefficient " + std::to_string(i % n) + " is " + std::to_string(*bad) + ", not below q = " +
             std::to_string(plan.q());
    }
  }
  return {};
}

// Results go to a separate buffer and are copied back: the root's inputs are still being
// sent while the other ranks' results arrive.
Report unary(Task& t, MPI_Comm comm, const Plan& plan, std::span<std::uint64_t> polys, const Options& opt,
             OpKind kind, const char* fn) {
  const NttOp op(plan, kind);
  if (!detail::is_root(comm, opt.root)) return detail::run_checked(t, comm, op, {}, {}, opt, {});
  const std::string error = check(fn, plan, {{"polys", polys}});
  if (!error.empty()) return detail::run_checked(t, comm, op, {}, {}, opt, error);
  std::vector<std::uint64_t> out(polys.size());
  const gpu::Operand in = gpu::Operand::fixed(bytes_of(polys), op.out_stride());
  Report r = detail::run_checked(t, comm, op, std::span(&in, 1),
                                 {reinterpret_cast<std::uint8_t*>(out.data()), out.size() * sizeof(std::uint64_t)}, opt, {});
  std::copy(out.begin(), out.end(), polys.begin());
  return r;
}
}  // namespace

Report forward_batch(Task& t, MPI_Comm comm, const Plan& plan, std::span<std::uint64_t> polys, const Options& opt) {
  return unary(t, comm, plan, polys, opt, OpKind::forward, "forward_batch");
}

Report inverse_batch(Task& t, MPI_Comm comm, const Plan& plan, std::span<std::uint64_t> polys, const Options& opt) {
  return unary(t, comm, plan, polys, opt, OpKind::inverse, "inverse_batch");
}

Report multiply_batch(Task& t, MPI_Comm comm, const Plan& plan, std::span<const std::uint64_t> a,
                      std::span<const std::uint64_t> b, std::span<std::uint64_t> out, const Options& opt) {
  const NttOp op(plan, OpKind::multiply);
  if (!detail::is_root(comm, opt.root)) return detail::run_checked(t, comm, op, {}, {}, opt, {});
  std::string error = check("multiply_batch", plan, {{"a", a}, {"b", b}});
  if (error.empty() && out.size() != a.size())
    error = "tempo::mpi::ntt::multiply_batch: out has " + std::to_string(out.size()) + " coefficients, a has " +
            std::to_string(a.size());
  if (!error.empty()) return detail::run_checked(t, comm, op, {}, {}, opt, error);
  std::vector<std::uint64_t> result(out.size());
  const gpu::Operand ins[2] = {gpu::Operand::fixed(bytes_of(a), op.out_stride()),
                               gpu::Operand::fixed(bytes_of(b), op.out_stride())};
  Report r = detail::run_checked(t, comm, op, ins,
                                 {reinterpret_cast<std::uint8_t*>(result.data()), result.size() * sizeof(std::uint64_t)},
                                 opt, {});
  std::copy(result.begin(), result.end(), out.begin());
  return r;
}

}  // namespace tempo::mpi::ntt
