#include "io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <new>
#include <random>
#include <stdexcept>

#include "text.hpp"

namespace tempo::fanout {
namespace {

std::string q(const std::string& path) { return quote(path, 4096); }
std::string sys_error(const std::string& what, const std::string& path, int err) {
  return what + " " + q(path) + ": " + std::strerror(err);
}

// Regular files at least this big are read by several workers (the page cache
// copy runs at one core's memory bandwidth; reads of one file do not serialise).
constexpr std::size_t kParallelReadMin = std::size_t{4} << 20;
constexpr std::size_t kReadPiece = std::size_t{2} << 20;

// Grows `buf` (keeping its contents) to at least `need` bytes, naming the input on failure.
void grow(gpu::HostBuffer& buf, std::size_t need, const std::string& path, std::size_t have) {
  if (buf.size() >= need) return;
  try {
    buf.resize(std::max(need, std::min(2 * buf.size(), need + (std::size_t{1} << 30))));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("input " + q(path) + ": out of memory holding " + std::to_string(need - 1) +
                             " bytes (read " + std::to_string(have) + " so far)");
  }
}

// Reads [off, off+len) with pread; returns bytes read (short only at end of file).
std::size_t pread_full(int fd, std::uint8_t* dst, std::size_t len, std::size_t off, int& err) {
  std::size_t got = 0;
  while (got < len) {
    const ssize_t r = ::pread(fd, dst + got, len - got, static_cast<off_t>(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      err = errno;
      return got;
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

std::string kind_of(mode_t m) {
  if (S_ISLNK(m)) return "a symbolic link";
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

std::string random_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<std::uint64_t>(::getpid())};
  const std::uint64_t v = rng() ^ counter.fetch_add(0x9e3779b97f4a7c15ull, std::memory_order_relaxed);
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(8, '0');
  for (int k = 0; k < 8; ++k) s[static_cast<std::size_t>(k)] = digits[(v >> (4 * k)) & 15];
  return s;
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void UniqueFd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::size_t physical_memory() noexcept {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return SIZE_MAX / 2;
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(page);
}

bool read_exact_at(Task& t, int fd, std::uint8_t* dst, std::size_t len, std::size_t off) {
  if (len < kParallelReadMin || t.thread_count() < 2) {
    int err = 0;
    return pread_full(fd, dst, len, off, err) == len;
  }
  const std::size_t pieces = (len + kReadPiece - 1) / kReadPiece;
  std::atomic<bool> ok{true};
  tempo::parallel_for(t, 0, pieces, [&](std::size_t k) {
    const std::size_t at = k * kReadPiece, n = std::min(kReadPiece, len - at);
    int err = 0;
    if (pread_full(fd, dst + at, n, off + at, err) != n) ok.store(false, std::memory_order_relaxed);
  });
  return ok.load(std::memory_order_relaxed);
}

std::size_t read_input(Task& t, const std::string& path, gpu::HostBuffer& buf, std::size_t limit) {
  // Standard input is read from where it stands, with read() (it may be a file
  // positioned after what an earlier reader took).
  const bool std_in = path == "-";
  UniqueFd fd(std_in ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw std::runtime_error(sys_error("cannot open input", path, errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw std::runtime_error(sys_error("cannot stat input", path, errno));
  if (S_ISDIR(st.st_mode)) throw std::runtime_error("input " + q(path) + " is a folder");
  const bool positional = S_ISREG(st.st_mode) && !std_in;
  // A regular file's size (standard input: what is left after its position) sizes the buffer.
  std::size_t hint = S_ISREG(st.st_mode) && st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0;
  if (std_in && hint > 0) {
    const off_t at = ::lseek(fd.get(), 0, SEEK_CUR);
    hint = at >= 0 && static_cast<std::size_t>(at) < hint ? hint - static_cast<std::size_t>(at) : 0;
  }
  auto over = [&](std::size_t size) {
    return std::runtime_error("input " + q(path) + " is " + (hint > limit ? "" : "at least ") + std::to_string(size) +
                              " bytes, over the limit of " + std::to_string(limit) + " bytes (physical memory)");
  };
  if (hint > limit) throw over(hint);
  if (buf.size() < hint + 1) buf = gpu::HostBuffer();  // the old contents need no copying
  grow(buf, hint + 1, path, 0);

  std::size_t got = 0;
  // A file that shrank meanwhile is read again from the start, piece after piece.
  if (positional && hint >= kParallelReadMin && read_exact_at(t, fd.get(), buf.data(), hint, 0)) got = hint;
  // The rest (everything for small files, pipes and /proc): to end of file.
  auto read_some = [&](std::uint8_t* dst, std::size_t room) {
    for (;;) {
      const ssize_t r =
          positional ? ::pread(fd.get(), dst, room, static_cast<off_t>(got)) : ::read(fd.get(), dst, room);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno != EINTR) throw std::runtime_error(sys_error("cannot read input", path, errno));
    }
  };
  for (;;) {
    if (got + 1 >= buf.size()) {
      // Full (a file read to its st_size usually ends there): probe for more
      // before growing, so that the common case never copies the buffer.
      std::uint8_t probe = 0;
      if (read_some(&probe, 1) == 0) break;
      if (got >= limit) throw over(got + 1);
      grow(buf, std::min(std::max(got + (std::size_t{64} << 10), 2 * got), limit + 1) + 1, path, got);
      buf.data()[got++] = probe;
      continue;
    }
    const std::size_t r = read_some(buf.data() + got, buf.size() - 1 - got);
    if (r == 0) break;
    got += r;
  }
  if (got > limit) throw over(got);
  return got;
}

void check_output_is_not_input(const std::string& in_path, const std::string& out_path) {
  if (out_path == "-") return;
  struct stat out {};
  // lstat: the name that would be replaced (a link is OutputFile's to refuse).
  if (::lstat(out_path.c_str(), &out) != 0) return;
  struct stat in {};
  const bool std_in = in_path == "-";
  if ((std_in ? ::fstat(STDIN_FILENO, &in) : ::stat(in_path.c_str(), &in)) != 0) return;
  if (in.st_dev != out.st_dev || in.st_ino != out.st_ino) return;
  std::string what = "the input";
  if (std_in) what = "the file standard input reads";
  else if (in_path != out_path) what = "the same file as input " + q(in_path);
  throw std::runtime_error("output " + q(out_path) + " is " + what +
                           ": the result would replace the request; give another OUT");
}

OutputFile::OutputFile(const std::string& path, bool durable) : path_(path), durable_(durable) {
  if (path.empty()) throw std::runtime_error("output path is empty");
  if (path == "-") {
    to_stdout_ = true;
    fd_ = UniqueFd(::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0));
    if (!fd_) throw std::runtime_error(sys_error("cannot use standard output as output", path, errno));
    return;
  }
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  if (base.empty() || base == "." || base == "..") throw std::runtime_error("output " + q(path) + " names a folder");
  dir_ = UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_) throw std::runtime_error(sys_error("cannot open the folder of output", path, errno));

  bool keep_mode = false;
  mode_t mode = 0;
  struct stat st {};
  if (::fstatat(dir_.get(), base.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!S_ISREG(st.st_mode))
      throw std::runtime_error("output " + q(path) + " is " + kind_of(st.st_mode) +
                               "; OUT must be a regular file or a new name (it is replaced by rename, which would "
                               "not write where it points)");
    if (st.st_nlink > 1)
      throw std::runtime_error("output " + q(path) + " has " + std::to_string(st.st_nlink) +
                               " hard links; replacing it would leave the other names with the old content");
    if (::faccessat(dir_.get(), base.c_str(), W_OK, AT_EACCESS) != 0)
      throw std::runtime_error("output " + q(path) + " is not writable: " + std::strerror(errno));
    keep_mode = true;
    mode = st.st_mode & 0777;
  } else if (errno != ENOENT) {
    throw std::runtime_error(sys_error("cannot use output", path, errno));
  }

  for (int attempt = 0;; ++attempt) {
    tmp_name_ = ".tempo-fanout." + random_suffix();
    fd_ = UniqueFd(::openat(dir_.get(), tmp_name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
    if (fd_) break;
    if (errno != EEXIST || attempt == 100) {
      const int err = errno;
      tmp_name_.clear();
      throw std::runtime_error(sys_error("cannot create a temporary file next to output", path, err));
    }
  }
  if (keep_mode && ::fchmod(fd_.get(), mode) != 0) {
    const int err = errno;
    throw std::runtime_error(sys_error("cannot set the mode of output", path, err));
  }
  tmp_name_.shrink_to_fit();
  base_ = base;
}

OutputFile::~OutputFile() {
  if (committed_ || to_stdout_ || tmp_name_.empty()) return;
  fd_.reset();
  ::unlinkat(dir_.get(), tmp_name_.c_str(), 0);
}

void OutputFile::write(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t w = ::write(fd_.get(), p + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error(sys_error("cannot write output", path_, w < 0 ? errno : EIO));
    done += static_cast<std::size_t>(w);
  }
  written_ += size;
}

void OutputFile::rewind() {
  if (written_ == 0) return;
  if (to_stdout_) throw std::runtime_error("cannot restart output to standard output");
  written_ = 0;
  if (::ftruncate(fd_.get(), 0) != 0 || ::lseek(fd_.get(), 0, SEEK_SET) != 0)
    throw std::runtime_error(sys_error("cannot rewrite output", path_, errno));
}

UniqueFd OutputFile::commit() {
  if (to_stdout_) {
    committed_ = true;
    if (::close(fd_.release()) != 0) throw std::runtime_error(sys_error("cannot write output", path_, errno));
    return {};
  }
  if (durable_ && ::fsync(fd_.get()) != 0) throw std::runtime_error(sys_error("cannot sync output", path_, errno));
  if (::close(fd_.release()) != 0) throw std::runtime_error(sys_error("cannot write output", path_, errno));
  UniqueFd old(::openat(dir_.get(), base_.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (::renameat(dir_.get(), tmp_name_.c_str(), dir_.get(), base_.c_str()) != 0)
    throw std::runtime_error(sys_error("cannot rename output into place", path_, errno));
  committed_ = true;
  // EINVAL: the file system cannot sync folders; the rename is then as durable as it gets.
  if (durable_ && ::fsync(dir_.get()) != 0 && errno != EINVAL)
    throw std::runtime_error(sys_error("cannot sync the folder of output", path_, errno));
  return old;
}

}  // namespace tempo::fanout
