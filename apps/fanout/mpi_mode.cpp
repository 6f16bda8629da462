// tempo-fanout --mpi: under `mpirun -n N tempo-fanout --mpi ...`, rank 0 reads each
// request and writes its result exactly as a single process does (the same parsers,
// formatters and OUT semantics); every rank hashes a share of each chunk through
// tempo::mpi::keccak::hash_batch. The other ranks only follow rank 0's lead: before each chunk
// rank 0 broadcasts what comes (a chunk to hash, or the end with the exit status).
// Built when tempo::mpi is (mpi/CMakeLists.txt adds this file to tempo-fanout).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <tempo/mpi/keccak.hpp>

#include "command.hpp"
#include "fanout.hpp"
#include "text.hpp"

namespace tempo::fanout {
namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

struct Control {
  std::int32_t kind = 0;  // 0: hash a chunk; 1: stop, exit with `status`
  std::int32_t status = 0;
  std::int32_t algo = 0;
  std::int32_t pad = 0;
  std::uint64_t out_bytes = 0;
};

// MPI_Ibcast polled with a sleeping backoff: the other ranks wait here between daemon
// requests, and a blocking MPI_Bcast would keep a core spinning all that time.
void bcast(Control& c) {
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Ibcast(&c, sizeof c, MPI_BYTE, 0, MPI_COMM_WORLD, &r);
  int us = 1;
  for (int done = 0;;) {
    MPI_Test(&r, &done, MPI_STATUS_IGNORE);
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    us = std::min(us * 2, 1000);
  }
}

// The other ranks: hash whatever rank 0 announces until it says stop.
int follow(ThreadPool& pool, const Options& opt) {
  for (;;) {
    Control c;
    bcast(c);
    if (c.kind != 0) return c.status;
    mpi::Options mo;
    mo.run.backend = opt.backend;
    try {
      pool.run([&](Task& t) {
        mpi::keccak::hash_batch(t, MPI_COMM_WORLD, static_cast<keccak::Algorithm>(c.algo), keccak::FixedBatch{},
                        static_cast<std::size_t>(c.out_bytes), {}, mo);
      });
    } catch (const std::exception&) {
      // Rank 0 got the same error and reports it.
    }
  }
}

// One request at rank 0, as Processor::process does it, with the hashing spread.
void process(ThreadPool& pool, const Options& opt, const std::string& in_path, const std::string& out_path,
             bool binary, bool daemon) {
  pool.run([&](Task& t) {
    const auto t0 = Clock::now();
    check_output_is_not_input(in_path, out_path);  // a bad OUT fails before any work
    OutputFile file(out_path, opt.durable);
    gpu::HostBuffer in;
    Request req;
    const std::size_t size = read_input(t, in_path, in, opt.input_limit == 0 ? physical_memory() : opt.input_limit);
    const std::string mismatch = format_mismatch(in.data(), size, binary, daemon);
    try {
      if (binary) {
        if (!parse_binary_uniform(t, in.data(), size, req)) {
          std::swap(in, req.data);
          parse_binary_in_place(req, size);
        }
      } else {
        parse_sexpr(std::string_view(reinterpret_cast<const char*>(in.data()), size), req);
      }
    } catch (const WireError&) {
      if (mismatch.empty()) throw;
      throw WireError(mismatch);
    }
    const double load = ms_since(t0);
    const std::size_t n = req.n, ob = req.out_bytes;
    // The algorithm against out_bytes, checked here with the single process's words.
    keccak::hash_batch(t, opt.algo, keccak::FixedBatch{{req.data.data(), 0}, 0, 0}, ob, {}, opt.backend);
    if (binary) {
      std::uint8_t h[8];
      binary_header(h, n, ob);
      file.write(h, 8);
    } else {
      const std::string head = sexpr_head(n, ob);
      file.write(head.data(), head.size());
    }
    const std::size_t per = std::max<std::size_t>(1, opt.chunk_bytes / std::max<std::size_t>(ob, 1));
    std::vector<std::uint8_t> digests(std::min(per, n) * ob);
    std::vector<std::uint64_t> offs;
    std::string text;
    double hash_ms = 0, compute_ms = 0, write_ms = 0;
    mpi::Options mo;
    mo.run.backend = opt.backend;
    const std::uint8_t* data = req.data.data();
    for (std::size_t a = 0; a < n; a += per) {
      const std::size_t m = std::min(per, n - a);
      Control c;
      c.algo = static_cast<std::int32_t>(opt.algo);
      c.out_bytes = ob;
      bcast(c);
      const std::span<std::uint8_t> out{digests.data(), m * ob};
      const auto th = Clock::now();
      mpi::Report r;
      if (req.uniform) {
        const std::size_t len = req.uniform_len;
        r = mpi::keccak::hash_batch(t, MPI_COMM_WORLD, opt.algo, keccak::FixedBatch{{data + a * len, m * len}, len, m}, ob,
                            out, mo);
      } else {
        const std::uint64_t* src = req.offsets.data() + a;
        offs.resize(m + 1);
        for (std::size_t j = 0; j <= m; ++j) offs[j] = src[j] - src[0];
        r = mpi::keccak::hash_batch(t, MPI_COMM_WORLD, opt.algo,
                            keccak::MessageBatch{{data + src[0], static_cast<std::size_t>(src[m] - src[0])}, offs}, ob,
                            out, mo);
      }
      hash_ms += ms_since(th);
      compute_ms += r.compute_ms;
      const auto tw = Clock::now();
      if (binary) {
        file.write(out.data(), out.size());
      } else {
        text.resize(m * sexpr_entry_size(ob));
        sexpr_entries(out.data(), m, ob, text.data());
        file.write(text.data(), text.size());
      }
      write_ms += ms_since(tw);
    }
    if (!binary) {
      const Timing tm{load, hash_ms - compute_ms, compute_ms, write_ms};
      const std::string tail = sexpr_tail(tm);
      file.write(tail.data(), tail.size());
    }
    file.commit();
    if (opt.report) {
      int ranks = 1;
      MPI_Comm_size(MPI_COMM_WORLD, &ranks);
      std::fprintf(stderr, "tempo-fanout: %zu x %zu B over %d ranks: load %.3f ms, hash %.3f ms, write %.3f ms, total %.3f ms\n",
                   n, ob, ranks, load, hash_ms, write_ms, ms_since(t0));
    }
  });
}

}  // namespace

