// The extension module tempo._tempo (the package tempo re-exports it; python/tempo/).
#include <tempo/gpu/gpu.hpp>

#include "common.hpp"

NB_MODULE(_tempo, m) {
  using namespace tempo_py;
  m.doc() = "tempo: batch hashing, NTTs, FAEST signatures and TFHE gates on tempo's fork/join runtime";

  m.def(
      "set_threads", [](nb::handle n) { set_threads(static_cast<std::size_t>(int_arg(n, "threads", 0, 1 << 20))); },
      nb::arg("n"),
      "Replaces the module's thread pool with one of n threads (0: TEMPO_THREADS, else all\n"
      "hardware threads). Calls already running finish on the old pool.");
  m.def("get_threads", &threads, "Threads of the module's pool (created on first use).");
  m.def("set_backend", &set_default_backend, nb::arg("backend").none(),
        "Default for backend='auto': 'auto' (the cost model), 'cpu' or 'cuda'; None goes back\n"
        "to TEMPO_BACKEND (unset: the cost model).");
  m.def("get_backend", &default_backend_name, "What backend='auto' currently means: 'auto', 'cpu' or 'cuda'.");
  m.def("cuda_compiled", &tempo::gpu::cuda_compiled, "Whether this build has the CUDA kernels.");
  m.def("device_count", &tempo::gpu::device_count, "Usable CUDA devices (0 without CUDA).");
  m.def("last_report", &last_report,
        "The engine's report of this thread's last batch call (placement, items, times, reason).");
  m.def("_shutdown", &shutdown);
  m.def("_after_fork_child", &after_fork_child);

  bind_hash(m);
#ifdef TEMPO_PY_HAVE_NTT
  bind_ntt(m);
#endif
#ifdef TEMPO_PY_HAVE_FAEST
  bind_faest(m);
#endif
#ifdef TEMPO_PY_HAVE_TFHE
  bind_tfhe(m);
#endif
}
