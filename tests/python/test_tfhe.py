"""tempo.tfhe gates against their truth tables (TOY256 keys: insecure, fast)."""
import hashlib

import numpy as np
import pytest

import tempo

pytestmark = pytest.mark.skipif(not hasattr(tempo, "tfhe"), reason="this build has no tempo::tfhe")
TRUTH = {"and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y,
         "nand": lambda x, y: 1 - (x & y), "nor": lambda x, y: 1 - (x | y), "xnor": lambda x, y: 1 - (x ^ y)}


def seeds(label, count):
    return [hashlib.sha3_256(b"%s/%d" % (label, i)).digest() for i in range(count)]


@pytest.fixture(scope="module")
def keys():
    return tempo.tfhe.keygen("TOY256", bytes(range(32)))


def test_keys_deterministic(keys):
    again = tempo.tfhe.keygen("TOY256", bytes(range(32)))
    assert again.evaluation_key_digest() == keys.evaluation_key_digest()
    other = tempo.tfhe.keygen("TOY256", bytes(32))
    assert other.evaluation_key_digest() != keys.evaluation_key_digest()
    assert keys.preset == "TOY256" and not keys.secure


def test_encrypt_decrypt(keys):
    bits = np.array([0, 1, 1, 0, 1, 0, 0, 1], dtype=bool)
    c = tempo.tfhe.encrypt_bits(keys, bits, seeds(b"enc", len(bits)))
    assert c.dtype == np.uint32 and c.shape == (8, keys.n + 1)
    assert (tempo.tfhe.decrypt_bits(keys, c) == bits).all()
    assert (tempo.tfhe.encrypt_bits(keys, bits, seeds(b"enc", len(bits))) == c).all()  # deterministic
    assert (tempo.tfhe.decrypt_bits(keys, tempo.tfhe.not_batch(keys, c)) == ~bits).all()


@pytest.mark.parametrize("gate", sorted(TRUTH))
def test_gates(keys, gate):
    x = np.array([0, 0, 1, 1] * 2)
    y = np.array([0, 1, 0, 1] * 2)
    cx = tempo.tfhe.encrypt_bits(keys, x, seeds(b"x" + gate.encode(), 8))
    cy = tempo.tfhe.encrypt_bits(keys, y, seeds(b"y" + gate.encode(), 8))
    out = tempo.tfhe.gate_batch(keys, gate, cx, cy, backend="cpu")
    assert tempo.tfhe.decrypt_bits(keys, out).astype(int).tolist() == TRUTH[gate](x, y).tolist()
    # Bootstrapped outputs feed further gates.
    again = tempo.tfhe.gate_batch(keys, "xor", out, cx)
    assert tempo.tfhe.decrypt_bits(keys, again).astype(int).tolist() == (TRUTH[gate](x, y) ^ x).tolist()


@pytest.mark.parametrize("call,exc,text", [
    (lambda k: tempo.tfhe.keygen("NOPE", bytes(32)), ValueError, "NOPE"),
    (lambda k: tempo.tfhe.keygen("TOY256", bytes(5)), ValueError, "32"),
    (lambda k: tempo.tfhe.gate_batch(k, "implies", np.zeros((1, k.n + 1), np.uint32),
                                     np.zeros((1, k.n + 1), np.uint32)), ValueError, "implies"),
    (lambda k: tempo.tfhe.gate_batch(k, "and", np.zeros((1, k.n), np.uint32),
                                     np.zeros((1, k.n), np.uint32)), ValueError, "shape"),
    (lambda k: tempo.tfhe.gate_batch(k, "and", np.zeros((1, k.n + 1), np.int64),
                                     np.zeros((1, k.n + 1), np.int64)), TypeError, "uint32"),
    (lambda k: tempo.tfhe.encrypt_bits(k, [1, 0], seeds(b"s", 1)), ValueError, "seeds"),
])
def test_errors(keys, call, exc, text):
    with pytest.raises(exc) as info:
        call(keys)
    assert text in str(info.value)
