// tempo-fanout's request processing and daemon loop, as a library so the tests can
// drive it in-process too.
//
// A request is read whole (memory proportional to the input's size; a large binary
// request of one message length is instead read chunk by chunk), then hashed and
// written in chunks of about Options::chunk_bytes of digests: while
// the pool (or the GPU) hashes chunk k (and the GPU already has chunk k+1), a writer
// thread writes chunk k-1. Memory
// therefore does not depend on what the request asks for (up to 16 GiB of output
// from a few KiB of input), only on its size.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "hashing.hpp"

#include "io.hpp"
#include "wire.hpp"

namespace tempo::fanout {

struct Options {
  keccak::Algorithm algo = keccak::Algorithm::shake256;
  tempo::Backend backend = tempo::Backend::auto_select;
  bool report = false;   // one summary line per request on stderr
  bool durable = true;   // fsync OUT and its folder (--no-fsync turns it off)
  // Digest bytes hashed and written per step of the pipeline (at least one message).
  std::size_t chunk_bytes = std::size_t{4} << 20;
  // Between daemon requests, buffers larger than this in total are freed.
  std::size_t retain_bytes = std::size_t{256} << 20;
  // Inputs larger than this are refused (default: physical memory).
  std::size_t input_limit = 0;
  // Large binary requests of one message length are read chunk by chunk, the read
  // overlapping hashing and writing (TEMPO_FANOUT_STREAM=0 turns it off).
  bool stream_input = true;
};

// Where one request's time went (milliseconds, wall clock, on the request's
// critical path: load + hash + write = total).
struct Breakdown {
  double read = 0, parse = 0;  // load = read + parse
  double hash = 0;             // hash_batch calls (GPU or CPU), summed over chunks
  double write = 0;            // output time not hidden behind hashing, incl. commit
  double commit = 0;           // fsync + rename + folder fsync (part of write)
  double writer_busy = 0;      // the writer thread's own time (overlaps hashing)
  double total = 0;
  std::size_t chunks = 0;
  bool streamed = false;       // read chunk by chunk (large binary requests of one length)
};

class Processor {
 public:
  Processor(ThreadPool& pool, Options opt);
  ~Processor();
  Processor(const Processor&) = delete;
  Processor& operator=(const Processor&) = delete;

  // Reads `in_path`, hashes, writes `out_path` atomically (io.hpp's semantics).
  // Throws (WireError, std::runtime_error, ...) with a one-line message; on error
  // no output file is left behind (an existing one is untouched).
  void process(const std::string& in_path, const std::string& out_path, bool binary);
  // Daemon: lines "process IN OUT", "process-bin IN OUT", "help", "quit" on `in`
  // (command.hpp); answers "done OUT", "error MESSAGE", "help ..." or "bye" on `out`,
  // one line each. Returns at quit or end of input.
  void serve(std::istream& in, std::ostream& out);

  const Breakdown& last() const noexcept { return last_; }
  // Bytes of buffers kept for the next request.
  std::size_t retained_bytes() const noexcept;
  // Frees what is over Options::retain_bytes and the old OUT files still held.
  void trim();

 private:
  // A thread that runs one job at a time (output writes; freeing replaced files).
  class Writer {
   public:
    Writer();
    ~Writer();
    void post(std::function<void()> job);  // waits for the previous job first
    void wait();                           // rethrows the job's exception
    void drain() noexcept;                 // waits, dropping any exception

   private:
    void loop();
    std::mutex m_;
    std::condition_variable cv_;
    std::function<void()> job_;
    std::exception_ptr error_;
    bool busy_ = false, stop_ = false;
    std::thread thread_;
  };

  void run_request(Task& t, const std::string& in_path, const std::string& out_path, bool binary);

  ThreadPool& pool_;
  Options opt_;
  Request req_;                 // the parsed messages
  gpu::HostBuffer in_;          // the file as read
  gpu::HostBuffer chunk_[3];    // digests of chunks submitted / joined / being written
  gpu::HostBuffer raw_;         // streamed: one chunk's records as read
  gpu::HostBuffer stage_[3];    // streamed: chunks' messages, gathered
  std::string text_;            // S-expression entries of the chunk being written
  std::vector<std::uint64_t> offsets_[3];  // each in-flight chunk's offsets, rebased
  UniqueFd replaced_;           // OUT's old file, freed after the answer
  Breakdown last_;
  bool in_daemon_ = false;  // serve() is running: advice names process / process-bin
  Writer writer_;  // output writes
  Writer reaper_;  // closes replaced OUT files (freeing their pages) off the critical path
};

}  // namespace tempo::fanout
