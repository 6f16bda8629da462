// Guide, part 4: FAEST signatures, one at a time and in batches (workloads/faest).
#include <tempo/faest.hpp>
#include <tempo/tempo.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

int main() {
  using tempo::faest::Params;
  tempo::ThreadPool pool;
  const auto kp = tempo::faest::keygen(Params::faest_128f);
  const std::vector<std::uint8_t> msg = {1, 2, 3};
  const auto sig = tempo::faest::sign(Params::faest_128f, kp.secret_key, msg);
  const bool ok = tempo::faest::verify(Params::faest_128f, kp.public_key, msg, sig);

  const std::vector<std::vector<std::uint8_t>> keys(8, kp.secret_key), pubs(8, kp.public_key), msgs(8, msg);
  std::vector<std::vector<std::uint8_t>> sigs;
  std::vector<bool> good;
  pool.run([&](tempo::Task& t) {
    tempo::gpu::BatchReport r = tempo::faest::sign_batch(t, Params::faest_128f, keys, msgs, sigs);  // TEMPO_BACKEND
    std::printf("%zu signatures, %s\n", r.items, r.reason.c_str());
    tempo::faest::verify_batch(t, Params::faest_128f, pubs, msgs, sigs, good, tempo::Backend::cpu);
  });
  return ok && good.size() == 8 ? 0 : 1;
}
