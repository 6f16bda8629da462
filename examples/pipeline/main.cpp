// Two families, one dialect: a stream of message batches is hashed (Keccak, SHA3-256),
// the digests are signed (FAEST-128f) and the signatures verified, in one tempo pool,
// every stage a BatchOp on one engine, placed by one cost model.
//
//   pipeline [--batches=N] [--batch=M] [--backend=auto|cpu|cuda] [--compare] | --help
//
// Overlapped: the hash stage goes through gpu::Pipeline (depth 2), and the signing of one
// batch runs beside the verification of the one before (t.join): wherever the engine places
// each stage (pool or device), the stages of different batches overlap. --compare also runs
// the same stages one after another and prints both times.
// Exit status 1 when any signature fails to verify or the two runs' digests differ.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <tempo/faest.hpp>
#include <tempo/gpu/gpu.hpp>
#include <tempo/keccak/offload.hpp>
#include <tempo/secure_zero.hpp>
#include <tempo/tempo.hpp>

namespace {

using tempo::gpu::Operand;
constexpr auto kParams = tempo::faest::Params::faest_128f;
constexpr std::size_t kDigest = 32;

struct Args {
  std::size_t batches = 8;
  std::size_t batch = 256;
  tempo::Backend backend = tempo::backend_from_env();
  bool compare = false;
};

std::size_t parse_count(std::string_view v, const char* name) {
  std::size_t x = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || p != v.data() + v.size() || x == 0 || x > (1u << 20))
    throw std::invalid_argument(std::string(name) + " must be an integer from 1 to 1048576, got '" + std::string(v) + "'");
  return x;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string_view s = argv[i];
    if (s == "--help") {
      std::puts("pipeline [--batches=N] [--batch=M] [--backend=auto|cpu|cuda] [--compare]");
      std::exit(0);
    } else if (s.starts_with("--batches=")) {
      a.batches = parse_count(s.substr(10), "--batches");
    } else if (s.starts_with("--batch=")) {
      a.batch = parse_count(s.substr(8), "--batch");
    } else if (s.starts_with("--backend=")) {
      a.backend = tempo::parse_backend(s.substr(10));
    } else if (s == "--compare") {
      a.compare = true;
    } else {
      throw std::invalid_argument("unknown argument '" + std::string(s) + "' (try --help)");
    }
  }
  return a;
}

// One batch of messages of 16..1024 bytes, back to back with their offsets.
struct Messages {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};
  Operand operand() const { return Operand::variable(data, offsets); }
};

std::vector<Messages> make_stream(const Args& a) {
  std::mt19937_64 rng(2026);
  std::vector<Messages> stream(a.batches);
  for (auto& m : stream)
    for (std::size_t i = 0; i < a.batch; ++i) {
      const std::size_t len = 16 + rng() % 1009;
      for (std::size_t k = 0; k < len; ++k) m.data.push_back(static_cast<std::uint8_t>(rng()));
      m.offsets.push_back(m.data.size());
    }
  return stream;
}

struct Totals {
  double ms = 0;
  std::size_t verified = 0, failed = 0;
  tempo::gpu::BatchReport last_hash, last_sign, last_verify;
  std::vector<std::uint8_t> digests;  // every batch's, in order (to compare the two runs)
};

// The three stages' ops and the signing key, copied per item (the ops take one key per item).
struct Stages {
  tempo::keccak::HashOp hash{tempo::keccak::Algorithm::sha3_256, kDigest};
  tempo::faest::SignOp sign_op{kParams};
  tempo::faest::VerifyOp verify_op{kParams};
  std::vector<std::uint8_t> secret_keys, public_keys;
  Stages(const tempo::faest::KeyPair& kp, std::size_t batch) {
    for (std::size_t i = 0; i < batch; ++i) {
      secret_keys.insert(secret_keys.end(), kp.secret_key.begin(), kp.secret_key.end());
      public_keys.insert(public_keys.end(), kp.public_key.begin(), kp.public_key.end());
    }
  }
  ~Stages() { tempo::secure_zero(secret_keys); }
  Stages(const Stages&) = delete;
  Stages& operator=(const Stages&) = delete;

