// The seed's two byte-equality gates (Lux fhe_dispatch_equiv_test / fhe_backend_equiv_test):
//  (a) dispatch surface: keygen_deterministic, encrypt_bit_deterministic, decrypt round trip,
//      eval_bootstrap,
//      byte-equal between backend cpu and the other backend (TEMPO_TFHE_EQUIV_BACKEND;
//      default cuda when a device and the CUDA kernels are present, else auto);
//  (b) backend selector: the KAT corpus (tests/data/tfhe/kat.txt) replayed first, then a
//      sweep with a distinct seed schedule comparing the TEMPO_BACKEND-selected batch with
//      the per-call override Backend::cpu.
// Sizes: TEMPO_TFHE_EQUIV_SEEDS seeds per parameter set (default 4, the TOY sets only);
// TEMPO_TFHE_FULL=1 runs all six sets (1000 seeds each unless the seed knob says otherwise);
// TEMPO_TFHE_EQUIV_SETS=A,B runs those sets only.
// TEMPO_TFHE_WRITE_KAT=<file> regenerates the corpus.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <tempo/keccak.hpp>

#include "helpers.hpp"

using namespace tempo::tfhe;

namespace {

using Digest = std::array<std::uint8_t, 32>;

std::string hex(std::span<const std::uint8_t> b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (auto v : b) { s += d[v >> 4]; s += d[v & 15]; }
  return s;
}

Digest sha3(std::span<const std::byte> b) {
  Digest out{};
  tempo::keccak::sha3_256({reinterpret_cast<const std::uint8_t*>(b.data()), b.size()}, out);
  return out;
}

// seed_i = TurboSHAKE256(root || i), 32 bytes.
tfhe_test::Seed derive(std::string_view root, std::uint64_t i) {
  std::string msg(root);
  for (int k = 0; k < 8; ++k) msg.push_back(static_cast<char>(i >> (8 * k)));
  tfhe_test::Seed s{};
  tempo::keccak::turboshake256({reinterpret_cast<const std::uint8_t*>(msg.data()), msg.size()}, 0x1F, s);
  return s;
}

// TEMPO_TFHE_EQUIV_SETS (comma-separated) picks the sets, e.g. a new set's device gate.
std::vector<std::string> sets() {
  if (const char* e = std::getenv("TEMPO_TFHE_EQUIV_SETS"); e != nullptr && *e != '\0') {
    std::vector<std::string> out;
    std::stringstream in(e);
    for (std::string name; std::getline(in, name, ',');)
      if (!name.empty()) out.emplace_back(Params::preset(name).name);
    return out;
  }
  if (tfhe_test::full()) return {"TOY256", "TOY256G2", "PN10QP27", "PN10QP27L3", "PN10QP27L3G2", "PN11QP54"};
  return {"TOY256", "TOY256G2"};
}

std::size_t seeds_per_set() { return tfhe_test::env_count("TEMPO_TFHE_EQUIV_SEEDS", tfhe_test::full() ? 1000 : 4); }

// Default: cuda where the CUDA path runs (a device and a CUDA build), else auto.
tempo::Backend other_backend() {
  static constexpr tempo::Backend order[] = {tempo::Backend::auto_select, tempo::Backend::cpu, tempo::Backend::cuda,
                                             tempo::Backend::cuda};
  if (const auto i = tempo::env_choice("TEMPO_TFHE_EQUIV_BACKEND", {"auto", "cpu", "cuda", "gpu"})) return order[*i];
  return tempo::gpu::available(tempo::Backend::cuda) ? tempo::Backend::cuda : tempo::Backend::auto_select;
}

// The per-seed record both surfaces compare.
struct Record {
  bool bit;
  Digest ct, boot;
  bool round_trip;
};

}  // namespace

TEST_CASE("dispatch surface byte-equal between backends", "[equiv]") {
  const tempo::Backend other = other_backend();
  const std::size_t seeds = seeds_per_set();
  // Key generation per seed is seconds for the real sets: all seeds for the TOY sets, the first few otherwise.
  const auto keygen_seeds =
      static_cast<std::size_t>(tempo::env_integer("TEMPO_TFHE_EQUIV_KEYGENS", 0, 1000000).value_or(4));
  std::size_t equal = 0, total = 0;
  for (const auto& name : sets()) {
    const Params p = Params::preset(name);
    const Keys& keys = tfhe_test::keys(name, 0);
    std::vector<Ciphertext> cts;
    std::vector<bool> bits;
    for (std::size_t i = 0; i < seeds; ++i) {
      const auto s = derive("tempo-tfhe-dispatch-equiv-v1/" + name, i);
      if (name.starts_with("TOY") || i < keygen_seeds) {
        const Keys a = keygen_deterministic(p, s);
        const Keys b = tfhe_test::pool().run([&](tempo::Task& t) { return keygen_deterministic(t, p, s); });
        REQUIRE(to_bytes(a.secret) == to_bytes(b.secret));
        REQUIRE(digest(a.evaluation) == digest(b.evaluation));
      }
      bits.push_back((s[0] & 1) != 0);
      cts.push_back(encrypt_bit_deterministic(keys.secret, bits.back(), s));
      REQUIRE(to_bytes(cts.back()) == to_bytes(encrypt_bit_deterministic(keys.secret, bits.back(), s)));
    }
    std::vector<Ciphertext> on_cpu(seeds), on_other(seeds);
    tfhe_test::pool().run([&](tempo::Task& t) {
      eval_bootstraps(t, keys.evaluation, cts, on_cpu, tempo::Backend::cpu);
      eval_bootstraps(t, keys.evaluation, cts, on_other, other);
    });
    for (std::size_t i = 0; i < seeds; ++i) {
      INFO(name << " seed " << i);
      const bool same = to_bytes(on_cpu[i]) == to_bytes(on_other[i]) && decrypt_bit(keys.secret, cts[i]) == bits[i] &&
                        decrypt_bit(keys.secret, on_cpu[i]) == bits[i];
      REQUIRE(same);
      equal += same;
      ++total;
    }
  }
  WARN("dispatch surface: " << equal << "/" << total << " byte-equal (backend cpu vs " << tempo::backend_name(other)
                             << ")");
}

