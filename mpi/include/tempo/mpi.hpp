// tempo::mpi -- one batch across the ranks of an MPI communicator, each rank running
// its share through the offload engine (tempo::gpu) with its own pool and GPUs.
//
//   tempo::mpi::Session mpi(argc, argv);                 // MPI_Init_thread(SERIALIZED)
//   tempo::ThreadPool pool;
//   pool.run([&](tempo::Task& t) {
//     // every rank calls it (collective); only the root's inputs and out matter
//     auto r = tempo::mpi::run(t, MPI_COMM_WORLD, op, {Operand::fixed(in, 32)}, out);
//   });
//
// The root cuts the batch into contiguous ranges of equal work (BatchOp::work per item,
// so long messages count for more than short ones), one per rank, each cut again into
// `subchunks` pieces. It sends them with non-blocking MPI from a communication thread
// while it computes its own range; a rank starts on its first piece while the later ones
// are still in flight, and sends each piece's results back as soon as they are done; the
// root receives them straight into `out`, in order. docs/mpi.md has the protocol, the
// failure rules and the cost model.
//
// Failure: an exception on any rank (the op throws, a bad batch at the root, an op that
// differs between ranks) is reported to every rank: all ranks throw tempo::mpi::Error
// with the same message, naming the failing rank and its item range (a bad batch at the
// root: std::invalid_argument on every rank, before anything is sent). Nobody hangs:
// the other ranks finish their ranges first. `out` is then unspecified: ranges that were
// computed are written, the failed rank's unfinished pieces are left as they were.
// A process that dies (signal, exit, MPI_Abort) is not an exception: mpirun ends the job.
//
// Threads: MPI must be initialised with MPI_THREAD_SERIALIZED or more (Session does),
// since each call uses one helper thread for the transfers; the calling thread makes no
// MPI call while it runs. Calls on one communicator must not overlap (the same rules
// as any MPI collective). Messages go over a private duplicate of `comm`, made at the
// first call on it and kept as an attribute of it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <tempo/gpu/gpu.hpp>

namespace tempo {
class Task;
}

namespace tempo::mpi {

// What every rank throws when one rank failed. what(): "tempo::mpi: rank R failed on
// items [a, b): <its exception's message>".
class Error : public std::runtime_error {
 public:
  Error(int failed_rank, const std::string& what) : std::runtime_error(what), rank_(failed_rank) {}
  int failed_rank() const noexcept { return rank_; }

 private:
  int rank_;
};

// MPI_Init_thread(MPI_THREAD_SERIALIZED) unless MPI is already initialised, and
// MPI_Finalize in the destructor if it initialised it. Throws std::runtime_error when
// the library gives less than MPI_THREAD_SERIALIZED.
class Session {
 public:
  Session(int& argc, char**& argv);
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

 private:
  void init(int* argc, char*** argv);
  bool owner_ = false;
  int rank_ = 0;
  int size_ = 1;
};

struct Options {
  int root = 0;                     // the rank that holds the batch and receives the results
  std::size_t subchunks = 4;        // pieces per rank (1..64): more overlap, more messages
  gpu::RunOptions run{};            // each rank's engine options (backend: TEMPO_BACKEND)
  gpu::Engine* engine = nullptr;    // nullptr: gpu::Engine::shared()
  bool wipe_inputs = false;         // zero the received inputs after use (secret keys)
};

// What one rank did. Times in ms, wall clock on this rank.
struct Report {
  int rank = 0;
  int ranks = 1;
  std::size_t items = 0;              // the whole batch
  std::size_t local_items = 0;        // items computed here
  std::size_t local_cpu_items = 0;    // of those, on this rank's CPU (the engine's reports)
  std::size_t local_gpu_items = 0;    //                  and on its GPUs
  std::vector<std::size_t> rank_items;  // root: items per rank, by rank
  double plan_ms = 0;                 // root: validation and cutting; others: waiting for the plan
  double compute_ms = 0;              // inside the compute calls
  double wait_ms = 0;                 // computing side waiting for input to arrive
  double total_ms = 0;
};

// Distributes op over comm (collective: every rank calls it with an equal op): the one
// path of every family. Any public BatchOp goes through it (keccak::HashOp, ntt::NttOp,
// tfhe::BootstrapOp and GateOp, faest::SignOp and VerifyOp, and your own); the family
// headers <tempo/mpi/keccak.hpp>, <tempo/mpi/ntt.hpp>, <tempo/mpi/tfhe.hpp> and
// <tempo/mpi/faest.hpp> wrap it in the family's batch shape (tempo::mpi::<family>::<call>,
// the comm after the task). At the
// root, inputs and out are the batch as for gpu::Engine::run; elsewhere they are ignored
// (pass {}). Returns this rank's report; throws as described above.
Report run(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::span<const gpu::Operand> inputs, gpu::Output out,
           const Options& opt = {});
Report run(Task& t, MPI_Comm comm, const gpu::BatchOp& op, std::initializer_list<gpu::Operand> inputs,
           gpu::Output out, const Options& opt = {});

}  // namespace tempo::mpi
