#include <tempo/keccak/offload.hpp>
#include <tempo/tempo.hpp>

#include <cstdio>
#include <vector>

int main() {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  std::vector<std::uint8_t> msgs(10 * 32, 0), out(10 * 32);
  pool.run([&](tempo::Task& t) {
    tempo::keccak::hash_batch(t, tempo::keccak::Algorithm::shake256, tempo::keccak::FixedBatch{msgs, 32, 10}, 32, out,
                              tempo::Backend::cpu);
  });
  // SHAKE256 of 32 zero bytes starts with f5 97 (hashlib.shake_256(bytes(32)).hexdigest(2)).
  std::printf("%02x%02x\n", out[0], out[1]);
  return out[0] == 0xf5 && out[1] == 0x97 ? 0 : 1;
}
