// OS seeds, the XOF, modular arithmetic set-up, the ring helper and keys.
#include <bit>
#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <tempo/os_random.hpp>
#include <tempo/secure_zero.hpp>

#include "internal.hpp"

namespace tempo::tfhe {

namespace detail {

OsSeed::OsSeed() { tempo::os_random(bytes_); }

OsSeed::~OsSeed() { tempo::secure_zero(bytes_.data(), bytes_.size()); }

void check_seed(std::span<const std::uint8_t> seed) {
  if (seed.size() != 32)
    throw std::invalid_argument("tempo::tfhe: seed must be 32 bytes, got " + std::to_string(seed.size()));
}

void check_same_params(const Params& p, std::uint8_t id, const char* what) {
  if (p.id != id)
    throw std::invalid_argument(std::string("tempo::tfhe: ") + what + " belongs to parameter set id " +
                                std::to_string(id) + ", the key to " + std::string(p.name));
}

// Domain byte 0x2C: tempo::tfhe's own TurboSHAKE domain (RFC 9861 allows 0x01..0x7F).
Xof::Xof(std::string_view label, std::span<const std::uint8_t> seed, u64 index)
    : sponge_(tempo::keccak::Algorithm::turboshake256, 0x2C) {
  const std::uint8_t len = static_cast<std::uint8_t>(label.size());
  sponge_.absorb({&len, 1});
  sponge_.absorb({reinterpret_cast<const std::uint8_t*>(label.data()), label.size()});
  sponge_.absorb(seed);
  std::uint8_t idx[8];
  for (int i = 0; i < 8; ++i) idx[i] = static_cast<std::uint8_t>(index >> (8 * i));
  sponge_.absorb(idx);
}

Xof::~Xof() { tempo::secure_zero(buf_.data(), buf_.size()); }

void Xof::refill() {
  sponge_.squeeze(buf_);
  pos_ = 0;
}

std::uint8_t Xof::byte() {
  if (pos_ == buf_.size()) refill();
  return buf_[pos_++];
}

u64 Xof::word(unsigned bytes) {
  u64 x = 0;
  if (buf_.size() - pos_ >= bytes) {  // common case: no refill inside the word
    for (unsigned i = 0; i < bytes; ++i) x |= static_cast<u64>(buf_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    return x;
  }
  for (unsigned i = 0; i < bytes; ++i) x |= static_cast<u64>(byte()) << (8 * i);
  return x;
}

u64 Xof::uniform(u64 q, unsigned bits) {
  const u64 mask = bits >= 64 ? ~u64{0} : (u64{1} << bits) - 1;
  const unsigned bytes = (bits + 7) / 8;
  for (;;) {
    const u64 x = word(bytes) & mask;
    if (x < q) return x;  // rejection depends only on discarded values
  }
}

std::int8_t Xof::ternary() {
  for (;;) {
    const unsigned v = byte() & 3u;
    if (v != 3) return static_cast<std::int8_t>(static_cast<int>(v) - 1);
  }
}

namespace {
// Bit count without tables or branches (libgcc's fallback uses a table).
unsigned popcount64(u64 x) noexcept {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<unsigned>((x * 0x0101010101010101ULL) >> 56);
}
}  // namespace

std::int32_t Xof::cbd(unsigned eta) {
  const u64 x = word((2 * eta + 7) / 8);
  const u64 m = (u64{1} << eta) - 1;
  return static_cast<std::int32_t>(popcount64(x & m)) - static_cast<std::int32_t>(popcount64((x >> eta) & m));
}

void advise_huge_pages(const void* data, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t{1} << 21;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t lo = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t hi = (begin + bytes) & ~(huge - 1);
  if (data != nullptr && hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

Modulus::Modulus(u64 q) : Q(q) {
  if (q == 0) return;
  k = static_cast<unsigned>(std::bit_width(q));
  m64 = static_cast<u64>((static_cast<u128>(1) << 64) / q);
  r64 = static_cast<u64>((static_cast<u128>(1) << 64) % q);
  mu = k >= 33 ? static_cast<u64>((static_cast<u128>(1) << (2 * k)) / q) : 0;
}

Ring::Ring(const Params& p) : N(p.N), mod(p.Q), plan(p.N, p.Q) {
  const u64 psi = plan.psi();
  psi_pow.resize(2 * N);
  psi_pow[0] = 1;
  for (std::size_t e = 1; e < 2 * N; ++e) psi_pow[e] = mod.mul(psi_pow[e - 1], psi);
  const unsigned logn = static_cast<unsigned>(std::bit_width(N) - 1);
  slot.resize(N);
  for (std::size_t i = 0; i < N; ++i) {
    std::size_t r = 0;
    for (unsigned b = 0; b < logn; ++b) r |= ((i >> b) & 1u) << (logn - 1 - b);
    slot[i] = static_cast<std::uint32_t>(2 * r + 1);
  }
  // The monomial tables rely on tempo::ntt's documented order; check it once.
  std::vector<u64> x(N, 0);
  x[1] = 1;
  plan.forward(x);
  for (std::size_t i = 0; i < N; ++i)
    if (x[i] != psi_pow[slot[i]])
      throw std::logic_error("tempo::tfhe: tempo::ntt forward order differs from psi^(2 brv(i)+1)");
}

void Ring::monomial_minus_one(std::size_t e, std::span<u64> out) const {
  const std::size_t mask = 2 * N - 1;
  const u64 Q = mod.Q;
  for (std::size_t i = 0; i < N; ++i) {
    const u64 v = psi_pow[(e * slot[i]) & mask];
    out[i] = v == 0 ? Q - 1 : v - 1;
  }
}

}  // namespace detail

SecretKey::SecretKey(Params p, std::vector<std::int8_t> lwe, std::vector<std::int8_t> ring)
    : params_(p), lwe_(std::move(lwe)), ring_(std::move(ring)) {
  if (lwe_.size() != p.n || ring_.size() != p.N)
    throw std::invalid_argument("tempo::tfhe::SecretKey: key sizes do not match the parameter set");
}

SecretKey::~SecretKey() {
  tempo::secure_zero(lwe_);
  tempo::secure_zero(ring_);
}

EvaluationKey::EvaluationKey(std::shared_ptr<const detail::EvalData> d) : data_(std::move(d)) {}

const Params& EvaluationKey::params() const { return data().params; }

const detail::EvalData& EvaluationKey::data() const {
  if (!data_) throw std::invalid_argument("tempo::tfhe: empty EvaluationKey");
  return *data_;
}

}  // namespace tempo::tfhe