// Called by main() for --mpi after the command line was checked; returns the exit status.
int run_mpi(int& argc, char**& argv, const Options& opt, std::size_t threads, bool daemon, bool binary,
            const std::vector<std::string>& paths) {
  mpi::Session session(argc, argv);
  ThreadPool pool(tempo::Options{.threads = threads});
  if (session.rank() != 0) return follow(pool, opt);
  int status = 0;
  auto stop = [&] {
    Control c;
    c.kind = 1;
    c.status = status;
    bcast(c);
  };
  if (!daemon) {
    try {
      process(pool, opt, paths[0], paths[1], binary, false);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "tempo-fanout: error: %s\n", one_line(e.what()).c_str());
      status = 1;
    }
    stop();
    return status;
  }
  // The daemon's loop as Processor::serve words it.
  std::ios::sync_with_stdio(false);
  std::string line;
  for (;;) {
    const LineStatus st = read_command_line(std::cin, line);
    if (st == LineStatus::end) break;
    if (st == LineStatus::too_long) {
      std::cout << "error command line longer than " << kMaxCommandLine << " bytes" << std::endl;
      continue;
    }
    Command c;
    try {
      c = parse_command(line);
    } catch (const std::exception& e) {
      std::cout << "error " << one_line(e.what()) << std::endl;
      continue;
    }
    if (c.kind == Command::Kind::none) continue;
    if (c.kind == Command::Kind::quit) {
      std::cout << "bye" << std::endl;
      break;
    }
    if (c.kind == Command::Kind::help) {
      std::cout << help_line() << std::endl;
      continue;
    }
    try {
      process(pool, opt, c.in, c.out, c.kind == Command::Kind::process_bin, true);
      std::cout << "done " << command_word(c.out) << std::endl;
    } catch (const std::exception& e) {
      std::cout << "error " << one_line(e.what()) << std::endl;
    }
  }
  stop();
  return 0;
}

}  // namespace tempo::fanout
