// Shared by the MPI tests: the pool, the rank, deterministic data.
#pragma once

#include <cstdint>
#include <vector>

#include <tempo/mpi.hpp>
#include <tempo/tempo.hpp>

namespace mpi_test {

// Two threads per rank: four ranks already oversubscribe CI's two cores.
inline tempo::ThreadPool& pool() {
  static tempo::ThreadPool p(tempo::Options{.threads = 2});
  return p;
}

inline int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// xorshift bytes, the same on every rank.
inline std::vector<std::uint8_t> bytes(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint8_t> v(n);
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (auto& b : v) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return v;
}

}  // namespace mpi_test
