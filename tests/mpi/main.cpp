// Catch2 under mpirun: every rank runs the same test cases in the same order (the calls
// under test are collective), with MPI initialised for tempo::mpi.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <tempo/mpi.hpp>

int main(int argc, char** argv) {
  tempo::mpi::Session mpi(argc, argv);
  return Catch::Session().run(argc, argv);
}
