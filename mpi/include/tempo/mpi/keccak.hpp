// Keccak batches over the ranks: keccak::HashOp through mpi::run, in keccak::hash_batch's
// shape with the communicator after the task.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <tempo/keccak/batch.hpp>
#include <tempo/keccak/offload.hpp>
#include <tempo/mpi.hpp>

namespace tempo::mpi::keccak {

// As tempo::keccak::hash_batch, over the ranks. Collective; only the root's batch and out
// are read (others pass {}); the algorithm and out_bytes must agree on every rank.
Report hash_batch(Task& t, MPI_Comm comm, tempo::keccak::Algorithm a, const tempo::keccak::MessageBatch& batch,
                  std::size_t out_bytes, std::span<std::uint8_t> out, const Options& opt = {});
Report hash_batch(Task& t, MPI_Comm comm, tempo::keccak::Algorithm a, const tempo::keccak::FixedBatch& batch,
                  std::size_t out_bytes, std::span<std::uint8_t> out, const Options& opt = {});

}  // namespace tempo::mpi::keccak
