"""A typed user of every submodule: `mypy --strict` must accept it, and it must run
(test_api.py does both). Not collected by pytest (no test_ prefix)."""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

import tempo
import tempo.faest
import tempo.keccak
import tempo.ntt
import tempo.perk
from tempo.tfhe import Keys, decrypt_bits, encrypt_bits, eval_bootstraps, eval_gates, keygen_deterministic


def digests(messages: list[bytes], backend: str | None = None) -> NDArray[np.uint8]:
    return tempo.keccak.hash_batch("shake_256", messages, 32, backend=backend)


def ntt_round_trip() -> bool:
    plan: tempo.ntt.Plan = tempo.ntt.Plan.preset("MLDSA")
    a = np.random.default_rng(1).integers(0, plan.q, size=(4, plan.n), dtype=np.uint64)
    f = tempo.ntt.forward_batch(plan, a, backend="cpu")
    back: NDArray[np.uint64] = tempo.ntt.inverse_batch("MLDSA", f)
    prod = tempo.ntt.multiply_batch(plan, a, a, backend=None)
    return bool((back == a).all()) and prod.shape == a.shape


def nand(keys: Keys, x: list[int], y: list[int]) -> list[bool]:
    out = eval_gates(keys, "nand", encrypt_bits(keys, x), encrypt_bits(keys, y), backend="cpu")
    fresh = eval_bootstraps(keys, out)
    return [bool(b) for b in decrypt_bits(keys, fresh)]


def signatures(count: int) -> bool:
    pk, sk = tempo.faest.keygen("128f")
    msgs = [b"message %d" % i for i in range(count)]
    sigs: NDArray[np.uint8] = tempo.faest.sign_batch("128f", [sk] * count, msgs)
    ok: NDArray[np.bool_] = tempo.faest.verify_batch("128f", [pk] * count, msgs, sigs)
    one: bytes = tempo.faest.sign_deterministic("128f", sk, b"m", bytes(16))
    return bool(ok.all()) and tempo.faest.verify("128f", pk, b"m", one)


def perk_signatures(count: int) -> bool:
    p: str = tempo.perk.all_params()[0]
    pk, sk = tempo.perk.keygen_deterministic(p, bytes(tempo.perk.keygen_seed_size(p)))
    msgs = [b"message %d" % i for i in range(count)]
    sigs: NDArray[np.uint8] = tempo.perk.sign_batch(p, [sk] * count, msgs, backend="cpu")
    ok: NDArray[np.bool_] = tempo.perk.verify_batch(p, [pk] * count, msgs, sigs)
    return bool(ok.all()) and tempo.perk.name(p) == tempo.perk.parse_params(p.upper())


def main() -> None:
    assert digests([b"abc", b""]).shape == (2, 32)
    report: tempo.BatchReport | None = tempo.last_report()
    assert report is not None and report.call == "keccak.hash_batch" and report.items == 2
    backend: str = tempo.parse_backend("GPU")
    assert backend == "cuda" and tempo.backend_from_env() in ("auto", "cpu", "cuda")
    limit: int = tempo.MAX_OUTPUT_BYTES
    names: tuple[str, ...] = tempo.keccak.algorithms
    assert limit > 0 and "shake_256" in names and tempo.get_threads() >= 1
    assert ntt_round_trip()
    keys = keygen_deterministic("TOY256", bytes(32))
    assert nand(keys, [0, 0, 1, 1], [0, 1, 0, 1]) == [True, True, True, False]
    assert signatures(3)
    assert perk_signatures(2)
    print("typed_user: ok")


if __name__ == "__main__":
    main()
