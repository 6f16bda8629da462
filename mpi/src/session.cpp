#include <tempo/mpi.hpp>

namespace tempo::mpi {

Session::Session(int& argc, char**& argv) { init(&argc, &argv); }
Session::Session() { init(nullptr, nullptr); }

void Session::init(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  int provided = MPI_THREAD_SINGLE;
  if (initialised == 0) {
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    owner_ = true;
  } else {
    MPI_Query_thread(&provided);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (provided < MPI_THREAD_SERIALIZED) {
    if (owner_) MPI_Finalize();
    throw std::runtime_error("tempo::mpi::Session: the MPI library provides less than MPI_THREAD_SERIALIZED");
  }
}

Session::~Session() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owner_ && finalized == 0) MPI_Finalize();
}

}  // namespace tempo::mpi
