// NttOp on the engine's simulated devices (host threads that claim chunks like devices and
// run the op's CPU code): the multi-device, split and resident paths of the batch layer,
// checked against the single-polynomial API on any machine.
#include <catch2/catch.hpp>

#include <vector>

#include <tempo/ntt.hpp>
#include <tempo/tempo.hpp>

#include "reference.hpp"

using namespace ntt_test;
using tempo::ntt::NttOp;
using tempo::ntt::OpKind;
using tempo::ntt::Plan;
namespace gpu = tempo::gpu;

namespace {
gpu::RunOptions forced(gpu::Placement p) {
  gpu::RunOptions o;
  o.backend = tempo::Backend::auto_select;
  o.force = true;
  o.forced = p;
  return o;
}
std::span<const std::uint8_t> cbytes(const std::vector<u64>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 8};
}
std::span<std::uint8_t> bytes(std::vector<u64>& v) { return {reinterpret_cast<std::uint8_t*>(v.data()), v.size() * 8}; }
}  // namespace

TEST_CASE("batch ops on two simulated devices, gpu and split placements", "[sim]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 2;
  gpu::Engine e(eo);
  for (const char* name : {"MLDSA", "PN11QP54"}) {
    INFO(name);
    const Plan p = Plan::preset(name);
    const std::size_t n = p.n(), count = 300;
    Rng r(17);
    auto a = random_poly(r, count * n, p.q()), b = random_poly(r, count * n, p.q());
    std::vector<u64> want_f = a, want_m(count * n);
    for (std::size_t i = 0; i < count; ++i) {
      p.forward(std::span(want_f).subspan(i * n, n));
      tempo::ntt::multiply(p, std::span(a).subspan(i * n, n), std::span(b).subspan(i * n, n),
                           std::span(want_m).subspan(i * n, n));
    }
    const NttOp fwd(p, OpKind::forward, e), inv(p, OpKind::inverse, e), mul(p, OpKind::multiply, e);
    for (auto place : {gpu::Placement::gpu, gpu::Placement::split}) {
      std::vector<u64> x = a, out(count * n);
      pool.run([&](tempo::Task& t) {
        const auto rf = e.run(t, fwd, {gpu::Operand::fixed(cbytes(x), n * 8)}, bytes(x), forced(place));
        // split: the pool may claim every block before a stream thread claims a chunk
        // (the scheduler decides), so only gpu placement promises device items.
        CHECK(rf.cpu_items + rf.gpu_items == count);
        if (place == gpu::Placement::gpu) CHECK(rf.gpu_items == count);
        CHECK(x == want_f);
        e.run(t, inv, {gpu::Operand::fixed(cbytes(x), n * 8)}, bytes(x), forced(place));
        CHECK(x == a);
        e.run(t, mul, {gpu::Operand::fixed(cbytes(a), n * 8), gpu::Operand::fixed(cbytes(b), n * 8)}, bytes(out),
              forced(place));
        CHECK(out == want_m);
      });
    }
  }
}

TEST_CASE("resident chain forward -> pointwise -> inverse on a simulated device", "[sim]") {
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  gpu::EngineOptions eo;
  eo.simulated_devices = 1;
  gpu::Engine e(eo);
  const Plan p = Plan::preset("PN10QP27");
  const std::size_t n = p.n(), count = 40;
  Rng r(23);
  auto a = random_poly(r, count * n, p.q()), b = random_poly(r, count * n, p.q());
  std::vector<u64> want(count * n);
  for (std::size_t i = 0; i < count; ++i)
    tempo::ntt::multiply(p, std::span(a).subspan(i * n, n), std::span(b).subspan(i * n, n),
                         std::span(want).subspan(i * n, n));
  const NttOp fwd(p, OpKind::forward, e), pw(p, OpKind::pointwise, e), inv(p, OpKind::inverse, e);
  auto A = gpu::DeviceBatch::upload(e, cbytes(a), n * 8, tempo::Backend::cuda);
  auto B = gpu::DeviceBatch::upload(e, cbytes(b), n * 8, tempo::Backend::cuda);
  REQUIRE(A.device() == B.device());
  pool.run([&](tempo::Task& t) {
    e.run_resident(t, fwd, {&A}, A);
    e.run_resident(t, fwd, {&B}, B);
    e.run_resident(t, pw, {&A, &B}, A);
    e.run_resident(t, inv, {&A}, A);
  });
  std::vector<u64> got(count * n);
  A.download(bytes(got));
  CHECK(got == want);
}
