// Scaling of one batch over MPI ranks, shaped as users write it (Session, a pool,
// tempo::mpi::hash_batch on ordinary vectors). Prints one JSON object per run at the root.
//
//   mpirun -n 4 tempo_mpi_bench --workload shake256 --n 1000000 --len 32 --threads 4 --reps 5
//   tempo_mpi_bench --local ...     the same batch in one process without tempo::mpi (baseline)
//   --workload faest                FAEST-128f signing of n messages of len bytes
//   --check                         the root compares with a one-process result
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <tempo/mpi.hpp>
#include <tempo/mpi/keccak.hpp>
#include <tempo/mpi/keccak.hpp>
#include <tempo/tempo.hpp>
#ifdef TEMPO_MPI_HAVE_FAEST
#include <tempo/mpi/faest.hpp>
#endif

namespace {

struct Args {
  std::string workload = "shake256";
  std::size_t n = 1000000, len = 32, threads = 0, reps = 3, subchunks = 4;
  bool local = false, check = false;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
      return argv[++i];
    };
    if (k == "--workload") a.workload = val();
    else if (k == "--n") a.n = std::stoull(val());
    else if (k == "--len") a.len = std::stoull(val());
    else if (k == "--threads") a.threads = std::stoull(val());
    else if (k == "--reps") a.reps = std::max<std::size_t>(1, std::stoull(val()));
    else if (k == "--subchunks") a.subchunks = std::stoull(val());
    else if (k == "--local") a.local = true;
    else if (k == "--check") a.check = true;
    else throw std::invalid_argument("unknown option " + k);
  }
  return a;
}

std::vector<std::uint8_t> random_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  std::uint64_t x = 0x243F6A8885A308D3ull;
  for (std::size_t i = 0; i < n; i += 8) {  // 8 bytes per step: 100M x 32 B in about a second
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(v.data() + i, &x, std::min<std::size_t>(8, n - i));
  }
  return v;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  tempo::mpi::Session mpi(argc, argv);
  const bool root = mpi.rank() == 0;
  try {
    const Args a = parse(argc, argv);
    if (a.local && mpi.size() != 1) throw std::invalid_argument("--local runs in one process");
    tempo::ThreadPool pool(tempo::Options{.threads = a.threads});
    tempo::mpi::Options opt;
    opt.subchunks = a.subchunks;
    std::vector<std::uint8_t> in, out;
    std::size_t out_stride = 32;
    std::vector<std::uint8_t> sk_rows;  // the key, once per message (the op's layout)
    using tempo::keccak::Algorithm;
    if (a.workload == "shake256") {
      if (root) in = random_bytes(a.n * a.len), out.resize(a.n * 32);
    } else if (a.workload == "faest") {
#ifdef TEMPO_MPI_HAVE_FAEST
      const auto p = tempo::faest::Params::faest_128f;
      out_stride = tempo::faest::signature_size(p);
      if (root) {
        in = random_bytes(a.n * (a.len + 16));
        const auto kp = tempo::faest::keygen(p);
        for (std::size_t i = 0; i < a.n; ++i) sk_rows.insert(sk_rows.end(), kp.secret_key.begin(), kp.secret_key.end());
        out.resize(a.n * out_stride);
      }
#else
      throw std::invalid_argument("this build has no FAEST");
#endif
    } else {
      throw std::invalid_argument("unknown workload " + a.workload);
    }

    auto once = [&](tempo::Task& t) -> tempo::mpi::Report {
      if (a.workload == "shake256") {
        if (a.local) {
          tempo::keccak::hash_batch(t, Algorithm::shake256, tempo::keccak::FixedBatch{in, a.len, a.n}, 32, out);
          return {};
        }
        return tempo::mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake256,
                                      root ? tempo::keccak::FixedBatch{in, a.len, a.n} : tempo::keccak::FixedBatch{},
                                      32, out, opt);
      }
#ifdef TEMPO_MPI_HAVE_FAEST
      const auto p = tempo::faest::Params::faest_128f;
      using tempo::gpu::Operand;
      const Operand sks = root ? Operand::fixed(sk_rows, 32) : Operand{};
      const Operand msgs = root ? Operand::fixed(std::span(in).first(a.n * a.len), a.len) : Operand{};
      const Operand rhos = root ? Operand::fixed(std::span(in).subspan(a.n * a.len), 16) : Operand{};
      if (a.local) {
        tempo::faest::sign_batch_deterministic(t, p, sks, msgs, rhos, out, tempo::Backend::cpu);
        return {};
      }
      tempo::mpi::Options o = opt;
      o.run = tempo::Backend::cpu;
      return tempo::mpi::faest::sign_batch_deterministic(t, MPI_COMM_WORLD, p, sks, msgs, rhos, out, o);
#else
      return {};
#endif
    };

    std::vector<double> times;
    tempo::mpi::Report last;
    pool.run([&](tempo::Task& t) {
      once(t);  // warm-up: pages, engine calibration, connections
      for (std::size_t r = 0; r < a.reps; ++r) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = now_ms();
        last = once(t);
        times.push_back(now_ms() - t0);
      }
    });
    if (std::getenv("TEMPO_MPI_BENCH_VERBOSE") != nullptr)  // where each rank's time went (last rep)
      std::fprintf(stderr, "rank %d: items %zu plan %.3f ms wait %.3f ms compute %.3f ms total %.3f ms\n", mpi.rank(),
                   last.local_items, last.plan_ms, last.wait_ms, last.compute_ms, last.total_ms);
    bool ok = true;
    if (a.check && root && a.workload == "shake256") {
      std::vector<std::uint8_t> ref(out.size());
      pool.run([&](tempo::Task& t) {
        tempo::keccak::hash_batch(t, Algorithm::shake256, tempo::keccak::FixedBatch{in, a.len, a.n}, 32, ref);
      });
      ok = ref == out;
    }
    if (root) {
      std::sort(times.begin(), times.end());
      const double med = times[times.size() / 2];
      std::string per_rank;
      for (auto c : last.rank_items) {
        if (!per_rank.empty()) per_rank += ',';
        per_rank += std::to_string(c);
      }
      std::printf(
          "{\"workload\":\"%s\",\"mode\":\"%s\",\"ranks\":%d,\"threads_per_rank\":%zu,\"n\":%zu,\"len\":%zu,"
          "\"subchunks\":%zu,\"reps\":%zu,\"median_ms\":%.3f,\"min_ms\":%.3f,\"items_per_s\":%.1f,"
          "\"root_compute_ms\":%.3f,\"root_plan_ms\":%.3f,\"root_cpu_items\":%zu,\"root_gpu_items\":%zu,"
          "\"rank_items\":[%s],\"check\":\"%s\"}\n",
          a.workload.c_str(), a.local ? "local" : "mpi", mpi.size(), pool.thread_count(), a.n, a.len, a.subchunks,
          a.reps, med, times.front(), static_cast<double>(a.n) / (med / 1000.0), last.compute_ms, last.plan_ms,
          last.local_cpu_items, last.local_gpu_items, per_rank.c_str(),
          !a.check ? "skipped" : ok ? "equal" : "DIFFERENT");
    }
    return ok ? 0 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: error: %s\n", mpi.rank(), e.what());
    return 1;
  }
}
