// tempo.keccak: Keccak-family batches (tempo::keccak::hash_batch) from Python.
#include <array>
#include <string>

#include <tempo/keccak.hpp>
#include <tempo/keccak/offload.hpp>

#include "common.hpp"

namespace tempo_py {
namespace {

// What tempo.keccak.algorithms lists: hashlib's spellings where hashlib has the algorithm.
// Names are read by tempo::keccak::parse_algorithm, which takes these and tempo's own.
constexpr std::array<const char*, 10> kNames = {"sha3_224",      "sha3_256",      "sha3_384", "sha3_512",
                                                "shake_128",     "shake_256",     "turboshake128",
                                                "turboshake256", "kt128",         "kt256"};

Array2<std::uint8_t> hash_batch(nb::handle algorithm, nb::handle messages, nb::handle out_bytes_arg,
                                nb::handle backend) {
  const std::string name = str_arg(algorithm, "algorithm");
  const tempo::keccak::Algorithm alg = tempo::keccak::parse_algorithm(name);
  const auto out_bytes =
      static_cast<std::size_t>(int_arg(out_bytes_arg, "out_bytes", 1, static_cast<long long>(max_output_bytes)));
  const std::size_t fixed = tempo::keccak::fixed_digest_bytes(alg);
  if (fixed != 0 && out_bytes != fixed)
    throw nb::value_error(("out_bytes: " + name + " produces " + std::to_string(fixed) + "-byte digests, not " +
                           std::to_string(out_bytes)).c_str());
  const tempo::gpu::RunOptions opt = run_options(backend);
  ByteRows rows(messages, "messages");
  const std::size_t count = rows.size();
  check_output_size("keccak.hash_batch", count, out_bytes);
  Array2<std::uint8_t> out = new_array<std::uint8_t>(count, out_bytes);
  if (count == 0) return out;
  const std::span<std::uint8_t> dst(out.data(), count * out_bytes);
  const PackedRows packed(rows, /*secret=*/false);  // in place for a C-contiguous 2-D array
  auto p = pool();
  tempo::gpu::BatchReport report;
  {
    nb::gil_scoped_release unlocked;
    report = p->run([&](tempo::Task& t) {
      if (packed.offsets().empty())  // equal lengths: no offsets array needed
        return tempo::keccak::hash_batch(t, alg, tempo::keccak::FixedBatch{packed.data(), packed.stride(), count},
                                         out_bytes, dst, opt);
      return tempo::keccak::hash_batch(t, alg, tempo::keccak::MessageBatch{packed.data(), packed.offsets()}, out_bytes,
                                       dst, opt);
    });
  }
  record_report("keccak.hash_batch", std::move(report));
  return out;
}

}  // namespace

void bind_keccak(nb::module_& m) {
  nb::module_ s = m.def_submodule("keccak", "SHA3, SHAKE, TurboSHAKE and KangarooTwelve in batches (tempo::keccak).");
  s.def("hash_batch", &hash_batch, arg("algorithm"), arg("messages"), arg("out_bytes"),
        arg("backend") = nb::none(),
        nb::sig("def hash_batch(algorithm: str, messages: " TEMPO_PY_BYTE_ROWS ", out_bytes: int, " TEMPO_PY_BACKEND
                ") -> numpy.typing.NDArray[numpy.uint8]"),
        "Hashes every message; returns a (count, out_bytes) uint8 array, row i the digest of\n"
        "message i.\n\n"
        "algorithm: one of tempo.keccak.algorithms ('sha3_256', 'shake_256', ... as hashlib\n"
        "spells them; tempo's 'sha3-256', 'shake256' work too; case does not matter).\n"
        "TurboSHAKE uses domain byte 0x1F, KT the empty customization.\n"
        "messages: a list/tuple/iterable of bytes-like objects, or a 2-D uint8 numpy array (one\n"
        "message per row; used in place when C-contiguous).\n"
        "out_bytes: the digest size for SHA3, 1 to tempo.MAX_OUTPUT_BYTES for the XOFs.\n"
        "backend: 'auto', 'cpu', 'cuda' (or 'gpu'); None reads TEMPO_BACKEND.\n"
        "The GIL is released while tempo works.");
  nb::list names;
  for (const char* n : kNames) names.append(n);
  s.attr("algorithms") = nb::tuple(names);
}

}  // namespace tempo_py
