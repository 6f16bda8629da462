// The CUDA kernels' per-thread code (src/cuda/ntt_device.hpp) run on the CPU: every chunk's
// threads one after another, phase by phase (the barrier between phases is what makes that
// equivalent), the cross-chunk stages a butterfly at a time, with the launchers' geometry.
// Checks the index logic and table layout without a GPU, byte for byte against the CPU.
#include <catch2/catch.hpp>

#include <vector>

#include <tempo/ntt/detail/kernels.hpp>

#include "cuda/ntt_device.hpp"
#include "reference.hpp"
#include "tables.hpp"

using namespace ntt_test;
namespace d = tempo::ntt::detail;
namespace dev = tempo::ntt::cuda::dev;
using tempo::ntt::cuda::Params;

namespace {

template <typename W, bool Forward>
void emulate_chunks(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count) {
  const int log_c = dev::chunk_log(p);
  const std::size_t C = std::size_t{1} << log_c, chunks = count * (p.n >> log_c);
  const dev::Tw<W> tw(tables, p.n);
  std::vector<W> sm(dev::smem_words(log_c));
  for (std::size_t chunk = 0; chunk < chunks; ++chunk) {
    auto geom = [&](std::uint32_t t) {
      return dev::ChunkGeom{in + chunk * C, out + chunk * C, static_cast<std::uint32_t>((chunk % (p.n >> log_c)) * C), t};
    };
    // Poison shared memory: a phase must never read what no one wrote.
    std::fill(sm.begin(), sm.end(), static_cast<W>(0xdeadbeefdeadbeefull));
    dev::Phase ph = dev::first_phase(Forward, log_c);
    if (!ph.in_global)
      for (std::uint32_t t = 0; t < C / 8; ++t) dev::copy_in(geom(t), sm.data(), log_c);
    do {
      for (std::uint32_t t = 0; t < C / 8; ++t) dev::phase<W, Forward>(geom(t), sm.data(), tw, p, ph);
    } while (dev::next_phase(Forward, log_c, ph));
    if (!ph.out_global)
      for (std::uint32_t t = 0; t < C / 8; ++t) dev::copy_out(geom(t), sm.data(), log_c);
  }
}

template <typename W, bool Forward>
void emulate_stage(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count, int log_len) {
  // Butterflies of one stage touch disjoint pairs, so any order is the kernel's result.
  for (std::size_t tid = 0; tid < count * p.n / 2; ++tid)
    dev::stage_body<W, Forward>(tid, in, out, dev::Tw<W>(tables, p.n), p, log_len);
}

template <typename W>
void emulate_forward(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count) {
  const int log_c = dev::chunk_log(p);
  const u64* src = in;
  for (int ll = static_cast<int>(p.log_n) - 1; ll >= log_c; --ll) {
    emulate_stage<W, true>(p, tables, src, out, count, ll);
    src = out;
  }
  emulate_chunks<W, true>(p, tables, src, out, count);
}

template <typename W>
void emulate_inverse(const Params& p, const void* tables, const u64* in, u64* out, std::size_t count) {
  const int log_c = dev::chunk_log(p);
  emulate_chunks<W, false>(p, tables, in, out, count);
  for (int ll = log_c; ll < static_cast<int>(p.log_n); ++ll) emulate_stage<W, false>(p, tables, out, out, count, ll);
}

template <typename W>
void check(std::size_t n, u64 q) {
  INFO("n = " << n << ", q = " << q << ", word bits = " << sizeof(W) * 8);
  const auto t = d::build_tables(n, q, d::minimal_root(n, q), d::portable_kernels());
  const Params p = d::device_params(*t);
  REQUIRE(p.word32 == (sizeof(W) == 4));
  const auto bytes = d::device_table_bytes(*t);
  const std::size_t count = 3;
  Rng r(n * 3 + q);
  std::vector<u64> in(count * n), dev_out(count * n);
  for (auto& x : in) x = r.below(q);
  std::fill(in.begin(), in.begin() + 8, q - 1);
  emulate_forward<W>(p, bytes.data(), in.data(), dev_out.data(), count);
  auto cpu = in;
  for (std::size_t i = 0; i < count; ++i) t->kernels->forward(*t, cpu.data() + i * n);
  REQUIRE(dev_out == cpu);
  std::vector<u64> back(count * n);
  emulate_inverse<W>(p, bytes.data(), dev_out.data(), back.data(), count);
  REQUIRE(back == in);
  // Pointwise Barrett, edge values included.
  for (std::size_t i = 0; i < count * n; ++i) {
    const u64 a = i < 4 ? q - 1 - i : in[i], b = i < 4 ? q - 1 : cpu[i];
    REQUIRE(dev::mul_mod(a, b, p) == mulmod(a, b, q));
  }
}

}  // namespace

TEST_CASE("CUDA kernel logic, emulated on the CPU", "[cuda-emulated]") {
  for (std::size_t n = 16; n <= 65536; n *= 2) {
    check<std::uint32_t>(n, 1073479681);  // the largest prime below 2^30 that is 1 mod 2^17
    check<std::uint64_t>(n, 4611686018425815041ull);
  }
  check<std::uint32_t>(256, 8380417);
  check<std::uint32_t>(1024, 134215681);
  check<std::uint64_t>(2048, 18014398509404161ull);
}
