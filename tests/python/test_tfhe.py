"""tempo.tfhe gates against their truth tables (TOY256 keys: insecure, fast)."""
import hashlib

import numpy as np
import pytest

import tempo

tfhe = pytest.importorskip("tempo.tfhe", reason="this build has no tempo::tfhe")
TRUTH = {"and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y,
         "nand": lambda x, y: 1 - (x & y), "nor": lambda x, y: 1 - (x | y), "xnor": lambda x, y: 1 - (x ^ y)}


def seeds(label, count):
    return [hashlib.sha3_256(b"%s/%d" % (label, i)).digest() for i in range(count)]


@pytest.fixture(scope="module")
def keys():
    return tfhe.keygen_deterministic("TOY256", bytes(range(32)))


def test_keys_deterministic(keys):
    again = tfhe.keygen_deterministic("TOY256", bytes(range(32)))
    assert again.evaluation_key_digest() == keys.evaluation_key_digest()
    other = tfhe.keygen_deterministic("TOY256", bytes(32))
    assert other.evaluation_key_digest() != keys.evaluation_key_digest()
    assert keys.preset == "TOY256" and not keys.secure


def test_keygen_from_os():
    a, b = tfhe.keygen("TOY256"), tfhe.keygen("TOY256")
    assert a.evaluation_key_digest() != b.evaluation_key_digest()
    c = tfhe.encrypt_bits(a, [1, 0, 1])
    assert tfhe.decrypt_bits(a, c).tolist() == [True, False, True]


def test_encrypt_decrypt(keys):
    bits = np.array([0, 1, 1, 0, 1, 0, 0, 1], dtype=bool)
    c = tfhe.encrypt_bits_deterministic(keys, bits, seeds(b"enc", len(bits)))
    assert c.dtype == np.uint32 and c.shape == (8, keys.n + 1)
    assert (tfhe.decrypt_bits(keys, c) == bits).all()
    assert (tfhe.encrypt_bits_deterministic(keys, bits, seeds(b"enc", len(bits))) == c).all()  # deterministic
    for i, bit in enumerate(bits):
        assert (tfhe.encrypt_bit_deterministic(keys, bool(bit), seeds(b"enc", len(bits))[i]) == c[i]).all()
        assert tfhe.decrypt_bit(keys, c[i]) == bit
    assert (tfhe.decrypt_bits(keys, tfhe.eval_nots(keys, c)) == ~bits).all()


def test_encrypt_from_os(keys):
    # Fresh randomness: the same bit twice gives unrelated ciphertexts, both decrypting right.
    x, y = tfhe.encrypt_bit(keys, True), tfhe.encrypt_bit(keys, True)
    assert x.shape == (keys.n + 1,) and (x != y).any()
    assert tfhe.decrypt_bit(keys, x) and tfhe.decrypt_bit(keys, y)
    assert not tfhe.decrypt_bit(keys, tfhe.encrypt_bit(keys, np.False_))
    c = tfhe.encrypt_bits(keys, [True, True])
    assert (c[0] != c[1]).any() and tfhe.decrypt_bits(keys, c).all()


@pytest.mark.parametrize("gate", sorted(TRUTH))
def test_gates(keys, gate):
    x = np.array([0, 0, 1, 1] * 2)
    y = np.array([0, 1, 0, 1] * 2)
    cx = tfhe.encrypt_bits(keys, x)
    cy = tfhe.encrypt_bits(keys, y)
    out = tfhe.eval_gates(keys, gate, cx, cy, backend="cpu")
    assert tfhe.decrypt_bits(keys, out).astype(int).tolist() == TRUTH[gate](x, y).tolist()
    rep = tempo.last_report()
    assert (rep.call, rep.ran_on, rep.items, rep.cpu_items) == ("tfhe.eval_gates", "cpu", 8, 8)
    # Bootstrapped outputs feed further gates.
    again = tfhe.eval_gates(keys, "XOR", out, cx)
    assert tfhe.decrypt_bits(keys, again).astype(int).tolist() == (TRUTH[gate](x, y) ^ x).tolist()


