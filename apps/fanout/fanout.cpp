#include "fanout.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <new>
#include <optional>
#include <type_traits>

#include "command.hpp"
#include "text.hpp"

namespace tempo::fanout {
namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// What the chunks' BatchReports add up to.
struct HashTotals {
  std::string ran_on;
  std::string reason;
  std::size_t cpu_items = 0, gpu_items = 0;
  int devices = 0;
  double copy_in = 0, kernel = 0, copy_out = 0, cpu = 0;
  double busy = 0, launch = 0;  // the S-expression's (kernel ..) and (launch ..)

  void add(const gpu::BatchReport& r) {
    const std::string on = placement_text(r.ran_on);
    if (ran_on.empty()) {
      ran_on = on;
      reason = r.reason;
    } else if (ran_on != on) {
      ran_on = "mixed";
    }
    cpu_items += r.cpu_items;
    gpu_items += r.gpu_items;
    devices = std::max(devices, r.devices_used);
    copy_in += r.copy_in_ms;
    kernel += r.kernel_ms;
    copy_out += r.copy_out_ms;
    cpu += r.cpu_ms;
    const double b = r.gpu_items > 0 ? r.kernel_ms : r.cpu_ms;
    busy += b;
    launch += std::max(0.0, r.total_ms - b);
  }
};

// Makes `b` hold at least `need` bytes without copying what it held.
void ensure_fresh(gpu::HostBuffer& b, std::size_t need) {
  if (b.size() >= need) return;
  b = gpu::HostBuffer();
  b.resize(need);
}
}  // namespace

// ---------------------------------------------------------------- Writer

Processor::Writer::Writer() : thread_([this] { loop(); }) {}

Processor::Writer::~Writer() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Processor::Writer::post(std::function<void()> job) {
  wait();
  std::lock_guard lk(m_);
  job_ = std::move(job);
  busy_ = true;
  cv_.notify_all();
}

