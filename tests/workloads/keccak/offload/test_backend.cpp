// The backend contract: TEMPO_BACKEND and the per-call override (parse_backend itself:
// tests/gpu/test_staged.cpp).
#include "helpers.hpp"

using namespace tempo;
using tempo::Backend;

TEST_CASE("TEMPO_BACKEND: unset and empty mean auto; a bad value is named", "[gpu][backend]") {
  {
    gtest::EnvVar v("TEMPO_BACKEND", nullptr);
    CHECK(tempo::backend_from_env() == Backend::auto_select);
  }
  {
    gtest::EnvVar v("TEMPO_BACKEND", "");
    CHECK(tempo::backend_from_env() == Backend::auto_select);
  }
  {
    gtest::EnvVar v("TEMPO_BACKEND", "cpu");
    CHECK(tempo::backend_from_env() == Backend::cpu);
  }
  {
    gtest::EnvVar v("TEMPO_BACKEND", "cuda");
    CHECK(tempo::backend_from_env() == Backend::cuda);
  }
  {
    gtest::EnvVar v("TEMPO_BACKEND", "opencl");
    CHECK_THROWS_WITH(tempo::backend_from_env(), Catch::Contains("TEMPO_BACKEND") && Catch::Contains("opencl"));
  }
}

TEST_CASE("available/require follow the build and the devices", "[gpu][backend]") {
  CHECK(gpu::available(Backend::cpu));
  CHECK(gpu::available(Backend::auto_select));
  CHECK(gpu::available(Backend::cuda) == (gpu::cuda_compiled() && gpu::device_count() > 0));
  if (!gpu::cuda_compiled()) {
    CHECK(gpu::device_count() == 0);
    CHECK_THROWS_WITH(gpu::require(Backend::cuda), Catch::Contains("built without CUDA"));
  } else if (gpu::device_count() == 0) {
    CHECK_THROWS_WITH(gpu::require(Backend::cuda), Catch::Contains("no CUDA device"));
  } else {
    CHECK_NOTHROW(gpu::require(Backend::cuda));
  }
}

TEST_CASE("Backend::cuda fails fast without a device; cpu and auto always work", "[gpu][backend]") {
  ThreadPool pool(Options{.threads = 2});
  std::mt19937_64 rng(7);
  gtest::Batch b;
  for (int i = 0; i < 5; ++i) b.add(40, rng);
  std::vector<std::uint8_t> out(5 * 32);
  const auto ref = gtest::cpu_reference(keccak::Algorithm::shake256, b.view(), 32);
  pool.run([&](Task& t) {
    auto rep = keccak::hash_batch(t, keccak::Algorithm::shake256, b.view(), 32, out, Backend::cpu);
    CHECK(gpu::placement_name(rep.ran_on) == "cpu");
    CHECK(rep.cpu_items == 5);
    CHECK(out == ref);
    if (gpu::available(Backend::cuda)) {
      std::fill(out.begin(), out.end(), 0);
      auto r2 = keccak::hash_batch(t, keccak::Algorithm::shake256, b.view(), 32, out, Backend::cuda);
      CHECK(gpu::placement_name(r2.ran_on) == "gpu");
      CHECK(out == ref);
    } else {
      CHECK_THROWS_AS(keccak::hash_batch(t, keccak::Algorithm::shake256, b.view(), 32, out, Backend::cuda),
                      std::runtime_error);
      // The environment reaches the default overload.
      gtest::EnvVar v("TEMPO_BACKEND", "cuda");
      CHECK_THROWS_AS(keccak::hash_batch(t, keccak::Algorithm::shake256, b.view(), 32, out), std::runtime_error);
    }
    {
      gtest::EnvVar v("TEMPO_BACKEND", "cpu");
      std::fill(out.begin(), out.end(), 0);
      auto r3 = keccak::hash_batch(t, keccak::Algorithm::shake256, b.view(), 32, out);
      CHECK(gpu::placement_name(r3.ran_on) == "cpu");
      CHECK(r3.reason.find("backend cpu") != std::string::npos);
      CHECK(out == ref);
    }
  });
}

TEST_CASE("CudaError carries the call and the CUDA text", "[gpu][backend]") {
  gpu::CudaError e(2, "cudaMalloc(&p, n)", "out of memory");
  CHECK(e.code() == 2);
  CHECK(e.call() == "cudaMalloc(&p, n)");
  CHECK(std::string(e.what()).find("cudaMalloc(&p, n): out of memory") != std::string::npos);
}
