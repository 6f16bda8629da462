// CPU = GPU byte equality (skips itself without a device), Lux-style: seeds x presets x
// 2 surfaces (single polynomial through the batch API, and one batch of all the seeds'
// polynomials), each checking forward, inverse and the negacyclic product; the presets
// with q < 2^31 also through the 32-bit layout (a third surface). Plus the
// device-resident chain forward -> pointwise -> inverse, in both layouts.
// TEMPO_NTT_GPU_SEEDS (default 1000) sets the seed count.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include <tempo/ntt.hpp>
#include <tempo/tempo.hpp>

#include "reference.hpp"

using namespace ntt_test;
using tempo::ntt::Plan;
namespace gpu = tempo::gpu;

namespace {
bool have_device() {
  if (gpu::device_count() > 0) return true;
  std::printf("SKIPPED [gpu]: no CUDA device (compiled with CUDA: %s)\n", gpu::cuda_compiled() ? "yes" : "no");
  return false;
}
std::size_t seeds() {
  const char* e = std::getenv("TEMPO_NTT_GPU_SEEDS");
  return e ? std::strtoull(e, nullptr, 10) : 1000;
}
}  // namespace

TEST_CASE("CPU and GPU give the same bytes", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  const auto cuda = tempo::Backend::cuda;
  std::size_t gates = 0, passed = 0;
  for (const char* name : {"MLDSA", "PN10QP27", "PN11QP54"}) {
    const Plan p = Plan::preset(name);
    const std::size_t n = p.n(), S = seeds();
    std::vector<u64> all_a(S * n), all_b(S * n), want_f(S * n), want_prod(S * n);
    for (std::size_t s = 0; s < S; ++s) {
      Rng r(s * 1000003 + n);
      for (std::size_t j = 0; j < n; ++j) all_a[s * n + j] = r.below(p.q());
      for (std::size_t j = 0; j < n; ++j) all_b[s * n + j] = r.below(p.q());
      if (s == 0) std::fill(all_a.begin(), all_a.begin() + n, p.q() - 1);
      auto a = std::span(all_a).subspan(s * n, n), b = std::span(all_b).subspan(s * n, n);
      std::copy(a.begin(), a.end(), want_f.begin() + static_cast<std::ptrdiff_t>(s * n));
      p.forward(std::span(want_f).subspan(s * n, n));
      tempo::ntt::multiply(p, a, b, std::span(want_prod).subspan(s * n, n));
    }
    // Surface 1: one polynomial per call.
    for (std::size_t s = 0; s < S; ++s) {
      std::vector<u64> x(all_a.begin() + static_cast<std::ptrdiff_t>(s * n), all_a.begin() + static_cast<std::ptrdiff_t>((s + 1) * n));
      std::vector<u64> prod(n);
      pool.run([&](tempo::Task& t) {
        tempo::ntt::forward_batch(t, p, x, cuda);
        bool ok = std::equal(x.begin(), x.end(), want_f.begin() + static_cast<std::ptrdiff_t>(s * n));
        tempo::ntt::inverse_batch(t, p, x, cuda);
        ok = ok && std::equal(x.begin(), x.end(), all_a.begin() + static_cast<std::ptrdiff_t>(s * n));
        tempo::ntt::multiply_batch(t, p, std::span(all_a).subspan(s * n, n), std::span(all_b).subspan(s * n, n), prod,
                                   cuda);
        ok = ok && std::equal(prod.begin(), prod.end(), want_prod.begin() + static_cast<std::ptrdiff_t>(s * n));
        ++gates;
        passed += ok;
        CHECK(ok);
      });
    }
    // Surface 2: every seed's polynomial in one batch.
    std::vector<u64> x = all_a, prod(S * n);
    pool.run([&](tempo::Task& t) {
      const auto rf = tempo::ntt::forward_batch(t, p, x, cuda);
      REQUIRE(rf.gpu_items == S);
      std::vector<u64> fx = x;
      tempo::ntt::inverse_batch(t, p, x, cuda);
      tempo::ntt::multiply_batch(t, p, all_a, all_b, prod, cuda);
      for (std::size_t s = 0; s < S; ++s) {
        const auto o = static_cast<std::ptrdiff_t>(s * n), e = static_cast<std::ptrdiff_t>((s + 1) * n);
        const bool ok = std::equal(fx.begin() + o, fx.begin() + e, want_f.begin() + o) &&
                        std::equal(x.begin() + o, x.begin() + e, all_a.begin() + o) &&
                        std::equal(prod.begin() + o, prod.begin() + e, want_prod.begin() + o);
        ++gates;
        passed += ok;
        CHECK(ok);
      }
    });
    // Surface 3 (q < 2^31): the batch in the 32-bit layout.
    if (p.q() >> 31) continue;
    std::vector<std::uint32_t> a32(all_a.begin(), all_a.end()), b32(all_b.begin(), all_b.end()), x32 = a32,
        prod32(S * n);
    pool.run([&](tempo::Task& t) {
      const auto rf = tempo::ntt::forward_batch(t, p, std::span(x32), cuda);
      REQUIRE(rf.gpu_items == S);
      std::vector<std::uint32_t> fx = x32;
      tempo::ntt::inverse_batch(t, p, std::span(x32), cuda);
      tempo::ntt::multiply_batch(t, p, std::span<const std::uint32_t>(a32), std::span<const std::uint32_t>(b32),
                                 std::span(prod32), cuda);
      for (std::size_t s = 0; s < S; ++s) {
        const auto o = static_cast<std::ptrdiff_t>(s * n), e = static_cast<std::ptrdiff_t>((s + 1) * n);
        const bool ok = std::equal(fx.begin() + o, fx.begin() + e, want_f.begin() + o) &&
                        std::equal(x32.begin() + o, x32.begin() + e, all_a.begin() + o) &&
                        std::equal(prod32.begin() + o, prod32.begin() + e, want_prod.begin() + o);
        ++gates;
        passed += ok;
        CHECK(ok);
      }
    });
  }
  std::printf("NTT CPU=GPU gate: %zu of %zu assertions passed\n", passed, gates);
  CHECK(passed == gates);
}