void Processor::Writer::wait() {
  std::unique_lock lk(m_);
  cv_.wait(lk, [&] { return !busy_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void Processor::Writer::drain() noexcept {
  std::unique_lock lk(m_);
  cv_.wait(lk, [&] { return !busy_; });
  error_ = nullptr;
}

void Processor::Writer::loop() {
  std::unique_lock lk(m_);
  for (;;) {
    cv_.wait(lk, [&] { return busy_ || stop_; });
    if (!busy_) return;  // stop_ with nothing left to do
    std::function<void()> job = std::move(job_);
    job_ = nullptr;
    lk.unlock();
    std::exception_ptr err;
    try {
      job();
    } catch (...) {
      err = std::current_exception();
    }
    job = nullptr;  // whatever it captured goes before the caller hears it is done
    lk.lock();
    error_ = err;
    busy_ = false;
    cv_.notify_all();
  }
}

// ---------------------------------------------------------------- Processor

Processor::Processor(ThreadPool& pool, Options opt) : pool_(pool), opt_(opt) {
  if (opt_.chunk_bytes == 0) opt_.chunk_bytes = 1;
  if (opt_.input_limit == 0) opt_.input_limit = physical_memory();
}

Processor::~Processor() {
  writer_.drain();
  reaper_.drain();
}

std::size_t Processor::retained_bytes() const noexcept {
  std::size_t offs = req_.offsets.capacity();
  for (const auto& o : offsets_) offs += o.capacity();
  std::size_t bufs = in_.size() + req_.data.size() + raw_.size();
  for (std::size_t j = 0; j < 3; ++j) bufs += chunk_[j].size() + stage_[j].size();
  return bufs + text_.capacity() + 8 * offs;
}

void Processor::trim() {
  if (replaced_) {
    // Freeing the old OUT's pages can take many milliseconds: done meanwhile, on
    // a thread of its own so that the next request's writes do not wait for it.
    const int fd = replaced_.release();
    reaper_.drain();
    reaper_.post([fd] { ::close(fd); });
  }
  if (retained_bytes() <= opt_.retain_bytes) return;
  in_ = gpu::HostBuffer();
  req_.data = gpu::HostBuffer();
  req_.data_size = 0;
  std::vector<std::uint64_t>().swap(req_.offsets);
  for (auto& o : offsets_) std::vector<std::uint64_t>().swap(o);
  writer_.drain();  // text_ and chunk_ belong to the writer's last job until it is over
  for (auto& c : chunk_) c = gpu::HostBuffer();
  for (auto& c : stage_) c = gpu::HostBuffer();
  raw_ = gpu::HostBuffer();
  std::string().swap(text_);
}

void Processor::process(const std::string& in_path, const std::string& out_path, bool binary) {
  last_ = Breakdown{};
  try {
    pool_.run([&](Task& t) { run_request(t, in_path, out_path, binary); });
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("out of memory processing " + quote(in_path, 4096) + " (buffers held: " +
                             std::to_string(retained_bytes()) + " bytes; the input and a few chunks of " +
                             std::to_string(opt_.chunk_bytes) + " digest bytes must fit)");
  }
}

void Processor::run_request(Task& t, const std::string& in_path, const std::string& out_path, bool binary) {
  const auto t0 = Clock::now();
  Breakdown& b = last_;
  // OUT is checked first: a bad OUT fails before any work.
  check_output_is_not_input(in_path, out_path);
  OutputFile file(out_path, opt_.durable);
  struct Drain {  // declared after `file`: the writer lets go of it before it is destroyed
    Writer& w;
    ~Drain() { w.drain(); }
  } drain{writer_};

  HashTotals sum;
  double writer_busy = 0;  // written by the writer's jobs, read after wait()
  std::size_t n = 0, ob = 0;
  const auto chunk_messages = [&] { return std::max<std::size_t>(1, opt_.chunk_bytes / ob); };

  // Chunk k+1 is prepared and submitted to the engine before chunk k is joined (the
  // GPU overlaps neighbouring chunks' copies and kernels; on the CPU path submit()
  // hashes nothing until join()), and chunk k goes to the writer while k+1 hashes.
  // Three buffers of each kind: chunk k-1 being written, k joined, k+1 submitted.
  // Returns false, with nothing left in flight but the writer, if prepare fails.
  auto pipeline = [&](std::size_t chunks, std::size_t per, auto&& prepare, auto&& submit) -> bool {
    if (chunks == 0) return true;
    if (!prepare(0)) return false;
    auto th = Clock::now();
    gpu::Offload current = submit(0);
    b.hash += ms_since(th);
    for (std::size_t k = 0; k < chunks; ++k) {
      gpu::Offload next;
      if (k + 1 < chunks) {
        if (!prepare(k + 1)) return false;  // `current` waits for its device work as it goes
        th = Clock::now();
        next = submit(k + 1);
        b.hash += ms_since(th);
      }
      th = Clock::now();
      sum.add(current.join(t));
      current = std::move(next);
      b.hash += ms_since(th);
      ++b.chunks;
      const std::size_t m = std::min(per, n - k * per);
      const std::uint8_t* const digests = chunk_[k % 3].data();
      // post() first waits for chunk k-1's write; a write error surfaces here.
      writer_.post([this, &file, &writer_busy, digests, m, ob = ob, binary] {
        const auto tw = Clock::now();
        if (binary) {
          file.write(digests, m * ob);
        } else {
          text_.resize(m * sexpr_entry_size(ob));
          sexpr_entries(digests, m, ob, text_.data());
          file.write(text_.data(), text_.size());
        }
        writer_busy += ms_since(tw);
      });
    }
    return true;
  };

  // A large binary request of one message length is streamed: chunk k+1 is read and
  // gathered while chunk k hashes and chunk k-1 is written, so reading hides behind
  // the rest. Anything else (another shape, a length that differs, a file that
  // changes meanwhile) falls back to the whole-file path below, which also words
  // the errors.
  auto stream = [&]() -> bool {
    UniqueFd fd(::open(in_path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 12) return false;
    const auto size = static_cast<std::size_t>(st.st_size);
    std::uint8_t head[12];
    if (!read_exact_at(t, fd.get(), head, 12, 0)) return false;
    const std::optional<UniformLayout> u = uniform_layout(head, size);
    if (!u) return false;
    n = u->n;
    ob = u->out_bytes;
    const std::size_t per = chunk_messages(), chunks = (n + per - 1) / per, len = u->len, rec = 4 + len;
    if (chunks < 2) return false;  // one chunk: nothing to overlap
    ensure_fresh(raw_, per * rec + 1);
    for (std::size_t j = 0; j < 3; ++j) {
      ensure_fresh(stage_[j], per * len + 1);
      ensure_fresh(chunk_[j], per * ob + 1);
    }
    std::uint8_t h[8];
    binary_header(h, n, ob);
    file.write(h, 8);
    auto prepare = [&](std::size_t k) {
      const std::size_t a = k * per, m = std::min(per, n - a);
      const auto tr = Clock::now();
      const bool got = read_exact_at(t, fd.get(), raw_.data(), m * rec, 8 + a * rec);
      b.read += ms_since(tr);
      if (!got) return false;
      const auto tg = Clock::now();
      const bool ok = gather_uniform(t, raw_.data(), m, len, stage_[k % 3].data());
      b.parse += ms_since(tg);
      return ok;
    };
    auto submit = [&](std::size_t k) {
      const std::size_t a = k * per, m = std::min(per, n - a);
      const keccak::FixedBatch batch{{stage_[k % 3].data(), m * len}, len, m};
      return keccak::submit(t, opt_.algo, batch, ob, {chunk_[k % 3].data(), m * ob}, opt_.backend);
    };
    if (!pipeline(chunks, per, prepare, submit)) return false;
    std::uint8_t extra;  // the file must end where the header said
    return ::pread(fd.get(), &extra, 1, static_cast<off_t>(size)) == 0;
  };

  // Streaming needs IN by name (pread) and an OUT it can restart if it gives up.
  b.streamed = binary && opt_.stream_input && in_path != "-" && !file.to_stdout() && stream();
  if (!b.streamed) {
    if (b.chunks > 0 || binary) {  // a stream that gave up: start the output again
      writer_.drain();
      file.rewind();
      sum = HashTotals{};
      writer_busy = 0;
      b.chunks = 0;
    }
    const auto tr = Clock::now();
    const std::size_t size = read_input(t, in_path, in_, opt_.input_limit);
    b.read += ms_since(tr);
    const auto tp = Clock::now();
    // Worded before the in-place parser changes the first bytes.
    const std::string mismatch = format_mismatch(in_.data(), size, binary, in_daemon_);
    try {
      if (binary) {
        if (!parse_binary_uniform(t, in_.data(), size, req_)) {
          std::swap(in_, req_.data);
          parse_binary_in_place(req_, size);
        }
      } else {
        parse_sexpr(std::string_view(reinterpret_cast<const char*>(in_.data()), size), req_);
      }
    } catch (const WireError&) {
      if (mismatch.empty()) throw;
      throw WireError(mismatch);
    }
    b.parse += ms_since(tp);

    n = req_.n;
    ob = req_.out_bytes;
    const std::size_t per = chunk_messages(), chunks = n == 0 ? 0 : (n + per - 1) / per;
    for (std::size_t j = 0; j < std::min<std::size_t>(3, std::max<std::size_t>(chunks, 1)); ++j)
      ensure_fresh(chunk_[j], std::min(per, n) * ob + 1);
    if (binary) {
      std::uint8_t h[8];
      binary_header(h, n, ob);
      file.write(h, 8);
    } else {
      const std::string head = sexpr_head(n, ob);
      file.write(head.data(), head.size());
    }
    const std::uint8_t* const data = req_.data.data();
    if (n == 0) {  // still checks the algorithm against out_bytes
      const keccak::FixedBatch none{{data, 0}, 0, 0};
      sum.add(keccak::hash_batch(t, opt_.algo, none, ob, {}, opt_.backend));
    }
    auto submit = [&](std::size_t k) {
      const std::size_t a = k * per, m = std::min(per, n - a);
      const std::span<std::uint8_t> out{chunk_[k % 3].data(), m * ob};
      if (req_.uniform) {
        const std::size_t len = req_.uniform_len;
        const keccak::FixedBatch batch{{data + a * len, m * len}, len, m};
        return keccak::submit(t, opt_.algo, batch, ob, out, opt_.backend);
      }
      // The engine reads the offsets until join(): one rebased copy per buffer.
      std::vector<std::uint64_t>& offs = offsets_[k % 3];
      const std::uint64_t* src = req_.offsets.data() + a;
      offs.resize(m + 1);
      for (std::size_t j = 0; j <= m; ++j) offs[j] = src[j] - src[0];
      const keccak::MessageBatch batch{{data + src[0], static_cast<std::size_t>(src[m] - src[0])}, offs};
      return keccak::submit(t, opt_.algo, batch, ob, out, opt_.backend);
    };
    pipeline(chunks, per, [](std::size_t) { return true; }, submit);
  }
  writer_.wait();
  b.writer_busy = writer_busy;
  if (!binary) {
    const Timing tm{b.read + b.parse, sum.launch, sum.busy, writer_busy};
    const std::string tail = sexpr_tail(tm);
    file.write(tail.data(), tail.size());
  }
  const auto tc = Clock::now();
  replaced_ = file.commit();
  b.commit = ms_since(tc);
  b.total = ms_since(t0);
  b.write = std::max(0.0, b.total - b.read - b.parse - b.hash);

  if (opt_.report)
    std::fprintf(stderr,
                 "tempo-fanout: %zu x %zu B -> %s (cpu %zu, gpu %zu, devices %d) load %.3f ms [read %.3f parse %.3f], "
                 "hash %.3f ms [in %.3f kernel %.3f out %.3f cpu %.3f], write %.3f ms [commit %.3f writer %.3f], "
                 "total %.3f ms, %zu chunks%s; %s\n",
                 n, ob, sum.ran_on.c_str(), sum.cpu_items, sum.gpu_items, sum.devices, b.read + b.parse, b.read,
                 b.parse, b.hash, sum.copy_in, sum.kernel, sum.copy_out, sum.cpu, b.write, b.commit, b.writer_busy,
                 b.total, b.chunks, b.streamed ? " streamed" : "", one_line(sum.reason).c_str());
}

void Processor::serve(std::istream& in, std::ostream& out) {
  struct InDaemon {  // wrong-format advice names the daemon's commands meanwhile
    bool& flag;
    explicit InDaemon(bool& f) : flag(f) { flag = true; }
    ~InDaemon() { flag = false; }
  } in_daemon{in_daemon_};
  std::string line;
  for (;;) {
    const LineStatus st = read_command_line(in, line);
    if (st == LineStatus::end) return;
    if (st == LineStatus::too_long) {
      out << "error command line longer than " << kMaxCommandLine << " bytes" << std::endl;
      continue;
    }
    Command c;
    try {
      c = parse_command(line);
    } catch (const std::exception& e) {
      out << "error " << one_line(e.what()) << std::endl;
      continue;
    }
    if (c.kind == Command::Kind::none) continue;
    if (c.kind == Command::Kind::quit) {
      out << "bye" << std::endl;
      return;
    }
    if (c.kind == Command::Kind::help) {
      out << help_line() << std::endl;
      continue;
    }
    try {
      process(c.in, c.out, c.kind == Command::Kind::process_bin);
      out << "done " << command_word(c.out) << std::endl;
    } catch (const std::exception& e) {
      out << "error " << one_line(e.what()) << std::endl;
    }
    trim();
  }
}

}  // namespace tempo::fanout
