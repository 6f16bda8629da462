// tempo-fanout: cuda-fanout's command-line contract on tempo::gpu.
//   tempo-fanout [--mpi] [--binary] [--algo NAME] [--backend cpu|cuda|auto] [--threads N] [--report] [--no-fsync] IN OUT
//   tempo-fanout [--mpi] --daemon [--algo NAME] [--backend ...] [--threads N] [--report] [--no-fsync]
//   tempo-fanout --help | --version
// IN and OUT may be '-' (standard input and output); usage() says what that changes.
// --mpi runs under 'mpirun -n N' (mpi_mode.cpp, docs/mpi.md).
// Exit status: 0 success, 1 bad input or failure (one line on stderr), 2 bad usage.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <tempo/env.hpp>

#include "fanout.hpp"
#include "text.hpp"

#ifdef TEMPO_FANOUT_HAVE_MPI
namespace tempo::fanout {  // mpi_mode.cpp
int run_mpi(int& argc, char**& argv, const Options& opt, std::size_t threads, bool daemon, bool binary,
            const std::vector<std::string>& paths);
}
#endif

namespace {
// The runtime's own bound on a pool's threads: far above any machine, low enough
// that a typo fails at once.
constexpr std::size_t kMaxThreads = tempo::max_threads;

const char* const kSynopsis =
    "usage: tempo-fanout [--mpi] [--binary] [--algo NAME] [--backend cpu|cuda|auto] [--threads N] [--report]"
    " [--no-fsync] IN OUT\n"
    "       tempo-fanout [--mpi] --daemon [--algo NAME] [--backend cpu|cuda|auto] [--threads N] [--report]"
    " [--no-fsync]\n"
    "       tempo-fanout --help | --version\n";

void usage(std::FILE* f) {
  std::fputs(kSynopsis, f);
  std::fputs(
      "\n"
      "Hashes every message of request IN and writes the digests to OUT.\n"
      "  --algo NAME: shake256 (default), shake128, sha3-224, sha3-256, sha3-384, sha3-512,\n"
      "        turboshake128, turboshake256, kt128, kt256; hashlib's names (shake_256, sha3_256, ...)\n"
      "        work too; case and '-'/'_' do not matter.\n"
      "  --backend: where to hash; defaults to $TEMPO_BACKEND, else auto (CPU, GPU or both).\n"
      "  --threads N: 0 to 4096; 0 (default) means $TEMPO_THREADS, else every hardware thread.\n"
      "  --report: one line per request on stderr: where the time went.\n"
      "  --no-fsync: replace OUT atomically but without syncing it to disk.\n"
      "  --mpi: under 'mpirun -n N', rank 0 reads and writes, every rank hashes (builds with Open MPI).\n"
      "\n"
      "Formats (IN is a request, OUT the result in the same format):\n"
      "  S-expression (the default):\n"
      "    request: (cuda-shake-fanout (output-bytes N) (inputs \"HEX\" \"HEX\" ...))\n"
      "             one message per string, hex digits in pairs (either case); ';' starts a comment\n"
      "    result:  (cuda-shake-fanout-result (n COUNT) (output-bytes N) (hashes \"hex\" ...)\n"
      "               (timing-ms (load MS) (launch MS) (kernel MS) (write MS)))\n"
      "  binary (--binary; daemon: process-bin), every number a 32-bit little-endian integer:\n"
      "    request: output-bytes, count, then count x (length, length bytes)\n"
      "    result:  count, output-bytes, then count x output-bytes digest bytes\n"
      "             (the header's two fields come in the opposite order to the request's)\n"
      "  Limits: 2^28 messages, 1 GiB per message, 1 MiB of digest per message, 16 GiB in all.\n"
      "\n"
      "IN and OUT:\n"
      "  '-' is standard input (IN) or standard output (OUT); a file named '-' is ./-\n"
      "  Any other OUT is replaced atomically (temporary file, fsync, rename): a new name or a\n"
      "  regular file, never a link. OUT '-' is written as hashing goes: no temporary file,\n"
      "  rename or fsync, so after an error it holds part of a result (exit status 1).\n"
      "  Binary output to a terminal is refused (redirect it or give a file).\n"
      "\n"
      "Daemon (--daemon): one command per line on stdin, one answer line on stdout:\n"
      "  process IN OUT | process-bin IN OUT   -> done OUT | error MESSAGE\n"
      "  help -> help ...;  quit -> bye\n"
      "  A path with spaces goes in double quotes, inside which \\\" is a quote and \\\\ a\n"
      "  backslash (no other escapes): process \"my in.sx\" \"out \\\"1\\\".sx\". '-' is refused.\n"
      "\n"
      "Environment: TEMPO_BACKEND, TEMPO_THREADS; TEMPO_FANOUT_CHUNK_BYTES (digest bytes hashed and\n"
      "  written per step, default 4 MiB); TEMPO_FANOUT_STREAM=0 reads large binary requests whole.\n"
      "Exit status: 0 success; 1 bad input or failure (one line on stderr); 2 bad usage.\n",
      f);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace tempo;
  fanout::Options opt;
  bool binary = false, daemon = false, use_mpi = false;
  std::size_t threads = 0;
  std::vector<std::string> paths;
  try {
    // The environment is checked here, so that a bad value is a usage error.
    opt.backend = tempo::backend_from_env();
    tempo::env_integer("TEMPO_THREADS", 1, kMaxThreads);
    opt.chunk_bytes = static_cast<std::size_t>(
        tempo::env_integer("TEMPO_FANOUT_CHUNK_BYTES", 1, std::size_t{1} << 30).value_or(opt.chunk_bytes));
    opt.stream_input = tempo::env_integer("TEMPO_FANOUT_STREAM", 0, 1).value_or(1) == 1;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto value = [&](const char* name) -> std::string {
        if (i + 1 >= argc) throw std::invalid_argument(std::string(name) + " needs a value");
        return argv[++i];
      };
      if (a == "--binary") binary = true;
      else if (a == "--daemon") daemon = true;
      else if (a == "--mpi") use_mpi = true;
      else if (a == "--report") opt.report = true;
      else if (a == "--no-fsync") opt.durable = false;
      else if (a == "--algo") opt.algo = keccak::parse_algorithm(value("--algo"));
      else if (a == "--backend") opt.backend = tempo::parse_backend(value("--backend"));
      else if (a == "--threads") threads = fanout::parse_count("--threads", value("--threads"), 0, kMaxThreads);
      else if (a == "-h" || a == "--help") {
        usage(stdout);
        return 0;
      } else if (a == "--version") {
        std::printf("tempo-fanout %s\n", TEMPO_FANOUT_VERSION);
        return 0;
      } else if (a.size() > 1 && a[0] == '-') {
        throw std::invalid_argument("unknown option " + fanout::quote(a, 80));
      } else {
        paths.push_back(a);
      }
    }
    if (daemon && binary)
      throw std::invalid_argument("--binary does not apply to --daemon: send 'process-bin IN OUT' for a binary request");
    if (!daemon && paths.size() != 2) throw std::invalid_argument("expected IN and OUT");
    if (daemon && !paths.empty()) throw std::invalid_argument("--daemon takes no paths");
    if (!daemon && binary && paths[1] == "-" && ::isatty(STDOUT_FILENO))
      throw std::invalid_argument("refusing to write binary output to a terminal: redirect standard output or give a file as OUT");
#ifndef TEMPO_FANOUT_HAVE_MPI
    if (use_mpi) throw std::invalid_argument("--mpi: this build has no MPI support (Open MPI was not found)");
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tempo-fanout: %s\n", fanout::one_line(e.what()).c_str());
    std::fputs(kSynopsis, stderr);
    std::fputs("'tempo-fanout --help' describes the options, formats and daemon commands.\n", stderr);
    return 2;
  }
  try {
    gpu::require(opt.backend);  // --backend cuda without a device: fail fast
#ifdef TEMPO_FANOUT_HAVE_MPI
    if (use_mpi) return fanout::run_mpi(argc, argv, opt, threads, daemon, binary, paths);
#endif
    ThreadPool pool(Options{.threads = threads});
    fanout::Processor proc(pool, opt);
    if (daemon) {
      // The point of the daemon: CUDA context, streams and buffers made once.
      if (opt.backend != tempo::Backend::cpu) gpu::warm_up();
      std::ios::sync_with_stdio(false);
      proc.serve(std::cin, std::cout);
      return 0;
    }
    proc.process(paths[0], paths[1], binary);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tempo-fanout: error: %s\n", fanout::one_line(e.what()).c_str());
    return 1;
  }
}
