// Small MPI helpers: a private communicator, polled waits that sleep instead of spinning
// (Open MPI's blocking calls keep a core busy, which starves the rank's own workers on an
// oversubscribed host), and requests for messages of any size (split at 1 GiB, since MPI
// counts are int).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace tempo::mpi::detail {

// Throws std::runtime_error unless MPI runs with MPI_THREAD_SERIALIZED or more.
void require_serialized();

// Yields a few times, then sleeps 1, 2, 4 ... 50 us between polls (each poll is also
// when Open MPI moves the next fragments of a large message: longer sleeps would slow
// transfers; shorter ones cost a core).
class Backoff {
 public:
  void pause();
  void reset() noexcept { spins_ = 0, us_ = 1; }

 private:
  int spins_ = 0;
  int us_ = 1;
};

// The private duplicate of the caller's communicator (made on first use, cached).
class Comm {
 public:
  explicit Comm(MPI_Comm parent);
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  MPI_Comm get() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  // MPI_Ibcast of bytes, waited for by polling.
  void bcast(void* data, std::size_t bytes, int root) const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

// Non-blocking requests, completed by polling. A message of n bytes becomes
// ceil(n / 1 GiB) MPI messages with one tag (MPI keeps them in order).
class Requests {
 public:
  void isend(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm);
  void irecv(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm);
  // Indices of requests completed by this call (MPI_Testsome); cancelled ones included.
  void test_some(std::vector<int>& done);
  void cancel(std::size_t index);
  std::size_t size() const noexcept { return reqs_.size(); }
  std::size_t active() const noexcept { return active_; }

 private:
  std::vector<MPI_Request> reqs_;
  std::vector<int> indices_;
  std::size_t active_ = 0;
};

}  // namespace tempo::mpi::detail
