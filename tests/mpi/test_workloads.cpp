// FAEST batch signing and TFHE gate batches over the ranks: byte-identical to one process.
#include <catch2/catch.hpp>

#include "common.hpp"

#ifdef TEMPO_MPI_HAVE_FAEST
#include <tempo/mpi/faest.hpp>
#endif
#ifdef TEMPO_MPI_HAVE_TFHE
#include <tempo/mpi/tfhe.hpp>
#endif

using namespace tempo;

#ifdef TEMPO_MPI_HAVE_FAEST
TEST_CASE("FAEST-128f batch signing equals single signatures", "[mpi][faest]") {
  const auto p = faest::Params::faest_128f;
  const bool root = mpi_test::rank() == 0;
  const std::size_t n = 3;
  std::vector<faest::KeyPair> keys;
  std::vector<std::vector<std::uint8_t>> msgs, rhos;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t ctr = i;
    keys.push_back(faest::keygen(p, [&](std::span<std::uint8_t> out) {
      const auto b = mpi_test::bytes(out.size(), 1000 + ctr++);
      std::copy(b.begin(), b.end(), out.begin());
    }));
    msgs.push_back(mpi_test::bytes(10 + 50 * i, 77 + i));
    rhos.push_back(mpi_test::bytes(16, 99 + i));
  }
  std::vector<std::span<const std::uint8_t>> sk, m, r;
  for (std::size_t i = 0; i < n && root; ++i) {
    sk.emplace_back(keys[i].secret_key);
    m.emplace_back(msgs[i]);
    r.emplace_back(rhos[i]);
  }
  const std::size_t sig = faest::signature_size(p);
  std::vector<std::uint8_t> out(root ? n * sig : 0);
  mpi_test::pool().run([&](Task& t) { mpi::faest_sign_batch(t, MPI_COMM_WORLD, p, sk, m, r, out); });
  if (root)
    for (std::size_t i = 0; i < n; ++i) {
      const auto one = faest::sign(p, keys[i].secret_key, msgs[i], rhos[i]);
      CHECK(std::equal(one.begin(), one.end(), out.begin() + static_cast<std::ptrdiff_t>(i * sig)));
    }
  // No rhos: the root draws them; the signatures verify.
  mpi_test::pool().run([&](Task& t) { mpi::faest_sign_batch(t, MPI_COMM_WORLD, p, sk, m, {}, out); });
  if (root)
    for (std::size_t i = 0; i < n; ++i)
      CHECK(faest::verify(p, keys[i].public_key, msgs[i], std::span(out).subspan(i * sig, sig)));
}
#endif

#ifdef TEMPO_MPI_HAVE_TFHE
TEST_CASE("TFHE gate batches equal one process (TOY256)", "[mpi][tfhe]") {
  const auto params = tfhe::Params::preset("TOY256");
  std::array<std::uint8_t, 32> seed{};
  seed[0] = 42;
  const tfhe::Keys keys = tfhe::keygen_from_seed(params, seed);  // every rank: same seed, same key
  const bool root = mpi_test::rank() == 0;
  const std::size_t n = 6;
  std::vector<tfhe::Ciphertext> xs, ys;
  for (std::size_t i = 0; i < n; ++i) {
    seed[1] = static_cast<std::uint8_t>(i);
    seed[2] = 1;
    xs.push_back(tfhe::encrypt_bit(keys.secret, (i & 1) != 0, seed));
    seed[2] = 2;
    ys.push_back(tfhe::encrypt_bit(keys.secret, (i & 2) != 0, seed));
  }
  std::vector<tfhe::Ciphertext> out(root ? n : 0), expect(n);
  mpi_test::pool().run([&](Task& t) {
    if (root)
      mpi::tfhe_eval_gates(t, MPI_COMM_WORLD, keys.evaluation, tfhe::Gate::nand, xs, ys, out, tfhe::Backend::cpu);
    else
      mpi::tfhe_eval_gates(t, MPI_COMM_WORLD, keys.evaluation, tfhe::Gate::nand, {}, {}, {}, tfhe::Backend::cpu);
    tfhe::eval_gates(t, keys.evaluation, tfhe::Gate::nand, xs, ys, expect, tfhe::Backend::cpu);
  });
  if (root) {
    CHECK(out == expect);
    for (std::size_t i = 0; i < n; ++i) CHECK(tfhe::decrypt_bit(keys.secret, out[i]) == !((i & 1) && (i & 2)));
  }
}
#endif