  void sign(tempo::Task& t, tempo::gpu::Engine& e, std::span<const std::uint8_t> digests, std::vector<std::uint8_t>& sigs,
            Totals& tot, const tempo::gpu::RunOptions& opt) {
    const std::size_t n = digests.size() / kDigest;
    sigs.resize(n * tempo::faest::signature_size(kParams));
    tot.last_sign = e.run(t, sign_op, {Operand::fixed(std::span(secret_keys).first(n * 32), 32), Operand::fixed(digests, kDigest)},
                          sigs, opt);
  }
  void verify(tempo::Task& t, tempo::gpu::Engine& e, std::span<const std::uint8_t> digests,
              std::span<const std::uint8_t> sigs, Totals& tot, const tempo::gpu::RunOptions& opt) {
    const std::size_t n = digests.size() / kDigest, sig = tempo::faest::signature_size(kParams);
    std::vector<std::uint8_t> ok(n);
    tot.last_verify = e.run(t, verify_op,
                            {Operand::fixed(std::span(public_keys).first(n * 32), 32), Operand::fixed(digests, kDigest),
                             Operand::fixed(sigs, sig)},
                            ok, opt);
    for (std::uint8_t v : ok) (v == 1 ? tot.verified : tot.failed) += 1;
  }
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// One run's digests (all batches, in order) and its per-batch views.
struct Run {
  Totals tot;
  std::size_t batch;
  explicit Run(std::size_t batches, std::size_t batch_size) : batch(batch_size) {
    tot.digests.resize(batches * batch_size * kDigest);
  }
  std::span<std::uint8_t> digests(std::size_t k) { return std::span(tot.digests).subspan(k * batch * kDigest, batch * kDigest); }
};

// Three stages in flight: batch k is hashed (gpu::Pipeline, depth 2: on a device when one
// pays) while batch j = k - 2 is signed and batch j - 1 verified, side by side (t.join).
Totals run_overlapped(tempo::ThreadPool& pool, Stages& st, const std::vector<Messages>& stream, const Args& a) {
  Run run(stream.size(), a.batch);
  tempo::gpu::Engine& e = tempo::gpu::Engine::shared();
  const tempo::gpu::RunOptions opt(a.backend);
  std::vector<std::uint8_t> sigs[2];  // batch j's signatures in sigs[j % 2]
  const auto t0 = std::chrono::steady_clock::now();
  pool.run([&](tempo::Task& t) {
    tempo::gpu::Pipeline hashes(e, 2);
    std::optional<std::size_t> unverified;  // the batch signed last
    const auto advance = [&](tempo::Task& tt, const tempo::gpu::Pipeline::Done& hashed) {
      run.tot.last_hash = hashed.report;
      const std::size_t j = hashed.tag;
      tt.join([&](tempo::Task& a1) { st.sign(a1, e, run.digests(j), sigs[j % 2], run.tot, opt); },
              [&](tempo::Task& a2) {
                if (unverified) st.verify(a2, e, run.digests(*unverified), sigs[*unverified % 2], run.tot, opt);
              });
      unverified = j;
    };
    for (std::size_t k = 0; k < stream.size(); ++k)
      if (auto done = hashes.submit(t, st.hash, {stream[k].operand()}, run.digests(k), k, opt)) advance(t, *done);
    for (const auto& done : hashes.drain(t)) advance(t, done);
    if (unverified) st.verify(t, e, run.digests(*unverified), sigs[*unverified % 2], run.tot, opt);
  });
  run.tot.ms = ms_since(t0);
  return run.tot;
}

Totals run_one_after_another(tempo::ThreadPool& pool, Stages& st, const std::vector<Messages>& stream, const Args& a) {
  Run run(stream.size(), a.batch);
  tempo::gpu::Engine& e = tempo::gpu::Engine::shared();
  const tempo::gpu::RunOptions opt(a.backend);
  std::vector<std::uint8_t> sigs;
  const auto t0 = std::chrono::steady_clock::now();
  pool.run([&](tempo::Task& t) {
    for (std::size_t k = 0; k < stream.size(); ++k) {
      run.tot.last_hash = e.run(t, st.hash, {stream[k].operand()}, run.digests(k), opt);
      st.sign(t, e, run.digests(k), sigs, run.tot, opt);
      st.verify(t, e, run.digests(k), sigs, run.tot, opt);
    }
  });
  run.tot.ms = ms_since(t0);
  return run.tot;
}

void print(const char* name, const Totals& tot, std::size_t messages) {
  std::printf("%-22s %9.1f ms  %9.0f messages/s  verified %zu, failed %zu\n", name, tot.ms,
              static_cast<double>(messages) / (tot.ms / 1e3), tot.verified, tot.failed);
  std::printf("  last batches: hash on %s (%s), sign on %s, verify on %s\n",
              std::string(tempo::gpu::placement_name(tot.last_hash.ran_on)).c_str(), tot.last_hash.reason.c_str(),
              std::string(tempo::gpu::placement_name(tot.last_sign.ran_on)).c_str(),
              std::string(tempo::gpu::placement_name(tot.last_verify.ran_on)).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse(argc, argv);
    tempo::ThreadPool pool;
    const tempo::faest::KeyPair kp = tempo::faest::keygen(kParams);  // OS randomness
    Stages st(kp, a.batch);
    const std::vector<Messages> stream = make_stream(a);
    const std::size_t messages = a.batches * a.batch;
    std::printf("%zu batches of %zu messages: SHA3-256, then FAEST-128f sign and verify; backend %s, %zu threads, %d devices\n",
                a.batches, a.batch, std::string(tempo::backend_name(a.backend)).c_str(), pool.thread_count(),
                tempo::gpu::Engine::shared().devices());
    // Warm-up: the engine's per-op state and the cost models' first observations.
    run_one_after_another(pool, st, std::vector<Messages>(stream.begin(), stream.begin() + 1), a);
    const Totals over = run_overlapped(pool, st, stream, a);
    print("overlapped (Pipeline)", over, messages);
    bool ok = over.failed == 0 && over.verified == messages;
    if (a.compare) {
      const Totals seq = run_one_after_another(pool, st, stream, a);
      print("one after another", seq, messages);
      std::printf("overlapped / one after another: %.3f\n", over.ms / seq.ms);
      ok = ok && seq.failed == 0 && seq.verified == messages && seq.digests == over.digests;
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipeline: %s\n", e.what());
    return 2;
  }
}
