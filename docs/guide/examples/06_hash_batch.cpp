// Guide, part 4: hashing a batch of messages (CPU, GPU or both: TEMPO_BACKEND decides).
#include <tempo/keccak/offload.hpp>
#include <tempo/tempo.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

int main() {
  using tempo::keccak::Algorithm;
  tempo::ThreadPool pool;

  // Messages of any length: laid end to end, with n + 1 offsets.
  const std::vector<std::string> msgs = {"abc", "", "tempo", "a longer message"};
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};
  for (const std::string& m : msgs) {
    data.insert(data.end(), m.begin(), m.end());
    offsets.push_back(data.size());
  }
  const tempo::keccak::MessageBatch batch{data, offsets};
  std::vector<std::uint8_t> digests(msgs.size() * 32);

  // Messages of one length: no offsets needed.
  std::vector<std::uint8_t> fixed(1000 * 64, 0x5a);
  const tempo::keccak::FixedBatch fb{fixed, 64, 1000};
  std::vector<std::uint8_t> fixed_out(1000 * 32);

  pool.run([&](tempo::Task& t) {
    tempo::gpu::BatchReport r = tempo::keccak::hash_batch(t, Algorithm::shake256, batch, 32, digests);
    std::printf("%zu digests, %s\n", r.items, r.reason.c_str());

    // By name, as a configuration file would give it; forced to the CPU.
    const Algorithm a = tempo::keccak::parse_algorithm("sha3-256");
    tempo::keccak::hash_batch(t, a, fb, 32, fixed_out, tempo::Backend::cpu);

    // Asynchronous, overlapping other work.
    tempo::gpu::Offload o = tempo::keccak::submit(t, Algorithm::turboshake128, fb, 32, fixed_out);
    o.join(t);
  });
  std::printf("%02x%02x...\n", digests[0], digests[1]);
}
