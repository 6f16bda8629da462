// The offload engine with user-defined ops: the documented example (PolyEval), a
// test-only op with device constants and in-place chaining, resource lifetimes,
// validation, the async and streaming forms. GPU cases skip without a device; the
// CPU path always runs (and must give the same bytes).
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/gpu/gpu.hpp>
#include <tempo/tempo.hpp>

#include "poly_op.hpp"
#include "test_ops.hpp"

using namespace tempo;
using tempo::Backend;
using gpu::Operand;

namespace {
bool have_gpu() { return gpu::available(Backend::cuda); }

std::span<std::uint8_t> bytes(std::vector<std::uint32_t>& v) {
  return {reinterpret_cast<std::uint8_t*>(v.data()), v.size() * 4};
}

std::uint32_t poly_ref(const std::vector<std::uint32_t>& k, std::uint32_t x) {
  std::uint32_t y = 0, p = 1;
  for (std::uint32_t c : k) {
    y += c * p;
    p *= x;
  }
  return y;
}

std::vector<std::uint8_t> random_bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

gpu::RunOptions with(Backend b) {
  gpu::RunOptions o;
  o.backend = b;
  return o;
}
gpu::RunOptions forced(gpu::Placement p) {
  gpu::RunOptions o;
  o.backend = Backend::auto_select;
  o.force = true;
  o.forced = p;
  return o;
}

// Backends to sweep: always the CPU; the GPU and the split when a device exists.
std::vector<gpu::RunOptions> sweep() {
  std::vector<gpu::RunOptions> v{with(Backend::cpu), with(Backend::auto_select)};
  if (have_gpu()) {
    v.push_back(with(Backend::cuda));
    v.push_back(forced(gpu::Placement::split));
  }
  return v;
}
}  // namespace

TEST_CASE("the example op gives the same bytes on every placement, many seeds and sizes", "[engine][example]") {
  ThreadPool pool(Options{.threads = 3});
  gpu::Engine& e = gpu::Engine::shared();
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<std::uint32_t> k(1 + rng() % 9);
    for (auto& c : k) c = static_cast<std::uint32_t>(rng());
    example::PolyEval op(e, k);
    const std::size_t n = seed % 4 == 0 ? 0 : (seed % 4 == 1 ? 1 : static_cast<std::size_t>(rng() % 300000));
    std::vector<std::uint32_t> xs(n);
    for (auto& x : xs) x = static_cast<std::uint32_t>(rng());
    std::vector<std::uint32_t> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = poly_ref(k, xs[i]);
    for (const auto& opt : sweep()) {
      std::vector<std::uint32_t> ys(n, 0xDEADBEEF);
      const auto r = pool.run([&](Task& t) { return e.run(t, op, {Operand::fixed(bytes(xs), 4)}, bytes(ys), opt); });
      INFO("seed " << seed << " n " << n << " backend " << tempo::backend_name(opt.backend) << " ran on "
                   << gpu::placement_name(r.ran_on) << ": " << r.reason);
      CHECK(ys == want);
      CHECK(r.items == n);
      CHECK(r.cpu_items + r.gpu_items == n);
      if (opt.backend == Backend::cpu) CHECK(r.ran_on == gpu::Placement::cpu);
      if (opt.backend == Backend::cuda && n > 0) CHECK(r.ran_on == gpu::Placement::gpu);
    }
    // In place over input 0.
    std::vector<std::uint32_t> inplace = xs;
    pool.run([&](Task& t) { e.run(t, op, {Operand::fixed(bytes(inplace), 4)}, bytes(inplace)); });
    CHECK(inplace == want);
  }
}

TEST_CASE("malformed batches are refused before any work, with the problem named", "[engine][validate]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::Engine& e = gpu::Engine::shared();
  std::vector<std::uint8_t> key(64, 7);
  gtest::XorKey xk(e, key);
  gtest::AddPairs add(8);
  std::vector<std::uint8_t> a(640), b(640), out(640), small(100);
  pool.run([&](Task& t) {
    CHECK_THROWS_WITH(e.run(t, add, {Operand::fixed(a, 8)}, out), Catch::Contains("expected 2 inputs, got 1"));
    CHECK_THROWS_WITH(e.run(t, add, {Operand::fixed(a, 8), Operand::fixed(small, 10)}, out),
                      Catch::Contains("input 1 has 10 items, input 0 has 80"));
    CHECK_THROWS_WITH(e.run(t, xk, {Operand::fixed(a, 64)}, small), Catch::Contains("out holds 100 bytes"));
    CHECK_THROWS_WITH(e.run(t, xk, {Operand::fixed(small, 64)}, out), Catch::Contains("not a multiple of its stride"));
    // Overlap that is not exact in-place.
    CHECK_THROWS_WITH(e.run(t, xk, {Operand::fixed(std::span(a).first(576), 64)}, std::span(a).subspan(64)),
                      Catch::Contains("overlaps input 0"));
    std::vector<std::uint64_t> bad{0, 5, 3, 640};
    CHECK_THROWS_WITH(e.run(t, xk, {Operand::variable(a, bad)}, std::span(out).first(192)),
                      Catch::Contains("offsets decrease at index 2"));
    std::vector<std::uint64_t> short_end{0, 5, 600};
    CHECK_THROWS_WITH(e.run(t, xk, {Operand::variable(a, short_end)}, std::span(out).first(128)),
                      Catch::Contains("the last offset is 600 but the data holds 640"));
  });
  CHECK(out == std::vector<std::uint8_t>(640, 0));  // nothing written
}

