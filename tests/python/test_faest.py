"""tempo.faest against the FAEST v2 deterministic vectors and the NIST KAT signatures."""
import pathlib

import numpy as np
import pytest

import tempo

pytestmark = pytest.mark.skipif(not hasattr(tempo, "faest"), reason="this build has no tempo::faest")
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
    sig = tempo.faest.sign(params, v["sk"], common["msg"], common["rho"])
    assert sig == v["signature"]
    assert tempo.faest.verify(params, v["pk"], common["msg"], sig)
    batch = tempo.faest.sign_batch(params, [v["sk"]] * 2, [common["msg"]] * 2, rhos=[common["rho"]] * 2)
    assert batch.shape == (2, SIZES[params][2]) and all(r.tobytes() == v["signature"] for r in batch)


@pytest.mark.parametrize("params", ["128f", "128s"])
def test_nist_kat_signatures_verify(params):
    kats = nist_kat(params)
    sigs = [k["sm"][len(k["msg"]):] for k in kats]
    for k, s in zip(kats, sigs):
        assert tempo.faest.verify(params, k["pk"], k["msg"], s)
    ok = tempo.faest.verify_batch(params, [k["pk"] for k in kats], [k["msg"] for k in kats], sigs)
    assert ok.dtype == np.bool_ and ok.all()
    bad = bytearray(sigs[0])
    bad[100] ^= 1
    ok = tempo.faest.verify_batch(params, [kats[0]["pk"]] * 2, [kats[0]["msg"]] * 2, [sigs[0], bytes(bad)])
    assert ok.tolist() == [True, False]


def test_keygen_sign_verify_batch():
    keys = [tempo.faest.keygen("128f") for _ in range(4)]
    pks = [k[0] for k in keys]
    sks = np.array([list(k[1]) for k in keys], dtype=np.uint8)  # a 2-D array works as well as a list
    msgs = [b"m%d" % i * (i + 1) for i in range(4)]
    sigs = tempo.faest.sign_batch("128f", sks, msgs, backend="cpu")
    assert tempo.faest.verify_batch("128f", pks, msgs, sigs).all()
    assert not tempo.faest.verify_batch("128f", pks, msgs[1:] + msgs[:1], sigs).any()
    s = tempo.faest.sign("FAEST-128f", keys[0][1], b"hello")  # OS randomness
    assert tempo.faest.verify("faest_128f", keys[0][0], b"hello", s)
    assert not tempo.faest.verify("128f", keys[0][0], b"hellO", s)


@pytest.mark.parametrize("call,exc,text", [
    (lambda: tempo.faest.keygen("256f"), ValueError, "'256f'"),
    (lambda: tempo.faest.sign("128f", b"short", b"m", b"r"), ValueError, "secret_key"),
    (lambda: tempo.faest.sign("128f", "text" * 8, b"m"), TypeError, "secret_key"),
    (lambda: tempo.faest.verify("128f", b"\0" * 32, b"m", b"\0" * 10), ValueError, "signature"),
    (lambda: tempo.faest.sign_batch("128f", [b"\0" * 32], [b"a", b"b"]), ValueError, "secret_keys"),
    (lambda: tempo.faest.verify_batch("128f", [b"\0" * 32], [b"a"], [b"\0" * 5924], backend="x"), ValueError,
     "backend"),
])
def test_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    assert text in str(info.value)
