"""tempo.ntt against the known answers of tests/data/ntt (an independent big-integer model)."""
import pathlib

import numpy as np
import pytest

import tempo

pytestmark = pytest.mark.skipif(not hasattr(tempo, "ntt"), reason="this build has no tempo::ntt")
KAT = pathlib.Path(__file__).resolve().parents[1] / "data" / "ntt" / "ntt_kat.txt"
BACKENDS = ["auto", "cpu"] + (["cuda"] if tempo.device_count() > 0 else [])


def kat_cases():
    cases, cur = [], None
    for line in KAT.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        head, *rest = line.split()
        if head == "case":
            cur = {"name": rest[0], "n": int(rest[1]), "q": int(rest[2]), "psi": int(rest[3])}
            cases.append(cur)
        else:
            cur[head] = [int(x) for x in rest]
    return [c for c in cases if c["name"] in ("MLDSA", "PN10QP27", "PN11QP54")]


def rows(c, key, copies=3):
    return np.array([c[key]] * copies, dtype=np.uint64)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", kat_cases(), ids=lambda c: c["name"])
def test_known_answers(case, backend):
    name = case["name"]
    p = tempo.ntt.params(name)
    assert (p["n"], p["q"], p["psi"]) == (case["n"], case["q"], case["psi"])
    a, b = rows(case, "a"), rows(case, "b")
    f = tempo.ntt.forward_batch(name, a, backend=backend)
    assert (f == rows(case, "ntt")).all()
    assert (tempo.ntt.inverse_batch(name, f, backend=backend) == a).all()
    assert (tempo.ntt.multiply_batch(name, a, b, backend=backend) == rows(case, "prod")).all()
    assert (a == rows(case, "a")).all()  # inputs untouched


@pytest.mark.parametrize("name", ["MLDSA", "PN10QP27", "PN11QP54", "PN12QP60"])
def test_round_trip_and_inplace(name):
    p = tempo.ntt.params(name)
    rng = np.random.default_rng(2)
    a = rng.integers(0, p["q"], size=(37, p["n"]), dtype=np.uint64)
    f = tempo.ntt.forward_batch(name, a)
    b = a.copy()
    assert tempo.ntt.forward_batch(name, b, inplace=True) is b
    assert (b == f).all()
    assert (tempo.ntt.inverse_batch(name, f) == a).all()
    # A product through the transform domain equals multiply_batch.
    c = rng.integers(0, p["q"], size=a.shape, dtype=np.uint64)
    fc = tempo.ntt.forward_batch(name, c)
    q = p["q"]
    pw = np.array([[(int(x) * int(y)) % q for x, y in zip(r1, r2)] for r1, r2 in zip(f[:2], fc[:2])], dtype=np.uint64)
    assert (tempo.ntt.inverse_batch(name, pw) == tempo.ntt.multiply_batch(name, a[:2], c[:2])).all()


def test_non_contiguous_and_empty():
    a = np.random.default_rng(3).integers(0, 8380417, size=(6, 512), dtype=np.uint64)
    view = a[::2, ::2]
    assert (tempo.ntt.forward_batch("MLDSA", view) == tempo.ntt.forward_batch("MLDSA", np.ascontiguousarray(view))).all()
    assert tempo.ntt.forward_batch("MLDSA", np.zeros((0, 256), np.uint64)).shape == (0, 256)


@pytest.mark.parametrize("call,exc,text", [
    (lambda: tempo.ntt.forward_batch("NOPE", np.zeros((1, 256), np.uint64)), ValueError, "NOPE"),
    (lambda: tempo.ntt.forward_batch("MLDSA", np.zeros((1, 256), np.int64)), TypeError, "dtype int64"),
    (lambda: tempo.ntt.forward_batch("MLDSA", [[0] * 256]), TypeError, "numpy.uint64"),
    (lambda: tempo.ntt.forward_batch("MLDSA", np.zeros((1, 255), np.uint64)), ValueError, "(count, 256)"),
    (lambda: tempo.ntt.forward_batch("MLDSA", np.full((2, 256), 8380417, np.uint64)), ValueError, "not below q"),
    (lambda: tempo.ntt.forward_batch("MLDSA", np.zeros((2, 512), np.uint64)[:, ::2], inplace=True), ValueError,
     "inplace"),
    (lambda: tempo.ntt.multiply_batch("MLDSA", np.zeros((1, 256), np.uint64), np.zeros((2, 256), np.uint64)),
     ValueError, "different counts"),
    (lambda: tempo.ntt.inverse_batch("MLDSA", np.zeros((1, 256), np.uint64), backend="tpu"), ValueError, "backend"),
])
def test_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    assert text in str(info.value)