TEST_CASE("resident batches chain operations without a host round trip", "[engine][resident]") {
  ThreadPool pool(Options{.threads = 3});
  gpu::Engine& e = gpu::Engine::shared();
  const auto key = random_bytes(64, 99);
  gtest::XorKey xk(e, key);
  gtest::AddPairs add(64);
  std::vector<Backend> places{Backend::cpu};
  if (have_gpu()) places.push_back(Backend::cuda);
  std::vector<std::vector<std::uint8_t>> results;
  for (Backend where : places) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{4097}}) {
      const auto a0 = random_bytes(n * 64, n + 1), b0 = random_bytes(n * 64, n + 2);
      auto a = gpu::DeviceBatch::upload(e, a0, 64, where);
      auto b = gpu::DeviceBatch::upload(e, b0, 64, where);
      CHECK(a.on_device() == (where == Backend::cuda));
      pool.run([&](Task& t) {
        e.run_resident(t, xk, {&a}, a);       // a ^= key, in place
        e.run_resident(t, add, {&a, &b}, a);  // a += b, per 64-bit word, in place
        e.run_resident(t, xk, {&b}, b);
      });
      std::vector<std::uint8_t> want_a(n * 64), want_b(n * 64);
      for (std::size_t i = 0; i < n * 64; i += 8) {
        std::uint64_t x, y;
        std::uint8_t tmp[8];
        for (int j = 0; j < 8; ++j) tmp[j] = static_cast<std::uint8_t>(a0[i + j] ^ key[(i + j) % 64]);
        std::memcpy(&x, tmp, 8);
        std::memcpy(&y, b0.data() + i, 8);
        x += y;
        std::memcpy(want_a.data() + i, &x, 8);
        for (int j = 0; j < 8; ++j) want_b[i + j] = static_cast<std::uint8_t>(b0[i + j] ^ key[(i + j) % 64]);
      }
      CHECK(a.download() == want_a);
      CHECK(b.download() == want_b);
      if (n == 4097) results.push_back(a.download());
    }
  }
  if (results.size() == 2) CHECK(results[0] == results[1]);  // host and device: the same bytes
  // Mismatched places and shapes are refused.
  auto h = gpu::DeviceBatch::upload(e, random_bytes(128, 5), 64, Backend::cpu);
  auto h2 = gpu::DeviceBatch::upload(e, random_bytes(192, 6), 64, Backend::cpu);
  pool.run([&](Task& t) {
    CHECK_THROWS_WITH(e.run_resident(t, add, {&h, &h2}, h), Catch::Contains("input 1 has 3 items"));
    gtest::AddPairs add8(8);
    CHECK_THROWS_WITH(e.run_resident(t, add8, {&h, &h}, h), Catch::Contains("stride"));
    if (have_gpu()) {
      auto d = gpu::DeviceBatch::upload(e, random_bytes(128, 7), 64, Backend::cuda);
      CHECK_THROWS_WITH(e.run_resident(t, add, {&h, &d}, h), Catch::Contains("lives on device"));
    }
  });
  std::vector<std::uint8_t> wrong(10);
  CHECK_THROWS_AS(h.download(wrong), std::invalid_argument);
}

TEST_CASE("device constants: used after release is a clear error, never a wrong answer", "[engine][lifetime]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::Engine& e = gpu::Engine::shared();
  const auto key = random_bytes(64, 3);
  gtest::XorKey xk(e, key);
  const auto in = random_bytes(64 * 1000, 4);
  std::vector<std::uint8_t> out(in.size());
  pool.run([&](Task& t) {
    for (const auto& opt : sweep()) CHECK_NOTHROW(e.run(t, xk, {Operand::fixed(in, 64)}, out, opt));
    for (std::size_t i = 0; i < in.size(); ++i) REQUIRE(out[i] == (in[i] ^ key[i % 64]));
    // Released while an async batch is pending: its join fails, naming the cause.
    gpu::Offload o = e.submit(t, xk, {Operand::fixed(in, 64)}, out, with(Backend::cpu));
    xk.constants().release();
    CHECK(xk.constants().released());
    CHECK_THROWS_WITH(o.join(t), Catch::Contains("used after release"));
    for (const auto& opt : sweep())
      CHECK_THROWS_WITH(e.run(t, xk, {Operand::fixed(in, 64)}, out, opt), Catch::Contains("used after release"));
  });
  xk.constants().release();  // twice: harmless
}

