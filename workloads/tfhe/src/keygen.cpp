// Key generation, encryption and decryption. Every random value comes from an Xof stream
// named by its use and index, so the bytes do not depend on the order of work or threads.
#include <functional>
#include <memory>

#include <tempo/secure_zero.hpp>

#include "internal.hpp"

namespace tempo::tfhe {

namespace {

using detail::u64;
using ForEach = std::function<void(std::size_t, const std::function<void(std::size_t)>&)>;

// Row r of the RGSW encryption of m (0/1, secret) under S (transform domain `S_hat`).
void rgsw_encrypt(const detail::Ring& ring, const Params& p, std::span<const u64> S_hat, u64 m,
                  detail::Xof& xof, u64* out) {
  const std::size_t N = p.N;
  const auto& mod = ring.mod;
  std::vector<u64> e(N);
  for (unsigned row = 0; row < 2 * p.levels; ++row) {
    u64* a = out + (2 * row) * N;
    u64* b = out + (2 * row + 1) * N;
    // A uniform mask is uniform in either domain: sample it directly in the transform domain.
    for (std::size_t j = 0; j < N; ++j) a[j] = xof.uniform(p.Q, mod.k);
    for (std::size_t j = 0; j < N; ++j) {
      const std::int32_t x = xof.cbd(p.eta);
      e[j] = x < 0 ? p.Q - static_cast<u64>(-x) : static_cast<u64>(x);
    }
    ring.plan.forward_unchecked(e);
    for (std::size_t j = 0; j < N; ++j) b[j] = mod.add(mod.mul(a[j], S_hat[j]), e[j]);
    // Gadget term m * B_g^k * 2^drop (a constant polynomial: the same value in every slot;
    // drop = the bits the decomposition rounds off).
    const unsigned k = row % p.levels;
    u64 g = (u64{1} << p.dropped_bits()) % p.Q;
    for (unsigned t = 0; t < k; ++t) g = mod.mul(g, u64{1} << p.log_bg);
    const u64 mg = mod.mul(m, g);
    u64* target = row < p.levels ? a : b;
    for (std::size_t j = 0; j < N; ++j) target[j] = mod.add(target[j], mg);
  }
  tempo::secure_zero(e);
}

Keys keygen_impl(const Params& p, std::span<const std::uint8_t> seed, const ForEach& for_each) {
  detail::check_seed(seed);
  std::vector<std::int8_t> s(p.n), S(p.N);
  {
    detail::Xof x("lwe-secret", seed);
    for (auto& v : s) v = x.ternary();
  }
  {
    detail::Xof x("ring-secret", seed);
    for (auto& v : S) v = x.ternary();
  }
  auto ek = std::make_shared<detail::EvalData>(p);
  const detail::Ring& ring = ek->ring;
  std::vector<u64> S_hat(p.N);
  for (std::size_t j = 0; j < p.N; ++j) S_hat[j] = S[j] < 0 ? p.Q - 1 : static_cast<u64>(S[j]);
  ring.plan.forward_unchecked(S_hat);

  const std::size_t stride = ek->rgsw_stride(), patterns = p.patterns(), g = p.grouping;
  detail::reserve_huge(ek->bk, p.steps() * patterns * stride);
  ek->bk.assign(p.steps() * patterns * stride, 0);
  for_each(p.steps(), [&](std::size_t i) {
    detail::Xof x("bootstrapping-key", seed, i);
    // Step i's keys: RGSW([(s_gi, ..., s_gi+g-1) = pattern t]) for t = 1 .. 3^g - 1 in order,
    // t's base-3 digits (first coefficient lowest) 1 -> +1, 2 -> -1 (with g = 1: [s_i = 1],
    // then [s_i = -1]). Each indicator is arithmetic on s, without a branch on it.
    for (std::size_t t = 1; t <= patterns; ++t) {
      u64 m = 1;
      for (std::size_t c = 0, digits = t; c < g; ++c, digits /= 3) {
        const std::int32_t want = digits % 3 == 2 ? -1 : static_cast<std::int32_t>(digits % 3);
        const std::int32_t d = s[g * i + c] - want;                       // in [-2, 2]
        m &= static_cast<u64>(((d | -d) >> 31) + 1);                       // 1 where d == 0
      }
      rgsw_encrypt(ring, p, S_hat, m, x, ek->bk.data() + (patterns * i + t - 1) * stride);
    }
  });

  const std::size_t base = ek->ks_base(), row = ek->ks_row();
  const std::uint32_t qmask = p.qks() - 1;
  detail::reserve_huge(ek->ks, p.N * p.ks_levels * base * row);
  ek->ks.assign(p.N * p.ks_levels * base * row, 0);
  for_each(p.N, [&](std::size_t i) {
    detail::Xof x("key-switching-key", seed, i);
    const std::uint32_t Si = static_cast<std::uint32_t>(static_cast<std::int32_t>(S[i]));
    for (unsigned j = 0; j < p.ks_levels; ++j) {
      for (std::size_t v = 1; v <= base; ++v) {
        std::uint16_t* c = ek->ks.data() + ((i * p.ks_levels + j) * base + (v - 1)) * row;
        std::uint32_t b = 0;
        for (std::size_t t = 0; t < p.n; ++t) {
          const std::uint32_t a = static_cast<std::uint32_t>(x.word(2)) & qmask;
          c[t] = static_cast<std::uint16_t>(a);
          b += a * static_cast<std::uint32_t>(static_cast<std::int32_t>(s[t]));
        }
        b += static_cast<std::uint32_t>(x.cbd(p.eta));
        b += static_cast<std::uint32_t>(v) * Si << (p.log_bks * j);
        c[p.n] = static_cast<std::uint16_t>(b & qmask);
      }
    }
  });
  ek->finalize();
  tempo::secure_zero(S_hat);
  Keys keys{SecretKey(p, std::move(s), std::move(S)), EvaluationKey(std::move(ek))};
  return keys;
}

}  // namespace

Keys keygen_deterministic(const Params& params, std::span<const std::uint8_t> seed) {
  return keygen_impl(params, seed, [](std::size_t n, const std::function<void(std::size_t)>& f) {
    for (std::size_t i = 0; i < n; ++i) f(i);
  });
}

Keys keygen_deterministic(Task& t, const Params& params, std::span<const std::uint8_t> seed) {
  return keygen_impl(params, seed, [&t](std::size_t n, const std::function<void(std::size_t)>& f) {
    tempo::parallel_for(t, std::size_t{0}, n, [&f](std::size_t i) { f(i); });
  });
}

Keys keygen(const Params& params) {
  const detail::OsSeed seed;
  return keygen_deterministic(params, seed.bytes());
}

Keys keygen(Task& t, const Params& params) {
  const detail::OsSeed seed;
  return keygen_deterministic(t, params, seed.bytes());
}

Ciphertext encrypt_bit(const SecretKey& sk, bool bit) {
  const detail::OsSeed seed;
  return encrypt_bit_deterministic(sk, bit, seed.bytes());
}

Ciphertext encrypt_bit_deterministic(const SecretKey& sk, bool bit, std::span<const std::uint8_t> seed) {
  detail::check_seed(seed);
  const Params& p = sk.params();
  if (sk.lwe().size() != p.n) throw std::invalid_argument("tempo::tfhe::encrypt_bit: empty secret key");
  detail::Xof x("encrypt-bit", seed);
  Ciphertext c;
  c.params_id = p.id;
  c.a.resize(p.n);
  const std::uint32_t mask = p.q() - 1;
  std::uint32_t b = 0;
  for (std::size_t i = 0; i < p.n; ++i) {
    c.a[i] = static_cast<std::uint32_t>(x.word(2)) & mask;
    b += c.a[i] * static_cast<std::uint32_t>(static_cast<std::int32_t>(sk.lwe()[i]));
  }
  b += static_cast<std::uint32_t>(x.cbd(p.eta));
  b += static_cast<std::uint32_t>(bit) << (p.log_q - 2);
  c.b = b & mask;
  return c;
}

namespace {
std::uint32_t phase(const SecretKey& sk, const Ciphertext& c) {
  const Params& p = sk.params();
  detail::check_same_params(p, c.params_id, "ciphertext");
  if (c.a.size() != p.n) throw std::invalid_argument("tempo::tfhe: ciphertext has the wrong dimension");
  std::uint32_t v = c.b;
  for (std::size_t i = 0; i < p.n; ++i)
    v -= c.a[i] * static_cast<std::uint32_t>(static_cast<std::int32_t>(sk.lwe()[i]));
  return v & (p.q() - 1);
}
}  // namespace

bool decrypt_bit(const SecretKey& sk, const Ciphertext& c) {
  const Params& p = sk.params();
  const std::uint32_t ph = phase(sk, c);
  // Round to the nearest multiple of q/4; bit 1 is the quarter q/4.
  const std::uint32_t r = ((ph + (p.q() >> 3)) >> (p.log_q - 2)) & 3u;
  return r == 1;
}

std::int64_t noise_of(const SecretKey& sk, const Ciphertext& c, bool bit) {
  const Params& p = sk.params();
  const std::uint32_t q = p.q();
  const std::uint32_t e = (phase(sk, c) - (static_cast<std::uint32_t>(bit) << (p.log_q - 2))) & (q - 1);
  return e >= q / 2 ? static_cast<std::int64_t>(e) - q : static_cast<std::int64_t>(e);
}

}  // namespace tempo::tfhe
