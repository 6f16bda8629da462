"""tempo.faest against the FAEST v2 deterministic vectors and the NIST KAT signatures."""
import pathlib

import numpy as np
import pytest

import tempo

faest = pytest.importorskip("tempo.faest", reason="this build has no tempo::faest")
DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "faest"
SIZES = {"128f": (32, 32, 5924), "128s": (32, 32, 4506)}


def v2_vectors():
    common, sets, cur = {}, {}, None
    for line in (DATA / "faest_v2_test_vectors.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            cur = sets.setdefault(line.strip("[]"), {})
            continue
        k, v = (x.strip() for x in line.split("=", 1))
        (cur if cur is not None else common)[k] = bytes.fromhex(v)
    return common, sets


def nist_kat(params, count=3):
    out, cur = [], {}
    for line in (DATA / f"PQCsignKAT_faest_{params}.rsp").read_text().splitlines():
        if " = " not in line:
            continue
        k, v = line.split(" = ")
        if k == "count":
            cur = {}
            out.append(cur)
        elif k in ("msg", "pk", "sm"):
            cur[k] = bytes.fromhex(v)
        if len(out) > count:
            break
    return out[:count]


@pytest.mark.parametrize("params", ["128f", "128s"])
def test_v2_vectors(params):
    common, sets = v2_vectors()
    v = sets["faest_" + params]
    sig = faest.sign_deterministic(params, v["sk"], common["msg"], common["rho"])
    assert sig == v["signature"]
    assert faest.verify(params, v["pk"], common["msg"], sig)
    batch = faest.sign_batch_deterministic(params, [v["sk"]] * 2, [common["msg"]] * 2, [common["rho"]] * 2)
    assert batch.shape == (2, SIZES[params][2]) and all(r.tobytes() == v["signature"] for r in batch)
    assert tempo.last_report().call == "faest.sign_batch_deterministic" and tempo.last_report().items == 2


@pytest.mark.parametrize("params", ["128f", "128s"])
def test_nist_kat_signatures_verify(params):
    kats = nist_kat(params)
    sigs = [k["sm"][len(k["msg"]):] for k in kats]
    for k, s in zip(kats, sigs):
        assert faest.verify(params, k["pk"], k["msg"], s)
    ok = faest.verify_batch(params, [k["pk"] for k in kats], [k["msg"] for k in kats], sigs)
    assert ok.dtype == np.bool_ and ok.all()
    bad = bytearray(sigs[0])
    bad[100] ^= 1
    ok = faest.verify_batch(params, [kats[0]["pk"]] * 2, [kats[0]["msg"]] * 2, [sigs[0], bytes(bad)])
    assert ok.tolist() == [True, False]


def test_keygen_sign_verify_batch():
    keys = [faest.keygen("128f") for _ in range(4)]
    pks = [k[0] for k in keys]
    sks = np.array([list(k[1]) for k in keys], dtype=np.uint8)  # a 2-D array works as well as a list
    msgs = [b"m%d" % i * (i + 1) for i in range(4)]
    sigs = faest.sign_batch("128f", sks, msgs, backend="cpu")
    assert tempo.last_report().call == "faest.sign_batch" and tempo.last_report().ran_on == "cpu"
    assert faest.verify_batch("128f", pks, msgs, sigs).all()
    assert tempo.last_report().call == "faest.verify_batch" and tempo.last_report().items == 4
    assert not faest.verify_batch("128f", pks, msgs[1:] + msgs[:1], sigs).any()
    again = faest.sign_batch("128f", list(sks), msgs)  # fresh rho per signature: other bytes, also valid
    assert not (again == sigs).all(axis=1).any() and faest.verify_batch("128f", pks, msgs, again).all()
    s = faest.sign("FAEST-128f", keys[0][1], b"hello")  # OS randomness
    assert faest.verify("faest_128f", keys[0][0], b"hello", s)
    assert not faest.verify("128f", keys[0][0], b"hellO", s)
    assert s != faest.sign("128f", keys[0][1], b"hello")
    assert (faest.signature_size("128s"), faest.public_key_size("128s"), faest.secret_key_size("128s")) == \
        (4506, 32, 32)
    assert faest.cpu_isa_name() in ("vaes+pclmul", "aesni+pclmul", "portable")


def test_backend_as_in_cpp(monkeypatch):
    # The batch calls read backend= and TEMPO_BACKEND as C++ does (tempo::parse_backend).
    pk, sk = faest.keygen("128f")
    monkeypatch.setenv("TEMPO_BACKEND", "CPU")
    sigs = faest.sign_batch("128f", [sk], [b"m"])
    assert tempo.last_report().ran_on == "cpu"
    for name in ["cpu", "Cpu", "auto", None]:
        assert faest.verify_batch("128f", [pk], [b"m"], sigs, backend=name).all()
    if tempo.device_count() == 0:
        for name in ["gpu", "cuda", "GPU"]:
            with pytest.raises(RuntimeError, match="CUDA"):
                faest.verify_batch("128f", [pk], [b"m"], sigs, backend=name)
        monkeypatch.setenv("TEMPO_BACKEND", "gpu")
        with pytest.raises(RuntimeError, match="CUDA"):
            faest.sign_batch("128f", [sk], [b"m"])
    assert faest.verify("128f", pk, b"m", sigs[0])  # single calls have no backend


def test_empty_batches():
    assert faest.sign_batch("128s", [], []).shape == (0, 4506)
    assert faest.verify_batch("128s", [], [], []).shape == (0,)


def test_output_limit():
    # MAX_OUTPUT_BYTES / 5924 + 1 signatures: refused before any signing or allocation.
    n = tempo.MAX_OUTPUT_BYTES // 5924 + 1
    with pytest.raises(ValueError, match="MAX_OUTPUT_BYTES"):
        faest.sign_batch("128f", np.zeros((n, 32), np.uint8), np.zeros((n, 1), np.uint8))


@pytest.mark.parametrize("call,exc,text", [
    (lambda: faest.keygen("256f"), ValueError, "'256f'"),
    (lambda: faest.sign_deterministic("128f", b"short", b"m", b"r"), ValueError, "secret_key"),
    (lambda: faest.sign("128f", "text" * 8, b"m"), TypeError, "secret_key"),
    (lambda: faest.sign("128f", b"\0" * 32, [104, 105]), TypeError, "message"),
    (lambda: faest.sign("128f", b"\0" * 32, "hi"), TypeError, "encode"),
    (lambda: faest.verify("128f", b"\0" * 32, b"m", b"\0" * 10), ValueError, "signature"),
    (lambda: faest.sign_batch("128f", [b"\0" * 32], [b"a", b"b"]), ValueError, "secret_keys"),
    (lambda: faest.sign_batch("128f", [b"\0" * 31], [b"a"]), ValueError, "secret_keys[0]"),
    (lambda: faest.sign_batch("128f", [b"\0" * 32], ["a"]), TypeError, "messages[0]"),
    (lambda: faest.sign_batch_deterministic("128f", [b"\0" * 32], [b"a"], [b"r", b"s"]), ValueError, "rhos"),
    (lambda: faest.sign_batch("128f", np.zeros((1, 32), np.int8), [b"a"]), TypeError, "dtype int8"),
    (lambda: faest.verify_batch("128f", [b"\0" * 32], [b"a"], [b"\0" * 5924], backend="x"), ValueError, "'x'"),
    (lambda: faest.verify_batch(128, [], [], []), TypeError, "params must be a str"),
])
def test_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert text in msg and "\n" not in msg, msg
