// Guide, part 4: TFHE gates in batches (workloads/tfhe).
#include <tempo/tempo.hpp>
#include <tempo/tfhe.hpp>

#include <cstdio>
#include <string>
#include <vector>

int main() {
  tempo::ThreadPool pool;
  using tempo::tfhe::Ciphertext;
  const tempo::tfhe::Keys keys = tempo::tfhe::keygen(tempo::tfhe::Params::preset("PN10QP27"));
  std::vector<Ciphertext> xs, ys;
  for (int i = 0; i < 64; ++i) {
    xs.push_back(tempo::tfhe::encrypt_bit(keys.secret, i % 2 == 0));  // fresh OS randomness
    ys.push_back(tempo::tfhe::encrypt_bit(keys.secret, i % 3 == 0));
  }
  std::vector<Ciphertext> out(xs.size()), fresh(xs.size());
  pool.run([&](tempo::Task& t) {
    tempo::gpu::BatchReport r =
        tempo::tfhe::eval_gates(t, keys.evaluation, tempo::tfhe::Gate::nand, xs, ys, out);  // TEMPO_BACKEND
    std::printf("%zu gates on %s\n", r.items, std::string(tempo::gpu::placement_name(r.ran_on)).c_str());
    tempo::tfhe::eval_bootstraps(t, keys.evaluation, out, fresh, tempo::Backend::cpu);
  });
  const bool first = tempo::tfhe::decrypt_bit(keys.secret, fresh[0]);  // nand(1, 1) = 0
  return first ? 1 : 0;
}
