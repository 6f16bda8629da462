"""tempo.ntt against the known answers of tests/data/ntt (an independent big-integer model)."""
import pathlib

import numpy as np
import pytest

import tempo

ntt = pytest.importorskip("tempo.ntt", reason="this build has no tempo::ntt")
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
    p = ntt.Plan.preset(name)
    assert (p.n, p.q, p.psi) == (case["n"], case["q"], case["psi"])
    a, b = rows(case, "a"), rows(case, "b")
    f = ntt.forward_batch(name, a, backend=backend)
    assert (f == rows(case, "ntt")).all()
    assert (ntt.inverse_batch(name, f, backend=backend) == a).all()
    assert (ntt.multiply_batch(name, a, b, backend=backend) == rows(case, "prod")).all()
    assert (a == rows(case, "a")).all()  # inputs untouched


@pytest.mark.parametrize("name", ["MLDSA", "PN10QP27", "PN11QP54", "PN12QP60"])
def test_round_trip_and_inplace(name):
    p = ntt.Plan.preset(name)
    rng = np.random.default_rng(2)
    a = rng.integers(0, p.q, size=(37, p.n), dtype=np.uint64)
    f = ntt.forward_batch(name, a)
    b = a.copy()
    assert ntt.forward_batch(name, b, inplace=True) is b
    assert (b == f).all()
    assert (ntt.inverse_batch(name, f) == a).all()
    # A product through the transform domain equals multiply_batch.
    c = rng.integers(0, p.q, size=a.shape, dtype=np.uint64)
    fc = ntt.forward_batch(name, c)
    q = p.q
    pw = np.array([[(int(x) * int(y)) % q for x, y in zip(r1, r2)] for r1, r2 in zip(f[:2], fc[:2])], dtype=np.uint64)
    assert (ntt.inverse_batch(name, pw) == ntt.multiply_batch(name, a[:2], c[:2])).all()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ["MLDSA", "PN10QP27"])
def test_u32_layout_equals_u64(name, backend):
    # uint32 arrays (the 32-bit layout, q < 2**31): the same values as uint64 ones.
    p = ntt.Plan.preset(name)
    rng = np.random.default_rng(4)
    a = rng.integers(0, p.q, size=(19, p.n), dtype=np.uint64)
    c = rng.integers(0, p.q, size=a.shape, dtype=np.uint64)
    a32, c32 = a.astype(np.uint32), c.astype(np.uint32)
    f32 = ntt.forward_batch(name, a32, backend=backend)
    assert f32.dtype == np.uint32
    assert (f32 == ntt.forward_batch(name, a, backend=backend)).all()
    assert (ntt.inverse_batch(name, f32, backend=backend) == a32).all()
    m32 = ntt.multiply_batch(name, a32, c32, backend=backend)
    assert m32.dtype == np.uint32 and (m32 == ntt.multiply_batch(name, a, c, backend=backend)).all()
    b = a32.copy()
    assert ntt.forward_batch(p, b, inplace=True, backend=backend) is b
    assert (b == f32).all()
    assert (a32 == a).all()  # inputs untouched


def test_non_contiguous_and_empty():
    a = np.random.default_rng(3).integers(0, 8380417, size=(6, 512), dtype=np.uint64)
    view = a[::2, ::2]
    assert (ntt.forward_batch("MLDSA", view) == ntt.forward_batch("MLDSA", np.ascontiguousarray(view))).all()
    assert ntt.forward_batch("MLDSA", np.zeros((0, 256), np.uint64)).shape == (0, 256)


def test_plan_objects():
    p = ntt.Plan.preset("MLDSA")
    assert (p.n, p.log_n, p.q, p.psi) == (256, 8, 8380417, 1753) and p.n * p.n_inv % p.q == 1
    assert p.cpu_path and repr(p) == "Plan(n=256, q=8380417, psi=1753)"
    own = ntt.Plan(256, 8380417)  # the smallest root: FIPS 204's
    assert own.psi == 1753 and ntt.Plan(256, 8380417, 1753).psi == 1753
    a = np.random.default_rng(5).integers(0, p.q, size=(3, 256), dtype=np.uint64)
    assert (ntt.forward_batch(own, a) == ntt.forward_batch("MLDSA", a)).all()
    assert tempo.last_report().call == "ntt.forward_batch" and tempo.last_report().items == 3
    ntt.multiply_batch(p, a, a, backend="cpu")
    assert tempo.last_report().call == "ntt.multiply_batch"


def test_output_limit():
    # A view of one row repeated past MAX_OUTPUT_BYTES: refused before the result (or a
    # contiguous copy) is allocated. In place needs no new memory: no limit.
    row = np.zeros((1, 16384), np.uint64)
    count = tempo.MAX_OUTPUT_BYTES // row.nbytes + 1
    huge = np.lib.stride_tricks.as_strided(row, shape=(count, 16384), strides=(0, 8))
    for call in (lambda: ntt.forward_batch("PN14QP60", huge), lambda: ntt.inverse_batch("PN14QP60", huge),
                 lambda: ntt.multiply_batch("PN14QP60", huge, huge)):
        with pytest.raises(ValueError, match="MAX_OUTPUT_BYTES") as info:
            call()
        assert "\n" not in str(info.value)


@pytest.mark.parametrize("call,exc,text", [
    (lambda: ntt.forward_batch("NOPE", np.zeros((1, 256), np.uint64)), ValueError, "NOPE"),
    (lambda: ntt.forward_batch(7, np.zeros((1, 256), np.uint64)), TypeError, "plan"),
    (lambda: ntt.forward_batch("MLDSA", np.zeros((1, 256), np.int64)), TypeError, "dtype int64"),
    (lambda: ntt.forward_batch("MLDSA", [[0] * 256]), TypeError, "numpy.uint64"),
    (lambda: ntt.forward_batch("MLDSA", np.zeros((1, 255), np.uint64)), ValueError, "(count, 256)"),
    (lambda: ntt.forward_batch("MLDSA", np.full((2, 256), 8380417, np.uint64)), ValueError, "8380417"),
    (lambda: ntt.forward_batch("MLDSA", np.zeros((2, 512), np.uint64)[:, ::2], inplace=True), ValueError,
     "inplace"),
    (lambda: ntt.forward_batch("MLDSA", np.zeros((2, 256), np.uint64), inplace="yes"), TypeError,
     "inplace must be a bool"),
    (lambda: ntt.multiply_batch("MLDSA", np.zeros((1, 256), np.uint64), np.zeros((2, 256), np.uint64)),
     ValueError, "different counts"),
    (lambda: ntt.inverse_batch("MLDSA", np.zeros((1, 256), np.uint64), backend="tpu"), ValueError, "'tpu'"),
    (lambda: ntt.forward_batch("PN11QP54", np.zeros((1, 2048), np.uint32)), ValueError, "need q < 2^31"),
    (lambda: ntt.forward_batch("MLDSA", np.full((1, 256), 8380417, np.uint32)), ValueError, "8380417"),
    (lambda: ntt.multiply_batch("MLDSA", np.zeros((1, 256), np.uint32), np.zeros((1, 256), np.uint64)), TypeError,
     "different dtypes"),
    (lambda: ntt.forward_batch("MLDSA", np.zeros((1, 256), np.uint16)), TypeError, "expected uint64 or uint32"),
    (lambda: ntt.Plan(100, 8380417), ValueError, "100"),
    (lambda: ntt.Plan(256, -1), ValueError, "q = -1"),
    (lambda: ntt.Plan.preset(5), TypeError, "name must be a str"),
])
def test_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert text in msg and "\n" not in msg, msg
