"""tempo: batch hashing (SHA3, SHAKE, TurboSHAKE, KangarooTwelve), NTTs, FAEST and PERK
signatures and TFHE gates, run on tempo's heartbeat-scheduled fork/join runtime and CUDA devices.

One submodule per family, named as in C++ (tempo::keccak, tempo::ntt, tempo::tfhe,
tempo::faest, tempo::perk):

    import tempo.keccak
    digests = tempo.keccak.hash_batch("shake_256", [b"abc", b"hello"], 32)   # (2, 32) uint8

Every batch call takes backend=None (TEMPO_BACKEND), 'auto', 'cpu' or 'cuda' ('gpu'), read
by tempo::parse_backend, and leaves its report in tempo.last_report().
"""
import atexit as _atexit
import os as _os

from . import _tempo, keccak
from ._tempo import (MAX_OUTPUT_BYTES, BatchReport, backend_from_env, cuda_compiled, device_count, get_threads,
                     last_report, parse_backend, set_threads)
from .keccak import hash_batch  # the commonest call, also at the top

__all__ = ["MAX_OUTPUT_BYTES", "BatchReport", "backend_from_env", "cuda_compiled", "device_count", "get_threads",
           "hash_batch", "keccak", "last_report", "parse_backend", "set_threads"]
__version__ = "0.4.0"

# The other families are optional parts of a build: import those this one has.
try:
    from . import ntt
    __all__.append("ntt")
except ImportError:
    pass
try:
    from . import tfhe
    __all__.append("tfhe")
except ImportError:
    pass
try:
    from . import faest
    __all__.append("faest")
except ImportError:
    pass
try:
    from . import perk
    __all__.append("perk")
except ImportError:
    pass

# Join the pool's threads while the interpreter is still whole.
_atexit.register(_tempo._shutdown)
# A forked child (multiprocessing's default start method on Linux) gets a new pool on first use.
_os.register_at_fork(after_in_child=_tempo._after_fork_child)
