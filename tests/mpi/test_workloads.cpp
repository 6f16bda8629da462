// FAEST and PERK batch signing and TFHE gate batches over the ranks: byte-identical to one process.
#include <catch2/catch.hpp>

#include "common.hpp"

#ifdef TEMPO_MPI_HAVE_FAEST
#include <tempo/mpi/faest.hpp>
#endif
#ifdef TEMPO_MPI_HAVE_PERK
#include <tempo/mpi/perk.hpp>
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
  std::vector<std::uint8_t> sks, pks, msgs, rhos;
  std::vector<std::uint64_t> msg_offsets{0};
  std::vector<std::vector<std::uint8_t>> msg_list;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t ctr = i;
    keys.push_back(faest::keygen(p, [&](std::span<std::uint8_t> out) {
      const auto b = mpi_test::bytes(out.size(), 1000 + ctr++);
      std::copy(b.begin(), b.end(), out.begin());
    }));
    sks.insert(sks.end(), keys[i].secret_key.begin(), keys[i].secret_key.end());
    pks.insert(pks.end(), keys[i].public_key.begin(), keys[i].public_key.end());
    msg_list.push_back(mpi_test::bytes(10 + 50 * i, 77 + i));
    msgs.insert(msgs.end(), msg_list[i].begin(), msg_list[i].end());
    msg_offsets.push_back(msgs.size());
    const auto r = mpi_test::bytes(16, 99 + i);
    rhos.insert(rhos.end(), r.begin(), r.end());
  }
  const auto sk_op = root ? gpu::Operand::fixed(sks, 32) : gpu::Operand{};
  const auto pk_op = root ? gpu::Operand::fixed(pks, 32) : gpu::Operand{};
  const auto msg_op = root ? gpu::Operand::variable(msgs, msg_offsets) : gpu::Operand{};
  const auto rho_op = root ? gpu::Operand::fixed(rhos, 16) : gpu::Operand{};
  const std::size_t sig = faest::signature_size(p);
  std::vector<std::uint8_t> out(root ? n * sig : 0), ok(root ? n : 0);
  mpi_test::pool().run([&](Task& t) {
    mpi::faest::sign_batch_deterministic(t, MPI_COMM_WORLD, p, sk_op, msg_op, rho_op, out);
  });
  if (root)
    for (std::size_t i = 0; i < n; ++i) {
      const auto one = faest::sign_deterministic(p, keys[i].secret_key, msg_list[i], std::span(rhos).subspan(16 * i, 16));
      CHECK(std::equal(one.begin(), one.end(), out.begin() + static_cast<std::ptrdiff_t>(i * sig)));
    }
  // OS randomness on each rank: the signatures verify, over the ranks too.
  mpi_test::pool().run([&](Task& t) {
    mpi::faest::sign_batch(t, MPI_COMM_WORLD, p, sk_op, msg_op, out);
    mpi::faest::verify_batch(t, MPI_COMM_WORLD, p, pk_op, msg_op, root ? gpu::Operand::fixed(out, sig) : gpu::Operand{},
                             ok);
  });
  if (root)
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(faest::verify(p, keys[i].public_key, msg_list[i], std::span(out).subspan(i * sig, sig)));
      CHECK(ok[i] == 1);
    }
  // A wrong key length at the root: one error on every rank, before anything is sent.
  std::vector<std::uint8_t> short_keys(n * 31);
  mpi_test::pool().run([&](Task& t) {
    CHECK_THROWS_WITH(mpi::faest::sign_batch(t, MPI_COMM_WORLD, p, root ? gpu::Operand::fixed(short_keys, 31) : gpu::Operand{},
                                             msg_op, out),
                      Catch::Contains("secret key 0 is 31 bytes"));
  });
}
#endif

