// tempo.hash_batch: Keccak-family batches (tempo::keccak::hash_batch) from Python.
#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include <tempo/keccak/offload.hpp>

#include "common.hpp"

namespace tempo_py {
namespace {

using tempo::keccak::Algorithm;

struct Name {
  const char* python;  // as hashlib spells it (TurboSHAKE and KT: as tempo does)
  Algorithm alg;
};
constexpr std::array<Name, 10> kNames = {{
    {"sha3_224", Algorithm::sha3_224},
    {"sha3_256", Algorithm::sha3_256},
    {"sha3_384", Algorithm::sha3_384},
    {"sha3_512", Algorithm::sha3_512},
    {"shake_128", Algorithm::shake128},
    {"shake_256", Algorithm::shake256},
    {"turboshake128", Algorithm::turboshake128},
    {"turboshake256", Algorithm::turboshake256},
    {"kt128", Algorithm::kt128},
    {"kt256", Algorithm::kt256},
}};

// Case, '-' and '_' do not matter: "shake_128", "SHAKE128", "sha3-256" all work.
std::string squash(std::string_view s) {
  std::string r;
  for (char c : s) {
    if (c == '-' || c == '_') continue;
    r += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return r;
}

Algorithm parse(nb::handle h) {
  const std::string name = str_arg(h, "algorithm");
  const std::string key = squash(name);
  std::string valid;
  for (const Name& n : kNames) {
    if (squash(n.python) == key) return n.alg;
    valid += valid.empty() ? "" : ", ";
    valid += n.python;
  }
  throw nb::value_error(("algorithm: unknown name '" + name + "' (expected one of: " + valid + ")").c_str());
}

const char* python_name(Algorithm a) {
  for (const Name& n : kNames)
    if (n.alg == a) return n.python;
  return "?";
}

U8Array hash_batch(nb::handle algorithm, nb::handle messages, nb::handle out_bytes_arg, nb::handle backend_h) {
  const Algorithm alg = parse(algorithm);
  const auto out_bytes = static_cast<std::size_t>(int_arg(out_bytes_arg, "out_bytes", 1, std::int64_t{1} << 40));
  if (!tempo::keccak::is_xof(alg) && out_bytes != tempo::keccak::fixed_digest_bytes(alg))
    throw nb::value_error((std::string(python_name(alg)) + " produces " +
                           std::to_string(tempo::keccak::fixed_digest_bytes(alg)) + "-byte digests; out_bytes = " +
                           std::to_string(out_bytes))
                              .c_str());
  const tempo::Backend backend = backend_arg(backend_h);
  ByteRows rows(messages, "messages");
  const std::size_t count = rows.size();
  if (count != 0 && out_bytes > std::numeric_limits<std::size_t>::max() / count)
    throw nb::value_error("out_bytes * len(messages) overflows");
  U8Array out = new_array<std::uint8_t>(count, out_bytes);
  if (count == 0) return out;
  const std::span<std::uint8_t> dst(out.data(), count * out_bytes);
  auto p = pool();
  {
    nb::gil_scoped_release unlocked;
    tempo::gpu::BatchReport report;
    if (const std::uint8_t* base = rows.contiguous_data()) {  // zero-copy: the array's own buffer
      const tempo::keccak::FixedBatch batch{{base, rows.total_bytes()}, rows.row_len(), count};
      report = p->run([&](tempo::Task& t) { return tempo::keccak::hash_batch(t, alg, batch, out_bytes, dst, backend); });
    } else {
      // Messages of any lengths: one buffer end to end and n+1 offsets (MessageBatch).
      std::vector<std::uint8_t> data(rows.total_bytes());
      std::vector<std::uint64_t> offsets(count + 1);
      std::size_t at = 0;
      for (std::size_t i = 0; i < count; ++i) {
        const auto m = rows.row(i);
        if (!m.empty()) std::memcpy(data.data() + at, m.data(), m.size());
        at += m.size();
        offsets[i + 1] = at;
      }
      const tempo::keccak::MessageBatch batch{data, offsets};
      report = p->run([&](tempo::Task& t) { return tempo::keccak::hash_batch(t, alg, batch, out_bytes, dst, backend); });
    }
    record_report(report);
  }
  return out;
}

}  // namespace

void bind_hash(nb::module_& m) {
  m.def("hash_batch", &hash_batch, nb::arg("algorithm"), nb::arg("messages"), nb::arg("out_bytes"),
        nb::arg("backend") = "auto",
        "hash_batch(algorithm, messages, out_bytes, backend='auto') -> numpy.ndarray\n\n"
        "Hashes every message; returns a (count, out_bytes) uint8 array, row i the digest of\n"
        "message i. algorithm: 'sha3_224', 'sha3_256', 'sha3_384', 'sha3_512', 'shake_128',\n"
        "'shake_256' (as hashlib spells them), 'turboshake128', 'turboshake256' (domain 0x1F),\n"
        "'kt128', 'kt256' (empty customization). messages: a list/tuple of bytes-like objects, or\n"
        "a 2-D uint8 numpy array (one message per row; used in place when C-contiguous).\n"
        "out_bytes: the digest size for SHA3, any positive length for the XOFs. backend: 'auto',\n"
        "'cpu' or 'cuda'. The GIL is released while tempo works.");
  nb::list names;
  for (const Name& n : kNames) names.append(n.python);
  m.attr("algorithms") = nb::tuple(names);
}

}  // namespace tempo_py
