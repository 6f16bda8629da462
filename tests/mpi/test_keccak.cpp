// Distributed hash_batch equals the single-process serial hash, for 1, 2 and 4 ranks
// (the same binary runs under each: equal to one reference means equal to each other).
#include <catch2/catch.hpp>

#include <tempo/keccak/batch.hpp>
#include <tempo/mpi/keccak.hpp>

#include "common.hpp"

using namespace tempo;
using keccak::Algorithm;

namespace {

struct Varied {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};
  keccak::MessageBatch batch() const { return {data, offsets}; }
};

// Lengths 0..400, some long ones, so pieces cut by work differ from pieces cut by count.
Varied varied(std::size_t n, std::uint64_t seed) {
  Varied v;
  const auto lens = mpi_test::bytes(n, seed);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t len = i % 97 == 5 ? 3000 : lens[i] * 400u / 255u;
    const auto msg = mpi_test::bytes(len, seed + i);
    v.data.insert(v.data.end(), msg.begin(), msg.end());
    v.offsets.push_back(v.data.size());
  }
  return v;
}

std::vector<std::uint8_t> reference(Algorithm a, const keccak::MessageBatch& b, std::size_t out_bytes) {
  std::vector<std::uint8_t> out(b.size() * out_bytes);
  keccak::hash_batch_cpu_serial(a, b, out_bytes, out);
  return out;
}

}  // namespace

TEST_CASE("fixed-length SHAKE256 batch equals the serial hash", "[mpi][keccak]") {
  const bool root = mpi_test::rank() == 0;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{2000}}) {
    CAPTURE(n);
    const auto data = mpi_test::bytes(n * 32, n);
    std::vector<std::uint8_t> out(root ? n * 32 : 0, 0xEE);
    mpi::Report r;
    mpi_test::pool().run([&](Task& t) {
      if (root)
        r = mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake256, keccak::FixedBatch{data, 32, n}, 32, out);
      else
        r = mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake256, keccak::FixedBatch{}, 32, {});
    });
    CHECK(r.items == n);
    CHECK(r.ranks == mpi_test::size());
    if (root) {
      std::vector<std::uint64_t> offs(n + 1);
      for (std::size_t i = 0; i <= n; ++i) offs[i] = 32 * i;
      CHECK(out == reference(Algorithm::shake256, {data, offs}, 32));
      std::size_t sum = 0;
      for (auto c : r.rank_items) sum += c;
      CHECK(sum == n);
    }
  }
}

TEST_CASE("variable-length batches, every piece count, equal the serial hash", "[mpi][keccak]") {
  const bool root = mpi_test::rank() == 0;
  const Varied v = varied(700, 7);
  for (std::size_t pieces : {std::size_t{1}, std::size_t{3}, std::size_t{64}}) {
    CAPTURE(pieces);
    for (Algorithm a : {Algorithm::sha3_256, Algorithm::turboshake128, Algorithm::kt128}) {
      const std::size_t ob = a == Algorithm::sha3_256 ? 32 : 48;
      std::vector<std::uint8_t> out(root ? 700 * ob : 0);
      mpi::Options o;
      o.subchunks = pieces;
      mpi_test::pool().run([&](Task& t) {
        mpi::keccak::hash_batch(t, MPI_COMM_WORLD, a, root ? v.batch() : keccak::MessageBatch{}, ob, out, o);
      });
      if (root) CHECK(out == reference(a, v.batch(), ob));
    }
  }
}

TEST_CASE("a root other than rank 0", "[mpi][keccak]") {
  const int root_rank = mpi_test::size() - 1;
  const bool root = mpi_test::rank() == root_rank;
  const Varied v = varied(300, 11);
  std::vector<std::uint8_t> out(root ? 300 * 32 : 0);
  mpi::Options o;
  o.root = root_rank;
  mpi_test::pool().run([&](Task& t) {
    mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake128, root ? v.batch() : keccak::MessageBatch{}, 32, out, o);
  });
  if (root) CHECK(out == reference(Algorithm::shake128, v.batch(), 32));
}

TEST_CASE("work, not count, decides the ranges", "[mpi][keccak]") {
  // One very long message first: with 2+ ranks, rank 0 gets far fewer items.
  const bool root = mpi_test::rank() == 0;
  Varied v;
  v.data = mpi_test::bytes(200000, 3);
  v.offsets.push_back(v.data.size());
  for (int i = 0; i < 399; ++i) {
    v.data.push_back(static_cast<std::uint8_t>(i));
    v.offsets.push_back(v.data.size());
  }
  std::vector<std::uint8_t> out(root ? 400 * 32 : 0);
  mpi::Report r;
  mpi_test::pool().run([&](Task& t) {
    r = mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake256, root ? v.batch() : keccak::MessageBatch{}, 32, out);
  });
  if (root) {
    CHECK(out == reference(Algorithm::shake256, v.batch(), 32));
    if (mpi_test::size() > 1) CHECK(r.rank_items[0] < r.rank_items[1]);
  }
}

TEST_CASE("a bad batch at the root fails on every rank with std::invalid_argument", "[mpi][errors]") {
  const bool root = mpi_test::rank() == 0;
  const auto data = mpi_test::bytes(100, 1);
  std::vector<std::uint8_t> out(root ? 3 * 32 : 0);  // wrong: 100 / 32 is not whole
  mpi_test::pool().run([&](Task& t) {
    CHECK_THROWS_AS(mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake256,
                                    root ? keccak::FixedBatch{data, 32, 3} : keccak::FixedBatch{}, 32, out),
                    std::invalid_argument);
    std::vector<std::uint64_t> bad_offsets{0, 50, 40, 100};
    CHECK_THROWS_WITH(mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake256,
                                      root ? keccak::MessageBatch{data, bad_offsets} : keccak::MessageBatch{}, 32, out),
                      Catch::Contains("offsets"));
    mpi::Options o;
    o.subchunks = 65;
    CHECK_THROWS_WITH(mpi::keccak::hash_batch(t, MPI_COMM_WORLD, Algorithm::shake256,
                                      root ? keccak::FixedBatch{data, 25, 4} : keccak::FixedBatch{}, 32,
                                      root ? std::span<std::uint8_t>(out.data(), 0) : std::span<std::uint8_t>{}, o),
                      Catch::Contains("subchunks"));
  });
}
