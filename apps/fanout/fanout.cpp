#include "fanout.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <vector>

namespace tempo::fanout {
namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string sys_error(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

// Reads the whole file into buf (a pinned buffer when a GPU exists); returns its size.
std::size_t read_file(const std::string& path, gpu::HostBuffer& buf) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(sys_error("cannot open input", path));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const std::string e = sys_error("cannot stat input", path);
    ::close(fd);
    throw std::runtime_error(e);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error("input '" + path + "' is not a regular file");
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  if (buf.size() < size + 1) buf.resize(size + 1);
  std::size_t got = 0;
  while (got < size) {
    const ssize_t r = ::read(fd, buf.data() + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      const std::string e = r < 0 ? sys_error("cannot read input", path) : "input '" + path + "' shrank while reading";
      ::close(fd);
      throw std::runtime_error(e);
    }
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  return size;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

void write_atomically(const std::string& path, std::initializer_list<std::pair<const void*, std::size_t>> parts) {
  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw std::runtime_error(sys_error("cannot create output", path));
  auto fail = [&](const std::string& msg) {
    ::close(fd);
    ::unlink(name.data());
    throw std::runtime_error(msg);
  };
  for (const auto& [p, n] : parts) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t w = ::write(fd, b + done, n - done);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) fail(sys_error("cannot write output", path));
      done += static_cast<std::size_t>(w);
    }
  }
  ::fchmod(fd, 0644);
  if (::close(fd) != 0) {
    ::unlink(name.data());
    throw std::runtime_error(sys_error("cannot write output", path));
  }
  if (::rename(name.data(), path.c_str()) != 0) {
    const std::string e = sys_error("cannot rename output into place", path);
    ::unlink(name.data());
    throw std::runtime_error(e);
  }
}

void Processor::process(const std::string& in_path, const std::string& out_path, bool binary) {
  Timing tm;
  auto t0 = Clock::now();
  if (binary) {
    const std::size_t size = read_file(in_path, req_.data);
    parse_binary_in_place(req_, size);
  } else {
    gpu::HostBuffer text;  // the hex text; parsed into req_.data
    const std::size_t size = read_file(in_path, text);
    parse_sexpr(std::string_view(reinterpret_cast<const char*>(text.data()), size), req_);
  }
  tm.load = ms_since(t0);

  const std::size_t n = req_.n, ob = req_.out_bytes;
  digests_.resize(n * ob);
  std::span<std::uint8_t> out{digests_.data(), n * ob};
  const std::span<const std::uint8_t> data{req_.data.data(), req_.data_size};
  gpu::BatchReport rep = pool_.run([&](Task& t) {
    if (req_.uniform) {
      gpu::FixedBatch b{data, req_.uniform_len, n};
      return gpu::hash_batch(t, opt_.algo, b, ob, out, opt_.backend);
    }
    crypto::MessageBatch b{data, req_.offsets};
    return gpu::hash_batch(t, opt_.algo, b, ob, out, opt_.backend);
  });
  const double busy = rep.gpu_items > 0 ? rep.kernel_ms : rep.cpu_ms;
  tm.kernel = busy;
  tm.launch = std::max(0.0, rep.total_ms - busy);

  t0 = Clock::now();
  if (binary) {
    std::uint8_t h[8];
    binary_header(h, n, ob);
    write_atomically(out_path, {{h, 8}, {out.data(), out.size()}});
    tm.write = ms_since(t0);
  } else {
    // write is measured up to formatting; the file write itself follows.
    std::string text = format_sexpr(n, ob, out, tm);
    tm.write = ms_since(t0);
    text = format_sexpr(n, ob, out, tm);
    write_atomically(out_path, {{text.data(), text.size()}});
  }
  if (opt_.report)
    std::fprintf(stderr,
                 "tempo-fanout: %zu x %zu B -> %s (cpu %zu, gpu %zu, devices %d) load %.3f ms, hash %.3f ms "
                 "[in %.3f kernel %.3f out %.3f cpu %.3f], write %.3f ms; %s\n",
                 n, ob, rep.ran_on, rep.cpu_items, rep.gpu_items, rep.devices_used, tm.load, rep.total_ms,
                 rep.copy_in_ms, rep.kernel_ms, rep.copy_out_ms, rep.cpu_ms, tm.write, rep.reason.c_str());
}

void Processor::serve(std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string cmd, a, b, extra;
    ss >> cmd;
    if (cmd.empty()) continue;
    if (cmd == "quit") {
      out << "bye" << std::endl;
      return;
    }
    if (cmd != "process" && cmd != "process-bin") {
      out << "error unknown command '" << one_line(cmd) << "' (expected process, process-bin or quit)" << std::endl;
      continue;
    }
    if (!(ss >> a >> b) || (ss >> extra)) {
      out << "error usage: " << cmd << " IN OUT" << std::endl;
      continue;
    }
    try {
      process(a, b, cmd == "process-bin");
      out << "done " << b << std::endl;
    } catch (const std::exception& e) {
      out << "error " << one_line(e.what()) << std::endl;
    }
  }
}

}  // namespace tempo::fanout