namespace {

struct KatEntry {
  std::string params;
  std::uint64_t index;
  std::string sk, ek, ct, boot;
  bool bit;
};

KatEntry make_entry(const std::string& name, std::uint64_t index) {
  const Params p = Params::preset(name);
  const auto s = derive("tempo-tfhe-kat-v1/" + name, index);
  const Keys k = tfhe_test::pool().run([&](tempo::Task& t) { return keygen_deterministic(t, p, s); });
  const bool bit = ((index + p.id) & 1) != 0;  // both values across the corpus
  const Ciphertext c = encrypt_bit_deterministic(k.secret, bit, derive("tempo-tfhe-kat-v1/ct/" + name, index));
  std::vector<Ciphertext> in{c}, out(1);
  tfhe_test::pool().run([&](tempo::Task& t) { eval_bootstraps(t, k.evaluation, in, out); });  // TEMPO_BACKEND
  REQUIRE(decrypt_bit(k.secret, out[0]) == bit);
  return {name, index, hex(sha3(to_bytes(k.secret))), hex(digest(k.evaluation)), hex(sha3(to_bytes(c))),
          hex(sha3(to_bytes(out[0]))), bit};
}

}  // namespace

TEST_CASE("backend selector: KAT corpus, then a sweep", "[equiv][kat]") {
  if (const char* path = std::getenv("TEMPO_TFHE_WRITE_KAT"); path != nullptr && *path != '\0') {
    std::ofstream f(path);
    f << "# params index bit sha3(secret key) sha3(evaluation key) sha3(ciphertext) sha3(bootstrapped)\n";
    for (const auto& [name, idx] : std::vector<std::pair<std::string, std::uint64_t>>{
             {"TOY256", 0}, {"TOY256", 1}, {"PN10QP27", 0}, {"PN11QP54", 0}, {"TOY256G2", 0}, {"PN10QP27L3G2", 0}}) {
      const KatEntry e = make_entry(name, idx);
      f << e.params << ' ' << e.index << ' ' << e.bit << ' ' << e.sk << ' ' << e.ek << ' ' << e.ct << ' ' << e.boot << '\n';
    }
  }
  // TEMPO_TFHE_DATA_DIR overrides the compiled-in folder (binaries carried to another host).
  const char* env_dir = std::getenv("TEMPO_TFHE_DATA_DIR");
  const std::string dir = env_dir != nullptr && *env_dir != '\0' ? env_dir : TEMPO_TFHE_DATA_DIR;
  std::ifstream f(dir + "/kat.txt");
  INFO("corpus: " << dir << "/kat.txt");
  REQUIRE(f.good());
  std::string line;
  std::size_t replayed = 0, listed = 0;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    KatEntry want;
    in >> want.params >> want.index >> want.bit >> want.sk >> want.ek >> want.ct >> want.boot;
    ++listed;
    if (!want.params.starts_with("TOY") && !tfhe_test::full()) continue;
    const KatEntry got = make_entry(want.params, want.index);
    INFO("KAT " << want.params << " " << want.index);
    CHECK(got.sk == want.sk);
    CHECK(got.ek == want.ek);
    CHECK(got.ct == want.ct);
    CHECK(got.boot == want.boot);
    ++replayed;
  }
  REQUIRE(listed == 6);
  // Sweep: distinct seed schedule; TEMPO_BACKEND's choice against the per-call override cpu.
  const std::size_t seeds = seeds_per_set();
  std::size_t equal = 0, total = 0;
  for (const auto& name : sets()) {
    const Keys& keys = tfhe_test::keys(name, 1);
    std::vector<Ciphertext> cts;
    for (std::size_t i = 0; i < seeds; ++i) {
      const auto s = derive("tempo-tfhe-backend-equiv-sweep-v1/" + name, i);
      cts.push_back(encrypt_bit_deterministic(keys.secret, (s[0] & 1) != 0, s));
    }
    std::vector<Ciphertext> by_env(seeds), by_cpu(seeds);
    tfhe_test::pool().run([&](tempo::Task& t) {
      eval_bootstraps(t, keys.evaluation, cts, by_env);  // TEMPO_BACKEND
      eval_bootstraps(t, keys.evaluation, cts, by_cpu, tempo::Backend::cpu);
    });
    for (std::size_t i = 0; i < seeds; ++i) {
      INFO(name << " sweep seed " << i);
      REQUIRE(to_bytes(by_env[i]) == to_bytes(by_cpu[i]));
      ++equal;
      ++total;
    }
  }
  WARN("backend selector: KAT " << replayed << "/" << listed << " replayed byte-equal, sweep " << equal << "/" << total
                                << " byte-equal");
}
