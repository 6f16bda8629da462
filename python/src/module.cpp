// The extension module tempo._tempo, with one submodule per family (tempo._tempo.keccak,
// .ntt, .tfhe, .faest, .perk). The package tempo (python/tempo/) re-exports each as tempo.<family>.
#include <string>

#include <tempo/gpu/gpu.hpp>

#include "common.hpp"

NB_MODULE(_tempo, m) {
  using namespace tempo_py;
  m.doc() = "tempo: batch hashing, NTTs, FAEST and PERK signatures and TFHE gates on tempo's fork/join runtime";

  m.def(
      "set_threads",
      [](nb::handle n) {
        set_threads(static_cast<std::size_t>(int_arg(n, "n", 0, static_cast<long long>(tempo::max_threads))));
      },
      arg("n"), nb::sig("def set_threads(n: int) -> None"),
      "Replaces the module's thread pool with one of n threads (0: TEMPO_THREADS, else all\n"
      "hardware threads). Calls already running finish on the old pool.");
  m.def("get_threads", &threads, "Threads of the module's pool (created on first use).");
  m.def(
      "parse_backend",
      [](nb::handle name) {
        return std::string(tempo::backend_name(tempo::parse_backend(str_arg(name, "name"))));
      },
      arg("name"), nb::sig("def parse_backend(name: str) -> str"),
      "tempo::parse_backend: 'auto', 'cpu' or 'cuda' for a backend name (case-insensitive;\n"
      "'gpu' means 'cuda'); ValueError naming a bad one. Every backend= argument is read so.");
  m.def(
      "backend_from_env", [] { return std::string(tempo::backend_name(tempo::backend_from_env())); },
      "tempo::backend_from_env: what backend=None means now, from TEMPO_BACKEND ('auto' when\n"
      "unset); ValueError for a bad value.");
  m.def("cuda_compiled", &tempo::gpu::cuda_compiled, "Whether this build has the CUDA kernels.");
  m.def("device_count", &tempo::gpu::device_count, "Usable CUDA devices (0 without CUDA).");
  m.attr("MAX_OUTPUT_BYTES") = max_output_bytes;
  bind_report(m);
  m.def("_shutdown", &shutdown);
  m.def("_after_fork_child", &after_fork_child);

  bind_keccak(m);
#ifdef TEMPO_PY_HAVE_NTT
  bind_ntt(m);
#endif
#ifdef TEMPO_PY_HAVE_FAEST
  bind_faest(m);
#endif
#ifdef TEMPO_PY_HAVE_TFHE
  bind_tfhe(m);
#endif
#ifdef TEMPO_PY_HAVE_PERK
  bind_perk(m);
#endif
}
