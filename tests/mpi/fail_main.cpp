// A program whose rank 1 (or rank 0 alone) throws inside a distributed batch, shaped as
// a user writes one: the exception reaches main on every rank, which prints it and exits
// non-zero. tests/mpi/expect_failure.sh checks every rank said so and mpirun failed.
#include <cstdio>
#include <stdexcept>

#include <tempo/mpi.hpp>
#include <tempo/tempo.hpp>

namespace {
class Faulty final : public tempo::gpu::BatchOp {
 public:
  explicit Faulty(int rank, int bad) : rank_(rank), bad_(bad) {}
  std::string key() const override { return "test/faulty"; }
  std::size_t out_stride() const override { return 1; }
  void cpu(const tempo::gpu::Chunk& c) const override {
    if (rank_ == bad_) throw std::runtime_error("disk on fire");
    for (std::size_t i = 0; i < c.count; ++i) c.out[i] = c.in[0].item(i)[0];
  }

 private:
  int rank_, bad_;
};
}  // namespace

int main(int argc, char** argv) {
  tempo::mpi::Session mpi(argc, argv);
  try {
    tempo::ThreadPool pool(tempo::Options{.threads = 2});
    const Faulty op(mpi.rank(), mpi.size() > 1 ? 1 : 0);
    std::vector<std::uint8_t> in(1000, 7), out(1000);
    pool.run([&](tempo::Task& t) {
      if (mpi.rank() == 0)
        tempo::mpi::run(t, MPI_COMM_WORLD, op, {tempo::gpu::Operand::fixed(in, 1)}, out);
      else
        tempo::mpi::run(t, MPI_COMM_WORLD, op, std::span<const tempo::gpu::Operand>{}, {});
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: error: %s\n", mpi.rank(), e.what());
    return 1;
  }
  std::fprintf(stderr, "rank %d: no error\n", mpi.rank());
  return 0;
}