TEST_CASE("an engine shut down with work pending: joins finish correctly, handles fail clearly", "[engine][lifetime]") {
  ThreadPool pool(Options{.threads = 3});
  auto own = std::make_unique<gpu::Engine>();
  const auto key = random_bytes(64, 8);
  gtest::XorKey xk(*own, key);
  const std::size_t n = have_gpu() ? 400000 : 2000;
  const auto in = random_bytes(64 * n, 9);
  std::vector<std::uint8_t> out(in.size());
  auto resident = gpu::DeviceBatch::upload(*own, random_bytes(640, 10), 64);
  pool.run([&](Task& t) {
    gpu::Offload o = own->submit(t, xk, {Operand::fixed(in, 64)}, out);
    own.reset();  // stream threads stop after their current chunk
    const auto r = o.join(t);
    CHECK(r.cpu_items + r.gpu_items == n);
  });
  for (std::size_t i = 0; i < in.size(); ++i) REQUIRE(out[i] == (in[i] ^ key[i % 64]));
  if (resident.on_device()) CHECK_THROWS_WITH(resident.download(), Catch::Contains("engine was shut down"));
  else CHECK(resident.download().size() == 640);
}

TEST_CASE("the streaming form bounds what is in flight and returns batches in order", "[engine][pipeline]") {
  ThreadPool pool(Options{.threads = 3});
  gpu::Engine& e = gpu::Engine::shared();
  example::PolyEval op(e, {1, 2, 3});
  constexpr std::size_t kBatches = 7, kN = 5000;
  std::vector<std::vector<std::uint32_t>> in(kBatches, std::vector<std::uint32_t>(kN)), out = in;
  for (std::size_t b = 0; b < kBatches; ++b)
    for (std::size_t i = 0; i < kN; ++i) in[b][i] = static_cast<std::uint32_t>(b * 1000003 + i);
  std::vector<std::uint64_t> order;
  pool.run([&](Task& t) {
    gpu::Pipeline p(e, 2);
    for (std::size_t b = 0; b < kBatches; ++b) {
      if (auto done = p.submit(t, op, {Operand::fixed(bytes(in[b]), 4)}, bytes(out[b]), b + 1))
        order.push_back(done->tag);
      CHECK(p.in_flight() <= 2);
    }
    for (auto& d : p.drain(t)) order.push_back(d.tag);
  });
  REQUIRE(order.size() == kBatches);
  for (std::size_t b = 0; b < kBatches; ++b) {
    CHECK(order[b] == b + 1);
    for (std::size_t i = 0; i < kN; i += 997) CHECK(out[b][i] == poly_ref({1, 2, 3}, in[b][i]));
  }
}

TEST_CASE("a failing kernel surfaces as CudaError with the CUDA text; cuda never falls back", "[engine][errors]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::Engine& e = gpu::Engine::shared();
  gtest::Failing f;
  std::vector<std::uint8_t> in(8 * 100), out(8 * 100);
  pool.run([&](Task& t) {
    CHECK_NOTHROW(e.run(t, f, {Operand::fixed(in, 8)}, out, with(Backend::cpu)));
    CHECK(out[0] == 0x11);
    if (have_gpu()) {
      CHECK_THROWS_WITH(e.run(t, f, {Operand::fixed(in, 8)}, out, with(Backend::cuda)),
                        Catch::Contains("BatchOp::cuda launch") && Catch::Contains("CUDA error 98"));
      // Out of device memory is recovered from: the CPU takes the items, the report says so.
      gtest::Failing oom(2);  // cudaErrorMemoryAllocation
      std::fill(out.begin(), out.end(), 0);
      const auto r = e.run(t, oom, {Operand::fixed(in, 8)}, out, with(Backend::cuda));
      CHECK(r.fell_back);
      CHECK(r.cpu_items == 100);
      CHECK(out[0] == 0x11);
    } else {
      CHECK_THROWS_WITH(e.run(t, f, {Operand::fixed(in, 8)}, out, with(Backend::cuda)),
                        Catch::Contains("CUDA backend was requested"));
    }
    gtest::Noop noop;
    std::vector<std::uint8_t> none;
    CHECK(e.run(t, noop, {Operand::fixed(none, 8)}, none).items == 0);
  });
}

