// tempo-fanout's file I/O: reading a request, replacing OUT safely.
//
// Output-file semantics (docs: apps/fanout/README.md):
//  - OUT is replaced atomically: the result is written to a hidden temporary file
//    in OUT's folder (".tempo-fanout.XXXXXXXX", short whatever OUT's length) and
//    renamed over OUT; on any error the temporary is removed and OUT is untouched.
//  - OUT may be missing or a regular file with one link. A symbolic link, a
//    hard-linked file (more than one name), a FIFO, a socket, a device file or a
//    folder is refused with an error naming what it is: rename would silently
//    replace the link or the special file instead of writing where it points.
//  - Mode: a new OUT gets 0666 minus the umask, like any file a program creates; an
//    existing OUT keeps its permission bits (0777 part; set-id bits are dropped).
//    An existing OUT we may not write to is refused.
//  - Durability (the default): the file is fsync'ed before the rename and the
//    folder after it, so after a crash OUT holds the old or the new result, never
//    a partial one. `durable = false` (--no-fsync) skips both syncs.
//  - OUT "-" is standard output, written as the result is produced: no temporary
//    file, no rename, no fsync; after an error it holds part of a result (the exit
//    status says so). A file named "-" is written as "./-".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "hashing.hpp"

namespace tempo::fanout {

// An owned file descriptor.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept;
  ~UniqueFd() { reset(); }
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset() noexcept;
  int release() noexcept { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// Reads all of `path` into buf[0, returned size) and leaves one spare byte after it.
// Reads to end of file (st_size is only a hint: files in /proc report 0; a FIFO
// has none). Large regular files are read by several workers at once. Inputs over
// `limit` bytes, or that do not fit in memory, fail with a message naming the size.
// A folder is refused. `path` "-" is standard input, read to its end.
std::size_t read_input(Task& t, const std::string& path, gpu::HostBuffer& buf, std::size_t limit);
// Reads exactly [off, off+len) of `fd` into dst, by several workers for large
// ranges. False on a short read or an error (the caller falls back or reports).
bool read_exact_at(Task& t, int fd, std::uint8_t* dst, std::size_t len, std::size_t off);
// The default input limit: the machine's physical memory.
std::size_t physical_memory() noexcept;

// Refuses an OUT that is IN: the same file whatever the names (device and inode are
// compared, so another path to it or a hard link counts), standard input included.
// The result would replace the request. A new OUT and OUT "-" pass; so do paths that
// cannot be looked at (read_input and OutputFile report those).
void check_output_is_not_input(const std::string& in_path, const std::string& out_path);

class OutputFile {
 public:
  // Checks OUT (see above) and creates the temporary file.
  OutputFile(const std::string& path, bool durable);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // without commit(): removes the temporary file

  // Appends bytes (the whole buffer, retrying short writes and EINTR).
  void write(const void* data, std::size_t size);
  // Drops everything written so far (the next write starts the file again).
  // Standard output cannot be rewound once written to (an error).
  void rewind();
  // OUT is "-": standard output (no temporary file, no rename).
  bool to_stdout() const noexcept { return to_stdout_; }
  // Syncs (when durable), renames over OUT, syncs the folder. Returns OUT's old
  // file held open (empty if there was none): freeing a large old file's pages
  // takes milliseconds, which the daemon spends after it has answered.
  UniqueFd commit();

 private:
  std::string path_, base_, tmp_name_;
  UniqueFd dir_, fd_;
  bool durable_;
  bool to_stdout_ = false;
  bool committed_ = false;
  std::size_t written_ = 0;
};

}  // namespace tempo::fanout
