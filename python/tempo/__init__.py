"""tempo: batch hashing (SHA3, SHAKE, TurboSHAKE, KangarooTwelve), NTTs, FAEST signatures
and TFHE gates, run on tempo's heartbeat-scheduled fork/join runtime and CUDA devices.

    import tempo
    digests = tempo.hash_batch("shake_256", [b"abc", b"hello"], 32)   # (2, 32) uint8 array
"""
import atexit as _atexit
import os as _os

from . import _tempo
from ._tempo import (algorithms, cuda_compiled, device_count, get_backend, get_threads, hash_batch,
                     last_report, set_backend, set_threads)

__all__ = ["algorithms", "cuda_compiled", "device_count", "get_backend", "get_threads", "hash_batch",
           "last_report", "set_backend", "set_threads"]
__version__ = "0.2.0"

for _name in ("ntt", "faest", "tfhe"):
    if hasattr(_tempo, _name):
        globals()[_name] = getattr(_tempo, _name)
        __all__.append(_name)

# Join the pool's threads while the interpreter is still whole.
_atexit.register(_tempo._shutdown)
# A forked child (multiprocessing's default start method on Linux) gets a new pool on first use.
_os.register_at_fork(after_in_child=_tempo._after_fork_child)