#ifdef TEMPO_MPI_HAVE_PERK
TEST_CASE("PERK batch signing equals single signatures (two sets)", "[mpi][perk]") {
  const bool root = mpi_test::rank() == 0;
  const std::size_t n = 5;
  for (const auto p : {perk::Params::perk_1_fast_aes_aes, perk::Params::perk_3_short_keccak_keccak}) {
    INFO(perk::name(p));
    const std::size_t sk_len = perk::secret_key_size(p), pk_len = perk::public_key_size(p),
                      sig = perk::signature_size(p);
    // Keys at a fixed stride; messages and rands (of mixed lengths) by offsets.
    std::vector<std::uint8_t> sks, pks, msgs, rands;
    std::vector<std::uint64_t> msg_offsets{0}, rand_offsets{0};
    std::vector<std::vector<std::uint8_t>> secret, msg_list, rand_list;
    for (std::size_t i = 0; i < n; ++i) {
      const perk::KeyPair kp = perk::keygen_deterministic(p, mpi_test::bytes(perk::keygen_seed_size(p), 2000 + i));
      secret.push_back(kp.secret_key);
      sks.insert(sks.end(), kp.secret_key.begin(), kp.secret_key.end());
      pks.insert(pks.end(), kp.public_key.begin(), kp.public_key.end());
      msg_list.push_back(mpi_test::bytes(3 * i * i, 300 + i));
      msgs.insert(msgs.end(), msg_list[i].begin(), msg_list[i].end());
      msg_offsets.push_back(msgs.size());
      rand_list.push_back(mpi_test::bytes(i == 4 ? 7 : perk::sign_randomness_size(p), 400 + i));
      rands.insert(rands.end(), rand_list[i].begin(), rand_list[i].end());
      rand_offsets.push_back(rands.size());
    }
    const auto sk_op = root ? gpu::Operand::fixed(sks, sk_len) : gpu::Operand{};
    const auto pk_op = root ? gpu::Operand::fixed(pks, pk_len) : gpu::Operand{};
    const auto msg_op = root ? gpu::Operand::variable(msgs, msg_offsets) : gpu::Operand{};
    const auto rand_op = root ? gpu::Operand::variable(rands, rand_offsets) : gpu::Operand{};
    std::vector<std::uint8_t> out(root ? n * sig : 0), ok(root ? n : 0);
    mpi_test::pool().run([&](Task& t) {
      mpi::perk::sign_batch_deterministic(t, MPI_COMM_WORLD, p, sk_op, msg_op, rand_op, out);
    });
    if (root)
      for (std::size_t i = 0; i < n; ++i) {
        const auto one = perk::sign_deterministic(p, secret[i], msg_list[i], rand_list[i]);
        CHECK(std::equal(one.begin(), one.end(), out.begin() + static_cast<std::ptrdiff_t>(i * sig)));
      }
    // OS randomness on each rank: the signatures verify over the ranks; a flipped byte does not.
    mpi_test::pool().run([&](Task& t) {
      mpi::perk::sign_batch(t, MPI_COMM_WORLD, p, sk_op, msg_op, out);
      if (root) out[3 * sig + 100] ^= 1;
      mpi::perk::verify_batch(t, MPI_COMM_WORLD, p, pk_op, msg_op, root ? gpu::Operand::fixed(out, sig) : gpu::Operand{},
                              ok);
    });
    if (root)
      for (std::size_t i = 0; i < n; ++i) CHECK(ok[i] == (i == 3 ? 0 : 1));
    // A wrong signature length at the root: one error on every rank, before anything is sent.
    mpi_test::pool().run([&](Task& t) {
      CHECK_THROWS_WITH(
          mpi::perk::verify_batch(t, MPI_COMM_WORLD, p, pk_op, msg_op,
                                  root ? gpu::Operand::fixed(std::span(out).first(n * (sig - 1)), sig - 1) : gpu::Operand{},
                                  ok),
          Catch::Contains("tempo::mpi::perk::verify_batch: signature 0 is " + std::to_string(sig - 1) + " bytes"));
    });
  }
}
#endif

#ifdef TEMPO_MPI_HAVE_TFHE
TEST_CASE("TFHE gate batches equal one process (TOY256)", "[mpi][tfhe]") {
  const auto params = tfhe::Params::preset("TOY256");
  std::array<std::uint8_t, 32> seed{};
  seed[0] = 42;
  const tfhe::Keys keys = tfhe::keygen_deterministic(params, seed);  // every rank: same seed, same key
  const bool root = mpi_test::rank() == 0;
  const std::size_t n = 6;
  std::vector<tfhe::Ciphertext> xs, ys;
  for (std::size_t i = 0; i < n; ++i) {
    xs.push_back(tfhe::encrypt_bit(keys.secret, (i & 1) != 0));
    ys.push_back(tfhe::encrypt_bit(keys.secret, (i & 2) != 0));
  }
  std::vector<tfhe::Ciphertext> out(root ? n : 0), fresh(root ? n : 0), expect(n), expect_fresh(n);
  mpi_test::pool().run([&](Task& t) {
    if (root) {
      mpi::tfhe::eval_gates(t, MPI_COMM_WORLD, keys.evaluation, tfhe::Gate::nand, xs, ys, out);
      mpi::tfhe::eval_bootstraps(t, MPI_COMM_WORLD, keys.evaluation, xs, fresh);
    } else {
      mpi::tfhe::eval_gates(t, MPI_COMM_WORLD, keys.evaluation, tfhe::Gate::nand, {}, {}, {});
      mpi::tfhe::eval_bootstraps(t, MPI_COMM_WORLD, keys.evaluation, {}, {});
    }
    tfhe::eval_gates(t, keys.evaluation, tfhe::Gate::nand, xs, ys, expect, tempo::Backend::cpu);
    tfhe::eval_bootstraps(t, keys.evaluation, xs, expect_fresh, tempo::Backend::cpu);
  });
  if (root) {
    CHECK(out == expect);
    CHECK(fresh == expect_fresh);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(tfhe::decrypt_bit(keys.secret, out[i]) == !((i & 1) && (i & 2)));
      CHECK(tfhe::decrypt_bit(keys.secret, fresh[i]) == ((i & 1) != 0));
    }
  }
}
#endif