namespace {
// Sets (or, for nullptr, unsets) an environment variable for the scope.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~EnvVar() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

gpu::EngineOptions simulated(int devices) {
  gpu::EngineOptions eo;
  eo.simulated_devices = devices;
  return eo;
}
}  // namespace

TEST_CASE("TEMPO_GPU_PLACEMENT is checked at every batch call", "[engine][env]") {
  ThreadPool pool(Options{.threads = 2});
  gpu::Engine e(simulated(1));  // a device, so that auto consults the variable
  example::PolyEval op(e, {1});
  std::vector<std::uint32_t> x(10), y(10);
  pool.run([&](Task& t) {
    {
      EnvVar v("TEMPO_GPU_PLACEMENT", "gpus");
      CHECK_THROWS_WITH(e.run(t, op, {Operand::fixed(bytes(x), 4)}, bytes(y), with(Backend::auto_select)),
                        Catch::Contains("TEMPO_GPU_PLACEMENT='gpus' is not accepted (expected one of: cpu, gpu, split)"));
    }
    EnvVar v("TEMPO_GPU_PLACEMENT", "GPU");  // case-insensitive
    const auto r = e.run(t, op, {Operand::fixed(bytes(x), 4)}, bytes(y), with(Backend::auto_select));
    CHECK(r.ran_on == gpu::Placement::gpu);
    CHECK(r.gpu_items == 10);
  });
}

TEST_CASE("the engine's environment is checked when an Engine is made", "[engine][env]") {
  struct Case {
    const char* name;
    const char* bad;
    const char* expected;
  };
  for (const Case& c : {Case{"TEMPO_GPU_STREAMS", "0", "(expected an integer from 1 to 32)"},
                        Case{"TEMPO_GPU_STREAMS", "12x", "(expected an integer from 1 to 32)"},
                        Case{"TEMPO_GPU_PINNED_STREAMS", "33", "(expected an integer from 1 to 32)"},
                        Case{"TEMPO_GPU_CHUNK_MB", "inf", "(expected a number from 0.0625 to 65536)"},
                        Case{"TEMPO_GPU_CHUNK_MB", "1e3", "(expected a number from 0.0625 to 65536)"},
                        Case{"TEMPO_GPU_CHUNK_MB", "0.01", "(expected a number from 0.0625 to 65536)"},
                        Case{"TEMPO_GPU_CHUNK_MB", "1.2.3", "(expected a number from 0.0625 to 65536)"},
                        Case{"TEMPO_GPU_SCRATCH_KEEP_MB", "-1", "(expected an integer from 0 to 1048576)"},
                        Case{"TEMPO_GPU_SCRATCH_KEEP_MB", "4G", "(expected an integer from 0 to 1048576)"},
                        Case{"TEMPO_GPU_NT_COPY", "no", "(expected one of: 0, off, false, 1, on, true)"}}) {
    INFO(c.name << "=" << c.bad);
    EnvVar v(c.name, c.bad);
    const std::string what = std::string(c.name) + "='" + c.bad + "' is not accepted " + c.expected;
    CHECK_THROWS_WITH(gpu::Engine(simulated(1)), what);
    CHECK_THROWS_WITH(gpu::Engine(), what);  // whatever drives the devices (CUDA, none)
  }
  // Unset and empty are the defaults; good values pass; an explicit option wins.
  for (const char* good : {"", "1", "32"}) {
    EnvVar a("TEMPO_GPU_STREAMS", good), b("TEMPO_GPU_PINNED_STREAMS", good);
    CHECK_NOTHROW(gpu::Engine(simulated(1)));
  }
  for (const char* good : {"", "0.0625", "8", "2.5", "65536"}) {
    EnvVar v("TEMPO_GPU_CHUNK_MB", good);
    CHECK_NOTHROW(gpu::Engine(simulated(1)));
  }
  for (const char* good : {"", "0", "OFF", "true"}) {
    EnvVar v("TEMPO_GPU_NT_COPY", good);
    CHECK_NOTHROW(gpu::Engine(simulated(1)));
  }
  for (const char* good : {"", "0", "4096", "1048576"}) {
    EnvVar v("TEMPO_GPU_SCRATCH_KEEP_MB", good);
    CHECK_NOTHROW(gpu::Engine(simulated(1)));
  }
  EnvVar v("TEMPO_GPU_STREAMS", "99");
  gpu::EngineOptions eo = simulated(1);
  eo.streams_per_device = 2;
  CHECK_NOTHROW(gpu::Engine(eo));
}
