// Boolean circuits of TFHE gates, scheduled as task graphs on tempo, and encrypted integers.
//
// A Circuit is a DAG of bootstrapped gates (2-input Gate, 3-input Gate3); NOT is folded into
// the edges (free). eval() runs it level by level: every gate whose inputs are ready is in
// the same level, and the level's bootstraps are one batch (BootstrapOp) through the offload
// engine, placed by the options as every batch call (<tempo/tfhe/batch.hpp>).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <tempo/gpu/engine.hpp>
#include <tempo/tfhe.hpp>

namespace tempo::tfhe {

class Circuit {
 public:
  // An edge: node index, plus kNeg when the value is negated. kZero is the constant 0.
  using Ref = std::uint32_t;
  static constexpr Ref kNeg = 0x80000000u;
  static constexpr Ref kZero = 0x7fffffffu;

  Ref input();
  Ref gate(Gate g, Ref x, Ref y);
  Ref gate3(Gate3 g, Ref x, Ref y, Ref z);
  static Ref negate(Ref x) noexcept { return x ^ kNeg; }
  void output(Ref r) { outputs_.push_back(r); }
  // Removes gates no output depends on.
  void prune();

  std::size_t input_count() const noexcept { return inputs_; }
  std::size_t output_count() const noexcept { return outputs_.size(); }
  std::size_t gate_count() const noexcept;   // bootstraps
  std::size_t depth() const;                  // bootstraps on the longest path
  std::vector<std::vector<std::uint32_t>> levels() const;  // gate indices by level

  std::vector<bool> eval_plain(const std::vector<bool>& in) const;
  std::vector<Ciphertext> eval(Task& t, const EvaluationKey& ek, std::span<const Ciphertext> in,
                               gpu::RunOptions opt = {}) const;

  // x + y mod 2^bits, inputs x (bits, LSB first) then y: Sklansky parallel-prefix adder whose
  // carry operator is one 3-input bootstrap.
  static Circuit adder(std::size_t bits);
  // x * y mod 2^bits: AND partial products, a Dadda tree of full adders (majority and
  // parity, one bootstrap each), then the prefix adder.
  static Circuit multiplier(std::size_t bits);

 private:
  struct Node {
    std::uint8_t kind;  // 0 input, 1 gate, 2 gate3
    std::uint8_t op;
    Ref in[3];
  };
  std::size_t inputs_ = 0;
  std::vector<Node> nodes_;
  std::vector<Ref> outputs_;
  friend struct CircuitBuilder;
};

// An unsigned integer of encrypted bits, least significant first.
struct EncryptedUint {
  std::vector<Ciphertext> bits;
};

// value: little-endian 64-bit limbs (missing high limbs are 0); fresh OS randomness, as
// encrypt_bit.
EncryptedUint encrypt_uint(const SecretKey& sk, std::span<const std::uint64_t> value, std::size_t bits);
// For tests and known answers only (a function of the seed; never reuse a seed: see
// encrypt_bit_deterministic).
EncryptedUint encrypt_uint_deterministic(const SecretKey& sk, std::span<const std::uint64_t> value,
                                         std::size_t bits, std::span<const std::uint8_t> seed);
std::vector<std::uint64_t> decrypt_uint(const SecretKey& sk, const EncryptedUint& x);

// Same width required (std::invalid_argument otherwise). 256-bit circuits are built once.
EncryptedUint add(Task& t, const EvaluationKey& ek, const EncryptedUint& x, const EncryptedUint& y,
                  gpu::RunOptions opt = {});
EncryptedUint mul(Task& t, const EvaluationKey& ek, const EncryptedUint& x, const EncryptedUint& y,
                  gpu::RunOptions opt = {});

}  // namespace tempo::tfhe
