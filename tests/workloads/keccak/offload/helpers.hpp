// Shared test helpers: deterministic random batches and a GPU-presence gate.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <tempo/keccak/keccak.hpp>
#include <tempo/keccak/offload.hpp>
#include <tempo/tempo.hpp>

namespace gtest {

inline constexpr tempo::keccak::Algorithm kAll[] = {
    tempo::keccak::Algorithm::sha3_224,      tempo::keccak::Algorithm::sha3_256,
    tempo::keccak::Algorithm::sha3_384,      tempo::keccak::Algorithm::sha3_512,
    tempo::keccak::Algorithm::shake128,      tempo::keccak::Algorithm::shake256,
    tempo::keccak::Algorithm::turboshake128, tempo::keccak::Algorithm::turboshake256,
    tempo::keccak::Algorithm::kt128,         tempo::keccak::Algorithm::kt256};

struct Batch {
  std::vector<std::uint8_t> data;
  std::vector<std::uint64_t> offsets{0};
  tempo::keccak::MessageBatch view() const { return {data, offsets}; }
  std::size_t size() const { return offsets.size() - 1; }
  void add(std::size_t len, std::mt19937_64& rng) {
    for (std::size_t i = 0; i < len; ++i) data.push_back(static_cast<std::uint8_t>(rng()));
    offsets.push_back(data.size());
  }
};

// Lengths around every rate boundary of `rate`: 0, 1, r-1, r, r+1, 2r-1, 2r, 2r+1 ...
inline std::size_t boundary_length(std::mt19937_64& rng, std::size_t rate) {
  const std::size_t k = rng() % 6;
  switch (rng() % 4) {
    case 0: return rng() % 2;                             // 0 or 1
    case 1: return k * rate + (rng() % 3) - 1 + (k == 0); // r-1, r, r+1 (and multiples)
    case 2: return rng() % (3 * rate);
    default: return rng() % (64 * 1024 + 1);              // up to 64 KiB
  }
}

inline std::size_t out_bytes_for(tempo::keccak::Algorithm a, std::mt19937_64& rng) {
  if (!tempo::keccak::is_xof(a)) return tempo::keccak::fixed_digest_bytes(a);
  const std::size_t r = tempo::keccak::rate_bytes(a);
  const std::size_t choices[] = {1, 31, 32, 33, 64, r - 1, r, r + 1, 2 * r + 5};
  return choices[rng() % std::size(choices)];
}

inline std::vector<std::uint8_t> cpu_reference(tempo::keccak::Algorithm a, const tempo::keccak::MessageBatch& b,
                                               std::size_t out_bytes) {
  std::vector<std::uint8_t> out(b.size() * out_bytes);
  tempo::keccak::hash_batch_cpu_serial(a, b, out_bytes, out);
  return out;
}

// Scoped environment variable.
struct EnvVar {
  std::string name;
  std::string old;
  bool had = false;
  EnvVar(const char* n, const char* value) : name(n) {
    if (const char* o = std::getenv(n)) {
      had = true;
      old = o;
    }
    if (value)
      ::setenv(n, value, 1);
    else
      ::unsetenv(n);
  }
  ~EnvVar() {
    if (had)
      ::setenv(name.c_str(), old.c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

inline bool have_device() { return tempo::gpu::device_count() > 0; }

#define GPU_OR_SKIP()                                                                          \
  do {                                                                                         \
    if (!gtest::have_device()) {                                                               \
      WARN("skipped: no CUDA device (" << (tempo::gpu::cuda_compiled() ? "built with CUDA"     \
                                                                       : "built without CUDA") \
                                       << ")");                                                \
      SUCCEED("skipped: no CUDA device");                                                      \
      return;                                                                                  \
    }                                                                                          \
  } while (0)

}  // namespace gtest
