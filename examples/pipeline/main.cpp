// Two families, one dialect: a stream of message batches is hashed (Keccak, SHA3-256),
// the digests are signed (FAEST-128f) and the signatures verified, in one tempo pool,
// every stage a BatchOp on one engine, placed by one cost model.
//
//   pipeline [--batches=N] [--batch=M] [--backend=auto|cpu|cuda] [--compare] | --help
//
// Overlapped: the hash stage goes through gpu::Pipeline (depth 2), so while batch k is
// hashed (on a device when one pays) batch k - 2 is signed and verified: CPU and GPU stages
// overlap. --compare also runs the same stages one after another and prints both times.
// Exit status 1 when any signature fails to verify or the two runs' digests differ.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
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
  tempo::faest::SignOp sign{kParams};
  tempo::faest::VerifyOp verify{kParams};
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

  // Sign one batch's digests and verify the signatures.
  void sign_and_verify(tempo::Task& t, tempo::gpu::Engine& e, std::span<const std::uint8_t> digests, Totals& tot,
                       const tempo::gpu::RunOptions& opt) {
    const std::size_t n = digests.size() / kDigest, sig = tempo::faest::signature_size(kParams);
    std::vector<std::uint8_t> sigs(n * sig), ok(n);
    tot.last_sign = e.run(t, sign, {Operand::fixed(std::span(secret_keys).first(n * 32), 32), Operand::fixed(digests, kDigest)},
                          sigs, opt);
    tot.last_verify = e.run(
        t, verify,
        {Operand::fixed(std::span(public_keys).first(n * 32), 32), Operand::fixed(digests, kDigest), Operand::fixed(sigs, sig)},
        ok, opt);
    for (std::uint8_t v : ok) (v == 1 ? tot.verified : tot.failed) += 1;
  }
};

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Totals run_overlapped(tempo::ThreadPool& pool, Stages& st, const std::vector<Messages>& stream, const Args& a) {
  Totals tot;
  tot.digests.resize(stream.size() * a.batch * kDigest);
  tempo::gpu::Engine& e = tempo::gpu::Engine::shared();
  const tempo::gpu::RunOptions opt(a.backend);
  const auto t0 = std::chrono::steady_clock::now();
  pool.run([&](tempo::Task& t) {
    tempo::gpu::Pipeline hashes(e, 2);
    auto digests_of = [&](std::size_t k) { return std::span(tot.digests).subspan(k * a.batch * kDigest, a.batch * kDigest); };
    for (std::size_t k = 0; k < stream.size(); ++k) {
      // Joins batch k - 2's hashes when two are in flight; batch k - 1 and k keep hashing.
      if (auto done = hashes.submit(t, st.hash, {stream[k].operand()}, digests_of(k), k, opt)) {
        tot.last_hash = done->report;
        st.sign_and_verify(t, e, digests_of(done->tag), tot, opt);
      }
    }
    for (auto& done : hashes.drain(t)) {
      tot.last_hash = done.report;
      st.sign_and_verify(t, e, digests_of(done.tag), tot, opt);
    }
  });
  tot.ms = ms_since(t0);
  return tot;
}

Totals run_one_after_another(tempo::ThreadPool& pool, Stages& st, const std::vector<Messages>& stream, const Args& a) {
  Totals tot;
  tot.digests.resize(stream.size() * a.batch * kDigest);
  tempo::gpu::Engine& e = tempo::gpu::Engine::shared();
  const tempo::gpu::RunOptions opt(a.backend);
  const auto t0 = std::chrono::steady_clock::now();
  pool.run([&](tempo::Task& t) {
    for (std::size_t k = 0; k < stream.size(); ++k) {
      const auto digests = std::span(tot.digests).subspan(k * a.batch * kDigest, a.batch * kDigest);
      tot.last_hash = e.run(t, st.hash, {stream[k].operand()}, digests, opt);
      st.sign_and_verify(t, e, digests, tot, opt);
    }
  });
  tot.ms = ms_since(t0);
  return tot;
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
