#include "comm.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace tempo::mpi::detail {

namespace {
constexpr std::size_t kMaxMessage = std::size_t{1} << 30;

void check(int rc, const char* what) {
  // Only reached under MPI_ERRORS_RETURN; the default handler aborts the job itself.
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("tempo::mpi: ") + what + " failed");
}
}  // namespace

void require_serialized() {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_SERIALIZED)
    throw std::runtime_error(
        "tempo::mpi: MPI was initialised below MPI_THREAD_SERIALIZED; use MPI_Init_thread(..., "
        "MPI_THREAD_SERIALIZED, ...) or tempo::mpi::Session (transfers run on a helper thread)");
}

void Backoff::pause() {
  if (spins_ < 16) {
    ++spins_;
    std::this_thread::yield();
    return;
  }
  std::this_thread::sleep_for(std::chrono::microseconds(us_));
  us_ = std::min(us_ * 2, 50);
}

namespace {
int free_private(MPI_Comm, int, void* attr, void*) {
  auto* c = static_cast<MPI_Comm*>(attr);
  MPI_Comm_free(c);
  delete c;
  return MPI_SUCCESS;
}
}  // namespace

Comm::Comm(MPI_Comm parent) {
  // The duplicate is made once per user communicator and kept as an attribute of it
  // (freed with it): MPI_Comm_dup is a collective with its own round trips. Every rank
  // makes it at the same call, its first on that communicator.
  static int keyval = MPI_KEYVAL_INVALID;
  if (keyval == MPI_KEYVAL_INVALID)
    check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval, nullptr), "MPI_Comm_create_keyval");
  void* attr = nullptr;
  int found = 0;
  check(MPI_Comm_get_attr(parent, keyval, &attr, &found), "MPI_Comm_get_attr");
  if (found != 0) {
    comm_ = *static_cast<MPI_Comm*>(attr);
  } else {
    auto* c = new MPI_Comm(MPI_COMM_NULL);
    check(MPI_Comm_dup(parent, c), "MPI_Comm_dup");
    check(MPI_Comm_set_attr(parent, keyval, c), "MPI_Comm_set_attr");
    comm_ = *c;
  }
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

void Comm::bcast(void* data, std::size_t bytes, int root) const {
  auto* p = static_cast<char*>(data);
  for (std::size_t off = 0; off < bytes; off += kMaxMessage) {
    const int n = static_cast<int>(std::min(kMaxMessage, bytes - off));
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Ibcast(p + off, n, MPI_BYTE, root, comm_, &r), "MPI_Ibcast");
    Backoff b;
    for (int flag = 0;;) {
      check(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), "MPI_Test");
      if (flag) break;
      b.pause();
    }
  }
}

void Requests::isend(const void* data, std::size_t bytes, int dest, int tag, MPI_Comm comm) {
  const auto* p = static_cast<const char*>(data);
  for (std::size_t off = 0; off < bytes; off += kMaxMessage) {
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Isend(p + off, static_cast<int>(std::min(kMaxMessage, bytes - off)), MPI_BYTE, dest, tag, comm, &r),
          "MPI_Isend");
    reqs_.push_back(r);
    ++active_;
  }
}

void Requests::irecv(void* data, std::size_t bytes, int source, int tag, MPI_Comm comm) {
  auto* p = static_cast<char*>(data);
  for (std::size_t off = 0; off < bytes; off += kMaxMessage) {
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Irecv(p + off, static_cast<int>(std::min(kMaxMessage, bytes - off)), MPI_BYTE, source, tag, comm, &r),
          "MPI_Irecv");
    reqs_.push_back(r);
    ++active_;
  }
}

void Requests::test_some(std::vector<int>& done) {
  done.clear();
  if (active_ == 0) return;
  indices_.resize(reqs_.size());
  int count = 0;
  check(MPI_Testsome(static_cast<int>(reqs_.size()), reqs_.data(), &count, indices_.data(), MPI_STATUSES_IGNORE),
        "MPI_Testsome");
  if (count == MPI_UNDEFINED) {
    active_ = 0;
    return;
  }
  done.assign(indices_.begin(), indices_.begin() + count);
  active_ -= static_cast<std::size_t>(count);
}

void Requests::cancel(std::size_t index) {
  if (reqs_[index] != MPI_REQUEST_NULL) check(MPI_Cancel(&reqs_[index]), "MPI_Cancel");
}

}  // namespace tempo::mpi::detail
