// SHAKE256 of three messages over the ranks of MPI_COMM_WORLD (one rank when run
// without mpirun), checked against the single-process hash.
#include <tempo/keccak/offload.hpp>
#include <tempo/mpi/keccak.hpp>
#include <tempo/tempo.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int bad = 0;
  {
    tempo::ThreadPool pool(tempo::Options{.threads = 2});
    const std::vector<std::uint8_t> data(3 * 32, 7);
    const tempo::keccak::FixedBatch batch{data, 32, 3};
    std::vector<std::uint8_t> got(3 * 32), want(3 * 32);
    pool.run([&](tempo::Task& t) {
      tempo::mpi::keccak::hash_batch(t, MPI_COMM_WORLD, tempo::keccak::Algorithm::shake256, batch, 32, got);
      tempo::keccak::hash_batch(t, tempo::keccak::Algorithm::shake256, batch, 32, want, tempo::Backend::cpu);
    });
    bad = got == want ? 0 : 1;
    std::printf("tempo::mpi consumer: %s\n", bad ? "MISMATCH" : "ok");
  }
  MPI_Finalize();
  return bad;
}
