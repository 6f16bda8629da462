// Byte formats (little-endian): magic "TFc1"/"TFs1"/"TFe1", parameter id, then the values.
// Parsing checks the magic, the parameter id, the exact length and every value's range.
#include <cstring>
#include <stdexcept>
#include <string>

#include "internal.hpp"

namespace tempo::tfhe {

namespace {

using detail::u64;

struct Writer {
  std::vector<std::byte> out;
  void put(u64 v, unsigned bytes) {
    for (unsigned i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(v >> (8 * i)));
  }
  void magic(const char* m) { for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::byte>(m[i])); }
};

struct Reader {
  std::span<const std::byte> in;
  std::size_t pos = 0;
  const char* what;
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument(std::string("tempo::tfhe: bad serialized ") + what + ": " + why);
  }
  u64 get(unsigned bytes) {
    if (in.size() - pos < bytes) fail("truncated at byte " + std::to_string(pos) + " of " + std::to_string(in.size()));
    u64 v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= static_cast<u64>(std::to_integer<std::uint8_t>(in[pos + i])) << (8 * i);
    pos += bytes;
    return v;
  }
  u64 bounded(unsigned bytes, u64 limit, const char* field, std::size_t index) {
    const u64 v = get(bytes);
    if (v >= limit)
      fail(std::string(field) + "[" + std::to_string(index) + "] = " + std::to_string(v) + " is out of range (must be < " +
           std::to_string(limit) + ")");
    return v;
  }
  const Params& header(const char* m, const Params* expected) {
    if (in.size() < 5) fail("truncated header (" + std::to_string(in.size()) + " bytes)");
    if (std::memcmp(in.data(), m, 4) != 0) fail(std::string("wrong magic (expected ") + m + ")");
    pos = 4;
    const auto id = static_cast<std::uint8_t>(get(1));
    const Params* p = detail::params_by_id(id);
    if (p == nullptr) fail("unknown parameter set id " + std::to_string(id));
    if (expected != nullptr && expected->id != id)
      fail("parameter set " + std::string(p->name) + ", expected " + std::string(expected->name));
    return *p;
  }
  void finish() const {
    if (pos != in.size()) fail(std::to_string(in.size() - pos) + " trailing bytes");
  }
};

}  // namespace

std::vector<std::byte> to_bytes(const Ciphertext& c) {
  Writer w;
  w.magic("TFc1");
  w.put(c.params_id, 1);
  for (auto v : c.a) w.put(v, 2);
  w.put(c.b, 2);
  return std::move(w.out);
}

Ciphertext ciphertext_from_bytes(std::span<const std::byte> bytes, const Params* expected) {
  Reader r{bytes, 0, "ciphertext"};
  const Params& p = r.header("TFc1", expected);
  if (bytes.size() != 5 + 2 * (p.n + 1))
    r.fail("length " + std::to_string(bytes.size()) + ", expected " + std::to_string(5 + 2 * (p.n + 1)) + " for " +
           std::string(p.name));
  Ciphertext c;
  c.params_id = p.id;
  c.a.resize(p.n);
  for (std::size_t i = 0; i < p.n; ++i) c.a[i] = static_cast<std::uint32_t>(r.bounded(2, p.q(), "a", i));
  c.b = static_cast<std::uint32_t>(r.bounded(2, p.q(), "b", 0));
  r.finish();
  return c;
}

std::vector<std::byte> to_bytes(const SecretKey& sk) {
  Writer w;
  w.magic("TFs1");
  w.put(sk.params().id, 1);
  for (auto v : sk.lwe()) w.put(static_cast<std::uint8_t>(v), 1);
  for (auto v : sk.ring()) w.put(static_cast<std::uint8_t>(v), 1);
  return std::move(w.out);
}

SecretKey secret_key_from_bytes(std::span<const std::byte> bytes, const Params* expected) {
  Reader r{bytes, 0, "secret key"};
  const Params& p = r.header("TFs1", expected);
  if (bytes.size() != 5 + p.n + p.N)
    r.fail("length " + std::to_string(bytes.size()) + ", expected " + std::to_string(5 + p.n + p.N));
  auto tern = [&](const char* field, std::size_t i) {
    const auto v = static_cast<std::uint8_t>(r.get(1));
    if (v > 1 && v != 0xff) r.fail(std::string(field) + "[" + std::to_string(i) + "] is not in {-1, 0, 1}");
    return static_cast<std::int8_t>(v);
  };
  std::vector<std::int8_t> s(p.n), S(p.N);
  for (std::size_t i = 0; i < p.n; ++i) s[i] = tern("lwe", i);
  for (std::size_t i = 0; i < p.N; ++i) S[i] = tern("ring", i);
  r.finish();
  return SecretKey(p, std::move(s), std::move(S));
}

namespace {
template <class Sink>
void write_eval(const detail::EvalData& d, Sink&& sink) {
  std::uint8_t head[5] = {'T', 'F', 'e', '1', d.params.id};
  sink(head, 5);
  std::vector<std::uint8_t> buf;
  buf.reserve(1 << 16);
  auto flush = [&] { sink(buf.data(), buf.size()); buf.clear(); };
  for (std::size_t idx = 0; idx < d.bk_size(); ++idx) {
    const u64 v = d.bk_value(idx);
    for (int i = 0; i < 8; ++i) buf.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    if (buf.size() >= (1 << 16)) flush();
  }
  for (std::uint16_t v : d.ks) {
    buf.push_back(static_cast<std::uint8_t>(v));
    buf.push_back(static_cast<std::uint8_t>(v >> 8));
    if (buf.size() >= (1 << 16)) flush();
  }
  flush();
}
}  // namespace

std::vector<std::byte> to_bytes(const EvaluationKey& ek) {
  std::vector<std::byte> out;
  write_eval(ek.data(), [&](const std::uint8_t* p, std::size_t n) {
    const auto* b = reinterpret_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  });
  return out;
}

std::array<std::uint8_t, 32> digest(const EvaluationKey& ek) {
  tempo::keccak::Keccak h(tempo::keccak::Algorithm::sha3_256);
  write_eval(ek.data(), [&](const std::uint8_t* p, std::size_t n) { h.absorb({p, n}); });
  std::array<std::uint8_t, 32> out{};
  h.squeeze(out);
  return out;
}

EvaluationKey evaluation_key_from_bytes(std::span<const std::byte> bytes, const Params* expected) {
  Reader r{bytes, 0, "evaluation key"};
  const Params& p = r.header("TFe1", expected);
  auto d = std::make_shared<detail::EvalData>(p);
  const std::size_t nbk = p.steps() * d->step_stride();
  const std::size_t nks = p.N * p.ks_levels * d->ks_base() * d->ks_row();
  const std::size_t want = 5 + 8 * nbk + 2 * nks;
  if (bytes.size() != want)
    r.fail("length " + std::to_string(bytes.size()) + ", expected " + std::to_string(want) + " for " + std::string(p.name));
  detail::reserve_huge(d->bk, nbk);
  d->bk.resize(nbk);
  for (std::size_t i = 0; i < nbk; ++i) d->bk[i] = r.bounded(8, p.Q, "bootstrapping key", i);
  d->finalize();
  detail::reserve_huge(d->ks, nks);
  d->ks.resize(nks);
  for (std::size_t i = 0; i < nks; ++i) d->ks[i] = static_cast<std::uint16_t>(r.bounded(2, p.qks(), "key-switching key", i));
  r.finish();
  return EvaluationKey(std::move(d));
}

}  // namespace tempo::tfhe
