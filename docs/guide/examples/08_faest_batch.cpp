// Guide, part 4: FAEST signatures, one at a time and in batches (workloads/faest).
#include <tempo/faest.hpp>
#include <tempo/tempo.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  using tempo::faest::Params;
  tempo::ThreadPool pool;
  const tempo::faest::KeyPair kp = tempo::faest::keygen(Params::faest_128f);  // OS randomness
  const std::vector<std::uint8_t> msg = {1, 2, 3};
  const std::vector<std::uint8_t> sig = tempo::faest::sign(Params::faest_128f, kp.secret_key, msg);  // rho from the OS
  const bool ok = tempo::faest::verify(Params::faest_128f, kp.public_key, msg, sig);

  // Batches take any ranges of byte containers: here 8 keys, 8 public keys and 8 messages.
  const std::vector<std::vector<std::uint8_t>> keys(8, kp.secret_key), pubs(8, kp.public_key), msgs(8, msg);
  std::vector<std::vector<std::uint8_t>> sigs;  // resized to 8 signatures of signature_size(p) bytes
  std::vector<bool> good;                        // resized to 8 verdicts
  pool.run([&](tempo::Task& t) {
    tempo::gpu::BatchReport r = tempo::faest::sign_batch(t, Params::faest_128f, keys, msgs, sigs);  // TEMPO_BACKEND
    std::printf("%zu signatures, %s\n", r.items, r.reason.c_str());
    tempo::faest::verify_batch(t, Params::faest_128f, pubs, msgs, sigs, good, tempo::Backend::cpu);
  });
  return ok && good.size() == 8 ? 0 : 1;
}
