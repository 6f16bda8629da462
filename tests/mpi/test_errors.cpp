// Failures: a rank whose op throws, an op that differs between ranks. Every rank must
// throw the same tempo::mpi::Error, nobody may hang, and the next call must work.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "common.hpp"

using namespace tempo;

namespace {

// out = in XOR 0x5A per byte. On rank `fail_rank` it throws: at its first item when
// fail_from is 0, else at a marked item (eight 0xCC bytes; the test marks item fail_from).
// Marks, not indices: Chunk::begin counts from the start of the piece a rank runs.
class XorOp final : public gpu::BatchOp {
 public:
  XorOp(int fail_rank, std::size_t fail_from, std::string key = "test/xor")
      : fail_rank_(fail_rank), fail_from_(fail_from), key_(std::move(key)), me_(mpi_test::rank()) {}
  std::string key() const override { return key_; }
  std::size_t out_stride() const override { return 8; }
  void cpu(const gpu::Chunk& c) const override {
    for (std::size_t i = 0; i < c.count; ++i) {
      const auto in = c.in[0].item(i);
      const bool marked = std::all_of(in.begin(), in.end(), [](std::uint8_t b) { return b == 0xCC; });
      if (me_ == fail_rank_ && (fail_from_ == 0 || marked)) throw std::runtime_error("an item is cursed");
      for (std::size_t b = 0; b < 8; ++b) c.out[i * 8 + b] = static_cast<std::uint8_t>(in[b] ^ 0x5A);
    }
  }

 private:
  int fail_rank_;
  std::size_t fail_from_;
  std::string key_;
  int me_;  // asked once: cpu() runs on workers, which must make no MPI call
};

struct Run {
  std::vector<std::uint8_t> in, out;
  explicit Run(std::size_t n) : in(mpi_test::bytes(n * 8, n)), out(n * 8, 0) {}
  mpi::Report go(Task& t, const gpu::BatchOp& op, mpi::Options o = {}) {
    const bool root = mpi_test::rank() == o.root;
    if (!root) return mpi::run(t, MPI_COMM_WORLD, op, std::span<const gpu::Operand>{}, {}, o);
    return mpi::run(t, MPI_COMM_WORLD, op, {gpu::Operand::fixed(in, 8)}, out, o);
  }
  bool correct() const {
    for (std::size_t i = 0; i < in.size(); ++i)
      if (out[i] != (in[i] ^ 0x5A)) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("the generic run over a user op", "[mpi]") {
  Run r(1000);
  mpi_test::pool().run([&](Task& t) { r.go(t, XorOp(-1, 0)); });
  if (mpi_test::rank() == 0) CHECK(r.correct());
}

TEST_CASE("a rank that throws: every rank throws the same Error, then the next call works", "[mpi][errors]") {
  const int ranks = mpi_test::size();
  // The last rank fails on its last piece (after sending earlier results), then rank 0
  // (the root) fails on its own range, then a middle rank from its first item.
  struct Case {
    int rank;
    std::size_t from;
  };
  for (Case c : {Case{ranks - 1, 990}, Case{0, 0}, Case{ranks / 2, 0}}) {
    CAPTURE(c.rank, c.from);
    Run r(1000);
    std::fill_n(r.in.begin() + 990 * 8, 8, 0xCC);
    bool threw = false;
    mpi_test::pool().run([&](Task& t) {
      try {
        r.go(t, XorOp(c.rank, c.from));
      } catch (const mpi::Error& e) {
        threw = true;
        CHECK(e.failed_rank() == c.rank);
        CHECK_THAT(e.what(), Catch::Contains("tempo::mpi: rank " + std::to_string(c.rank) + " failed on items [") &&
                                 Catch::Contains("is cursed"));
      }
    });
    CHECK(threw);
    Run again(500);
    mpi_test::pool().run([&](Task& t) { again.go(t, XorOp(-1, 0)); });
    if (mpi_test::rank() == 0) CHECK(again.correct());
  }
}

TEST_CASE("an op that differs between ranks is an error on every rank", "[mpi][errors]") {
  Run r(100);
  const std::string key = mpi_test::rank() == mpi_test::size() - 1 && mpi_test::size() > 1 ? "test/other" : "test/xor";
  mpi_test::pool().run([&](Task& t) {
    if (mpi_test::size() == 1) return;
    CHECK_THROWS_WITH(r.go(t, XorOp(-1, 0, key)), Catch::Contains("the root 'test/xor'"));
  });
}

TEST_CASE("empty and one-item batches, with more ranks than items", "[mpi]") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}}) {
    Run r(n);
    mpi::Report rep;
    mpi_test::pool().run([&](Task& t) { rep = r.go(t, XorOp(-1, 0)); });
    CHECK(rep.items == n);
    if (mpi_test::rank() == 0) CHECK(r.correct());
  }
}

TEST_CASE("the generic run over variable-length items with several inputs", "[mpi]") {
  // out[i] = 8-byte sum of input 0's bytes, times input 1's byte.
  class SumOp final : public gpu::BatchOp {
   public:
    std::string key() const override { return "test/sum"; }
    std::size_t inputs() const override { return 2; }
    std::size_t out_stride() const override { return 8; }
    double work(double b) const override { return 1 + b; }
    void cpu(const gpu::Chunk& c) const override {
      for (std::size_t i = 0; i < c.count; ++i) {
        std::uint64_t s = 0;
        for (auto b : c.in[0].item(i)) s += b;
        s *= c.in[1].item(i)[0];
        std::memcpy(c.out + 8 * i, &s, 8);
      }
    }
  } op;
  const std::size_t n = 500;
  const bool root = mpi_test::rank() == 0;
  std::vector<std::uint8_t> data, mult = mpi_test::bytes(n, 9);
  std::vector<std::uint64_t> offs{0};
  for (std::size_t i = 0; i < n; ++i) {
    data.resize(data.size() + (i * 37) % 200, static_cast<std::uint8_t>(i));
    offs.push_back(data.size());
  }
  std::vector<std::uint8_t> out(root ? n * 8 : 0);
  mpi_test::pool().run([&](Task& t) {
    if (root)
      mpi::run(t, MPI_COMM_WORLD, op, {gpu::Operand::variable(data, offs), gpu::Operand::fixed(mult, 1)}, out);
    else
      mpi::run(t, MPI_COMM_WORLD, op, std::span<const gpu::Operand>{}, {});
  });
  if (root)
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t got = 0;
      std::memcpy(&got, out.data() + 8 * i, 8);
      CHECK(got == (offs[i + 1] - offs[i]) * (i & 0xFF) * mult[i]);
    }
}