namespace {
// forward -> pointwise -> inverse on DeviceBatches of S words (the layout of S).
template <typename S>
void resident_chain(const char* name) {
  INFO(name << ", " << sizeof(S) * 8 << "-bit words");
  tempo::ThreadPool pool;
  gpu::Engine& e = gpu::Engine::shared();
  const Plan p = Plan::preset(name);
  const auto layout = sizeof(S) == 4 ? tempo::ntt::Layout::u32 : tempo::ntt::Layout::u64;
  const std::size_t n = p.n(), count = 100;
  Rng r(5);
  const auto a64 = random_poly(r, count * n, p.q()), b64 = random_poly(r, count * n, p.q());
  std::vector<u64> want(count * n);
  for (std::size_t i = 0; i < count; ++i)
    tempo::ntt::multiply(p, std::span(a64).subspan(i * n, n), std::span(b64).subspan(i * n, n),
                         std::span(want).subspan(i * n, n));
  std::vector<S> a(a64.begin(), a64.end()), b(b64.begin(), b64.end());
  auto bytes = [](std::vector<S>& v) {
    return std::span(reinterpret_cast<std::uint8_t*>(v.data()), v.size() * sizeof(S));
  };
  pool.run([&](tempo::Task& t) {
    auto A = gpu::DeviceBatch::upload(e, bytes(a), n * sizeof(S), tempo::Backend::cuda);
    auto B = gpu::DeviceBatch::upload(e, bytes(b), n * sizeof(S), tempo::Backend::cuda);
    REQUIRE(A.on_device());
    const tempo::ntt::NttOp fwd(p, tempo::ntt::OpKind::forward, layout),
        pw(p, tempo::ntt::OpKind::pointwise, layout), inv(p, tempo::ntt::OpKind::inverse, layout);
    e.run_resident(t, fwd, {&A}, A);
    e.run_resident(t, fwd, {&B}, B);
    e.run_resident(t, pw, {&A, &B}, A);
    e.run_resident(t, inv, {&A}, A);
    std::vector<S> got(count * n);
    A.download(bytes(got));
    REQUIRE(std::equal(got.begin(), got.end(), want.begin(), want.end()));
  });
}
}  // namespace

