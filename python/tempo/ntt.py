"""Negacyclic NTTs over Z_q[X]/(X^n + 1) in batches (tempo::ntt)."""
from ._tempo.ntt import Plan, forward_batch, inverse_batch, multiply_batch

__all__ = ["Plan", "forward_batch", "inverse_batch", "multiply_batch"]
