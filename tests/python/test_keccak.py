"""tempo.keccak.hash_batch against hashlib (SHA3, SHAKE) and RFC 9861 (TurboSHAKE, KT)."""
import concurrent.futures
import hashlib
import os
import pathlib
import random

import numpy as np
import pytest

import tempo
import tempo.keccak
from tempo.keccak import hash_batch

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "keccak"
HASHLIB = ["sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256"]
FIXED = {"sha3_224": 28, "sha3_256": 32, "sha3_384": 48, "sha3_512": 64}
BACKENDS = ["auto", "cpu"] + (["cuda"] if tempo.device_count() > 0 else [])


def reference(alg, msg, out_bytes):
    h = hashlib.new(alg, msg)
    return h.digest(out_bytes) if alg.startswith("shake") else h.digest()


def check(alg, msgs, out_bytes, digests):
    assert digests.dtype == np.uint8 and digests.shape == (len(msgs), out_bytes)
    for i, m in enumerate(msgs):
        assert digests[i].tobytes() == reference(alg, bytes(m), out_bytes), (alg, i, len(m))


def test_names_are_hashlibs():
    assert tempo.keccak.algorithms[:6] == tuple(HASHLIB)
    for alg in HASHLIB:
        assert alg in hashlib.algorithms_available
    for alg in tempo.keccak.algorithms:  # every listed name is one tempo::keccak::parse_algorithm takes
        hash_batch(alg, [b"x"], FIXED.get(alg, 8))
    assert tempo.hash_batch is hash_batch  # the top-level alias


@pytest.mark.parametrize("alg", HASHLIB)
@pytest.mark.parametrize("backend", BACKENDS)
def test_random_sizes_list(alg, backend):
    rng = random.Random(alg + backend)
    # Lengths around every rate boundary (72..168 bytes) and some longer messages.
    lens = [rng.choice([0, 1, rng.randrange(0, 400), rng.randrange(130, 180), rng.randrange(1000, 5000)])
            for _ in range(300)]
    msgs = [rng.randbytes(n) for n in lens]
    for out_bytes in ([FIXED[alg]] if alg in FIXED else [1, 16, 32, 64, 137, 300]):
        check(alg, msgs, out_bytes, hash_batch(alg, msgs, out_bytes, backend=backend))


@pytest.mark.parametrize("alg", HASHLIB)
def test_fixed_length_array(alg):
    rng = np.random.default_rng(7)
    out_bytes = FIXED.get(alg, 48)
    for msg_len in [0, 1, 31, 32, 71, 72, 135, 136, 167, 168, 169, 1000]:
        arr = rng.integers(0, 256, size=(97, msg_len), dtype=np.uint8)
        check(alg, list(arr), out_bytes, hash_batch(alg, arr, out_bytes))


def test_bytes_like_items_and_tuple():
    items = (b"abc", bytearray(b"hello"), memoryview(b"world"), np.arange(10, dtype=np.uint8), b"")
    d = hash_batch("shake_256", items, 32)
    check("shake_256", items, 32, d)


def test_any_iterable():
    msgs = [b"a", b"bb", b"ccc"]
    ref = hash_batch("shake_128", msgs, 16)
    assert (hash_batch("shake_128", iter(msgs), 16) == ref).all()
    assert (hash_batch("shake_128", (m for m in msgs), 16) == ref).all()
    assert (hash_batch("shake_128", list(np.frombuffer(b"abc", np.uint8).reshape(3, 1)), 16) ==
            hash_batch("shake_128", [b"a", b"b", b"c"], 16)).all()


def test_name_spellings():
    # tempo::keccak::parse_algorithm's rules: hashlib's and tempo's names, any case, '-' or '_'.
    ref = hash_batch("sha3_256", [b"x"], 32)
    for name in ["SHA3_256", "sha3-256", "Sha3-256"]:
        assert (hash_batch(name, [b"x"], 32) == ref).all()
    for name in ["shake128", "SHAKE_128", "shake-128"]:
        assert (hash_batch(name, [b"x"], 8) == hash_batch("shake_128", [b"x"], 8)).all()


def test_non_contiguous_array_is_copied():
    arr = np.random.default_rng(1).integers(0, 256, size=(50, 64), dtype=np.uint8)
    view = arr[::2, 3:40]
    assert not view.flags.c_contiguous
    check("sha3_512", list(view), 64, hash_batch("sha3_512", view, 64))


def test_empty_batch():
    assert hash_batch("shake_128", [], 16).shape == (0, 16)
    assert hash_batch("sha3_256", np.zeros((0, 5), np.uint8), 32).shape == (0, 32)