TEST_CASE("device-resident chain forward -> pointwise -> inverse", "[gpu]") {
  if (!have_device()) return;
  for (const char* name : {"MLDSA", "PN10QP27", "PN11QP54", "PN14QP60"}) resident_chain<u64>(name);
}

TEST_CASE("u32 layout: device-resident chain and every size on the device", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  using u32 = std::uint32_t;
  for (const char* name : {"MLDSA", "PN10QP27"}) resident_chain<u32>(name);
  // Every n, both 32-bit kernels (lazy, fully reduced); n > 4096 runs the column pass and
  // multiply's unfused composition on 32-bit storage too.
  for (u64 q : {1073479681ull, 2147352577ull}) {
    for (std::size_t n = 16; n <= 65536; n *= 2) {
      INFO("n = " << n << ", q = " << q);
      const Plan p(n, q);
      const std::size_t count = n >= 16384 ? 3 : 17;
      Rng r(n + q + 1);
      auto a = random_poly(r, count * n, q), b = random_poly(r, count * n, q);
      std::vector<u64> want_f = a, want_m(count * n);
      for (std::size_t i = 0; i < count; ++i) {
        p.forward(std::span(want_f).subspan(i * n, n));
        tempo::ntt::multiply(p, std::span(a).subspan(i * n, n), std::span(b).subspan(i * n, n),
                             std::span(want_m).subspan(i * n, n));
      }
      std::vector<u32> x(a.begin(), a.end()), b32(b.begin(), b.end()), a32 = x, m(count * n);
      pool.run([&](tempo::Task& t) {
        tempo::ntt::forward_batch(t, p, std::span(x), tempo::Backend::cuda);
        CHECK(std::equal(x.begin(), x.end(), want_f.begin(), want_f.end()));
        tempo::ntt::inverse_batch(t, p, std::span(x), tempo::Backend::cuda);
        CHECK(x == a32);
        tempo::ntt::multiply_batch(t, p, std::span<const u32>(a32), std::span<const u32>(b32), std::span(m),
                                   tempo::Backend::cuda);
        CHECK(std::equal(m.begin(), m.end(), want_m.begin(), want_m.end()));
      });
    }
  }
}

TEST_CASE("Backend::cuda without a device is an error, not a fallback", "[gpu-contract]") {
  if (gpu::device_count() > 0) return;
  tempo::ThreadPool pool(tempo::Options{.threads = 2});
  const Plan p = Plan::preset("MLDSA");
  std::vector<u64> a(256, 1);
  CHECK_THROWS_AS(pool.run([&](tempo::Task& t) { tempo::ntt::forward_batch(t, p, a, tempo::Backend::cuda); }),
                  std::runtime_error);
}

TEST_CASE("CPU and GPU agree at every size, both word sizes", "[gpu]") {
  if (!have_device()) return;
  tempo::ThreadPool pool;
  // 32-bit kernels (lazy for q < 2^30, fully reduced for q < 2^31) and 64-bit ones;
  // n > 4096 also runs the column pass, and multiply its unfused composition.
  for (u64 q : {1073479681ull, 2147352577ull, 4611686018425815041ull}) {
    for (std::size_t n = 16; n <= 65536; n *= 2) {
      INFO("n = " << n << ", q = " << q);
      const Plan p(n, q);
      const std::size_t count = n >= 16384 ? 3 : 17;
      Rng r(n + q);
      auto a = random_poly(r, count * n, q), b = random_poly(r, count * n, q);
      std::fill(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), q - 1);
      std::vector<u64> want_f = a, want_m(count * n);
      for (std::size_t i = 0; i < count; ++i) {
        p.forward(std::span(want_f).subspan(i * n, n));
        tempo::ntt::multiply(p, std::span(a).subspan(i * n, n), std::span(b).subspan(i * n, n),
                             std::span(want_m).subspan(i * n, n));
      }
      auto x = a;
      std::vector<u64> m(count * n);
      pool.run([&](tempo::Task& t) {
        tempo::ntt::forward_batch(t, p, x, tempo::Backend::cuda);
        CHECK(x == want_f);
        tempo::ntt::inverse_batch(t, p, x, tempo::Backend::cuda);
        CHECK(x == a);
        tempo::ntt::multiply_batch(t, p, a, b, m, tempo::Backend::cuda);
        CHECK(m == want_m);
      });
    }
  }
}
