// tempo-fanout's request processing and daemon loop, as a library so the tests can
// drive it in-process too.
#pragma once

#include <iosfwd>
#include <string>

#include <tempo/crypto/keccak.hpp>
#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

#include "wire.hpp"

namespace tempo::fanout {

struct Options {
  crypto::Algorithm algo = crypto::Algorithm::shake256;
  gpu::Backend backend = gpu::Backend::auto_select;
  bool report = false;  // one summary line per request on stderr
};

class Processor {
 public:
  Processor(ThreadPool& pool, Options opt) : pool_(pool), opt_(opt) {}
  // Reads `in_path`, hashes, writes `out_path` atomically (temp file + rename).
  // Throws (WireError, std::runtime_error, ...) with a one-line message; on error
  // no output file is left behind (an existing one is untouched).
  void process(const std::string& in_path, const std::string& out_path, bool binary);
  // Daemon: lines "process IN OUT", "process-bin IN OUT", "quit" on `in`; answers
  // "done OUT", "error MESSAGE" or "bye" on `out`. Returns at quit or end of input.
  void serve(std::istream& in, std::ostream& out);

 private:
  ThreadPool& pool_;
  Options opt_;
  Request req_;           // buffers reused across daemon requests
  gpu::HostBuffer digests_;
};

// Writes `parts` to `path` through a temporary file in the same folder and rename(2).
void write_atomically(const std::string& path, std::initializer_list<std::pair<const void*, std::size_t>> parts);

}  // namespace tempo::fanout