def test_bootstraps(keys):
    bits = [1, 0, 0, 1, 1]
    c = tfhe.encrypt_bits(keys, bits)
    fresh = tfhe.eval_bootstraps(keys, c, backend="cpu")
    assert fresh.shape == c.shape and (fresh != c).any()
    assert tfhe.decrypt_bits(keys, fresh).astype(int).tolist() == bits
    assert tempo.last_report().call == "tfhe.eval_bootstraps" and tempo.last_report().items == 5
    assert tfhe.eval_bootstraps(keys, c[:0]).shape == (0, keys.n + 1)


def test_last_report_follows_the_last_family(keys):
    # One thread-local report for every family: a hash batch, then a TFHE batch.
    tempo.keccak.hash_batch("shake_128", [b"x"] * 7, 16, backend="cpu")
    assert (tempo.last_report().call, tempo.last_report().items) == ("keccak.hash_batch", 7)
    c = tfhe.encrypt_bits(keys, [1, 1, 0])
    tfhe.eval_gates(keys, "and", c, c, backend="cpu")
    rep = tempo.last_report()
    assert (rep.call, rep.ran_on, rep.items, rep.gpu_items) == ("tfhe.eval_gates", "cpu", 3, 0)
    assert isinstance(rep, tempo.BatchReport) and rep.reason and rep.total_ms >= 0


def test_output_limit(keys):
    many = np.zeros(tempo.MAX_OUTPUT_BYTES // ((keys.n + 1) * 4) + 1, bool)
    with pytest.raises(ValueError, match="MAX_OUTPUT_BYTES"):
        tfhe.encrypt_bits(keys, many)


@pytest.mark.parametrize("call,exc,text", [
    (lambda k: tfhe.keygen("NOPE"), ValueError, "NOPE"),
    (lambda k: tfhe.keygen_deterministic("TOY256", bytes(5)), ValueError, "32"),
    (lambda k: tfhe.keygen_deterministic("TOY256", "x" * 32), TypeError, "seed"),
    (lambda k: tfhe.eval_gates(k, "implies", np.zeros((1, k.n + 1), np.uint32),
                               np.zeros((1, k.n + 1), np.uint32)), ValueError, "implies"),
    (lambda k: tfhe.eval_gates(k, "and", np.zeros((1, k.n), np.uint32),
                               np.zeros((1, k.n), np.uint32)), ValueError, "xs: expected shape"),
    (lambda k: tfhe.eval_gates(k, "and", np.zeros((1, k.n + 1), np.int64),
                               np.zeros((1, k.n + 1), np.int64)), TypeError, "uint32"),
    (lambda k: tfhe.eval_gates(k, "and", np.zeros((1, k.n + 1), np.uint32),
                               np.zeros((2, k.n + 1), np.uint32)), ValueError, "different counts"),
    (lambda k: tfhe.eval_gates(k, "and", [[0] * (k.n + 1)], [[0] * (k.n + 1)]), TypeError, "xs"),
    (lambda k: tfhe.eval_gates("keys", "and", None, None), TypeError, "keys must be a tempo.tfhe.Keys"),
    (lambda k: tfhe.eval_gates(k, "and", np.zeros((1, k.n + 1), np.uint32),
                               np.zeros((1, k.n + 1), np.uint32), backend="fpga"), ValueError, "'fpga'"),
    (lambda k: tfhe.encrypt_bits_deterministic(k, [1, 0], seeds(b"s", 1)), ValueError, "seeds"),
    (lambda k: tfhe.encrypt_bit(k, 1), TypeError, "bit must be a bool"),
    (lambda k: tfhe.encrypt_bits(k, "1010"), TypeError, "bits"),
    (lambda k: tfhe.decrypt_bit(k, np.zeros((1, k.n + 1), np.uint32)), ValueError, "ciphertext"),
])
def test_errors(keys, call, exc, text):
    with pytest.raises(exc) as info:
        call(keys)
    msg = str(info.value)
    assert text in msg and "\n" not in msg, msg
