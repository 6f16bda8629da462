// Catch2's implementation and main, compiled once per build for every test binary (each
// copy took about 30 s to compile, and CI builds the suite three times). tests/mpi has its
// own runner: it starts MPI first.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