def _rfc_message(spec):
    if spec.startswith("ptn:"):
        return bytes(i % 251 for i in range(int(spec[4:])))
    _, byte, n = spec.split(":")
    return bytes([int(byte, 16)]) * int(n)


def rfc9861_cases():
    cases = []
    for line in (DATA / "rfc9861.txt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        alg, msg, param, out, compare, hexd = line.split()
        # tempo.hash_batch: TurboSHAKE with domain 0x1F, KT with the empty customization.
        if param not in ("D=1F", "C=ptn:0"):
            continue
        if msg.startswith("ptn:") and int(msg[4:]) > 2_000_000:
            continue  # the 24 MB vector: C++ tests cover it
        cases.append((alg, msg, int(out), compare, hexd))
    return cases


@pytest.mark.parametrize("alg,msg,out,compare,hexd", rfc9861_cases())
def test_turboshake_kt_rfc9861(alg, msg, out, compare, hexd):
    m = _rfc_message(msg)
    for backend in BACKENDS:
        d = hash_batch(alg, [m, m], out, backend=backend)
        got = d[1].tobytes()
        want = bytes.fromhex(hexd)
        assert (got if compare == "all" else got[-len(want):]) == want


def test_turboshake_kt_many_lengths_consistent():
    # Batch results equal one-message calls (different code paths: 4-way grouping vs single).
    rng = random.Random(3)
    msgs = [rng.randbytes(rng.randrange(0, 9000)) for _ in range(64)]
    for alg in ["turboshake128", "turboshake256", "kt128", "kt256"]:
        batch = hash_batch(alg, msgs, 40)
        for i, m in enumerate(msgs):
            assert (hash_batch(alg, [m], 40)[0] == batch[i]).all()


@pytest.mark.parametrize("call,exc,text", [
    (lambda: hash_batch("md5", [b"x"], 16), ValueError, "md5"),
    (lambda: hash_batch(5, [b"x"], 16), TypeError, "algorithm must be a str"),
    (lambda: hash_batch("sha3_256", [b"x"], 16), ValueError, "32-byte digests"),
    (lambda: hash_batch("shake_256", [b"x"], 0), ValueError, "out_bytes"),
    (lambda: hash_batch("shake_256", [b"x"], -3), ValueError, "out_bytes"),
    (lambda: hash_batch("shake_256", [b"x"], 2.5), TypeError, "out_bytes must be an int"),
    (lambda: hash_batch("shake_256", [b"x"], 2**31), ValueError, "out_bytes"),
    (lambda: hash_batch("shake_256", ["text"], 8), TypeError, "messages[0]"),
    (lambda: hash_batch("shake_256", [b"a", 7], 8), TypeError, "messages[1]"),
    (lambda: hash_batch("shake_256", [1, 2, 3], 8), TypeError, "messages[0]"),
    (lambda: hash_batch("shake_256", b"abc", 8), TypeError, "wrap it in a list"),
    (lambda: hash_batch("shake_256", "abc", 8), TypeError, "messages"),
    (lambda: hash_batch("shake_256", 42, 8), TypeError, "list of bytes"),
    (lambda: hash_batch("shake_256", np.zeros((2, 3), np.int32), 8), TypeError, "dtype int32"),
    (lambda: hash_batch("shake_256", np.zeros(3, np.uint8), 8), ValueError, "2-D"),
    (lambda: hash_batch("shake_256", [b"x"], 8, backend="tpu"), ValueError, "'tpu'"),
    (lambda: hash_batch("shake_256", [b"x"], 8, backend=1), TypeError, "backend"),
    (lambda: tempo.set_threads(-1), ValueError, "n = -1"),
    (lambda: tempo.set_threads("4"), TypeError, "n must be an int"),
])
def test_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert text in msg and "\n" not in msg, msg  # one line, naming the argument


def test_output_limit_checked_before_allocating():
    # 4096 x 1 MiB = 4 GiB: refused before anything is allocated (no MemoryError), however
    # many messages there are; the largest allowed digest is MAX_OUTPUT_BYTES for one message.
    with pytest.raises(ValueError, match="MAX_OUTPUT_BYTES") as info:
        hash_batch("shake_256", np.zeros((4096, 1), np.uint8), 1 << 20)
    assert "\n" not in str(info.value) and "keccak.hash_batch" in str(info.value)
    with pytest.raises(ValueError, match="MAX_OUTPUT_BYTES"):
        hash_batch("shake_128", [b""] * 2, tempo.MAX_OUTPUT_BYTES)
    assert tempo.MAX_OUTPUT_BYTES == 1 << 30


@pytest.mark.skipif(tempo.device_count() > 0, reason="a CUDA device is present")
@pytest.mark.parametrize("name", ["cuda", "gpu", "GPU", "Cuda"])
def test_cuda_without_device_is_runtime_error(name):
    with pytest.raises(RuntimeError, match="CUDA"):
        hash_batch("shake_256", [b"x"] * 10, 32, backend=name)


@pytest.mark.parametrize("name", ["cpu", "CPU", "auto", "Auto", None])
def test_backend_names(name):
    assert (hash_batch("shake_256", [b"x"] * 100, 32, backend=name) ==
            np.frombuffer(hashlib.shake_256(b"x").digest(32), np.uint8)).all()


def test_backend_from_env(monkeypatch):
    # backend=None reads TEMPO_BACKEND on every call, as the C++ default RunOptions do.
    monkeypatch.setenv("TEMPO_BACKEND", "cpu")
    hash_batch("shake_256", [b"x"] * 100, 32)
    assert tempo.last_report().ran_on == "cpu"
    monkeypatch.setenv("TEMPO_BACKEND", "nonsense")
    with pytest.raises(ValueError, match="TEMPO_BACKEND") as info:
        hash_batch("shake_256", [b"x"], 32)
    assert "\n" not in str(info.value)
    hash_batch("shake_256", [b"x"], 32, backend="cpu")  # an explicit backend does not read it


def test_threads():
    msgs = [os.urandom(100) for _ in range(2000)]
    ref = hash_batch("sha3_256", msgs, 32)
    try:
        for n in [1, 2, 3, 8]:
            tempo.set_threads(n)
            assert tempo.get_threads() == n
            assert (hash_batch("sha3_256", msgs, 32) == ref).all()
    finally:
        tempo.set_threads(0)


def test_python_threads_at_once():
    # The GIL is released while tempo works: calls from many Python threads share the pool.
    rng = random.Random(5)
    batches = [[rng.randbytes(rng.randrange(0, 300)) for _ in range(500)] for _ in range(8)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        results = list(ex.map(lambda b: hash_batch("shake_128", b, 32), batches))
    for b, d in zip(batches, results):
        check("shake_128", b[:50], 32, d[:50])
        assert d.shape == (500, 32)


def test_set_threads_while_hashing():
    msgs = [b"m" * 64] * 20000
    ref = hash_batch("shake_256", msgs[:1], 16)[0]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        fut = [ex.submit(hash_batch, "shake_256", msgs, 16) for _ in range(4)]
        for n in [2, 1, 3]:
            tempo.set_threads(n)
        for f in fut:
            assert (f.result() == ref).all()
    tempo.set_threads(0)


def test_large_batch():
    # 1M messages (32 MB) from one zero-copy array; a sample checked against hashlib.
    n = int(os.environ.get("TEMPO_PY_LARGE", "1000000"))
    arr = np.random.default_rng(11).integers(0, 256, size=(n, 32), dtype=np.uint8)
    d = hash_batch("shake_256", arr, 32)
    assert d.shape == (n, 32)
    for i in list(range(0, n, max(1, n // 997))) + [n - 1]:
        assert d[i].tobytes() == hashlib.shake_256(arr[i].tobytes()).digest(32)


@pytest.mark.skipif(tempo.device_count() == 0, reason="no CUDA device visible")
@pytest.mark.parametrize("alg", ["shake_128", "shake_256", "sha3_256", "sha3_512", "turboshake128", "turboshake256"])
def test_cuda_equals_cpu(alg):
    arr = np.random.default_rng(4).integers(0, 256, size=(300_000, 64), dtype=np.uint8)
    out = 64 if alg == "sha3_512" else 32
    gpu = hash_batch(alg, arr, out, backend="cuda")
    assert tempo.last_report().gpu_items > 0
    assert (gpu == hash_batch(alg, arr, out, backend="cpu")).all()


def test_fork_child_gets_a_pool():
    # multiprocessing's fork start method: the child must not use (or join) the parent's threads.
    import multiprocessing
    hash_batch("shake_128", [b"warm"] * 1000, 16)  # the parent's pool exists
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as p:
        got = p.starmap(_child_hash, [(b"a",), (b"bc",)])
    assert got == [hashlib.shake_128(b"a").digest(16), hashlib.shake_128(b"bc").digest(16)]


def _child_hash(m):
    return hash_batch("shake_128", [m] * 100, 16)[99].tobytes()
