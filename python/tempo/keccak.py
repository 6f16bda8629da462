"""SHA3, SHAKE, TurboSHAKE and KangarooTwelve in batches (tempo::keccak)."""
from ._tempo.keccak import algorithms, hash_batch

__all__ = ["algorithms", "hash_batch"]
