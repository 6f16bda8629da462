"""tempo.perk against the NIST known answers (keys and signatures byte-exact, through the NIST
harness's AES-256 CTR_DRBG written out below), and its batches against single calls."""
import pathlib

import numpy as np
import pytest

import tempo

perk = pytest.importorskip("tempo.perk", reason="this build has no tempo::perk")
DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "perk"
# (public key, secret key, signature) bytes: levels 1 / 3 / 5, fast and short.
SIZES = {(1, "fast"): (104, 120, 4312), (3, "fast"): (151, 175, 10423), (5, "fast"): (195, 227, 18216),
         (1, "short"): (104, 120, 3473), (3, "short"): (151, 175, 8311), (5, "short"): (195, 227, 14830)}
SETS = [f"perk-{lvl}-{mode}-{sym}" for lvl in (1, 3, 5) for mode in ("fast", "short")
        for sym in ("aes_aes", "aes_keccak", "keccak_keccak")]


# ---- the NIST harness's randombytes: CTR_DRBG over AES-256, no derivation function ----
def _sbox():
    box, p, q = [0] * 256, 1, 1
    box[0] = 0x63
    while True:  # p runs over the field's units (generator 3), q = p^-1
        p = p ^ ((p << 1) & 0xFF) ^ (0x1B if p & 0x80 else 0)
        q ^= q << 1
        q ^= q << 2
        q ^= q << 4
        q &= 0xFF
        if q & 0x80:
            q ^= 0x09
        rot = lambda x, s: ((x << s) | (x >> (8 - s))) & 0xFF
        box[p] = q ^ rot(q, 1) ^ rot(q, 2) ^ rot(q, 3) ^ rot(q, 4) ^ 0x63
        if p == 1:
            return box


SBOX = _sbox()


def _xtime(b):
    return ((b << 1) ^ (0x1B if b & 0x80 else 0)) & 0xFF


def aes256_encrypt(key, block):
    w = [list(key[4 * i:4 * i + 4]) for i in range(8)]
    rcon = 1
    for i in range(8, 60):
        t = list(w[i - 1])
        if i % 8 == 0:
            t = [SBOX[b] for b in t[1:] + t[:1]]
            t[0] ^= rcon
            rcon = _xtime(rcon)
        elif i % 8 == 4:
            t = [SBOX[b] for b in t]
        w.append([a ^ b for a, b in zip(w[i - 8], t)])
    s = [b ^ k for b, k in zip(block, sum(w[0:4], []))]
    for rnd in range(1, 15):
        s = [SBOX[b] for b in s]
        s = [s[(i + 4 * (i % 4)) % 16] for i in range(16)]  # ShiftRows (column-major state)
        if rnd != 14:
            cols = []
            for c in range(4):
                a = s[4 * c:4 * c + 4]
                x = a[0] ^ a[1] ^ a[2] ^ a[3]
                cols += [a[i] ^ x ^ _xtime(a[i] ^ a[(i + 1) % 4]) for i in range(4)]
            s = cols
        s = [b ^ k for b, k in zip(s, sum(w[4 * rnd:4 * rnd + 4], []))]
    return bytes(s)


class CtrDrbg:
    def __init__(self, seed):
        self.key, self.v = bytes(32), bytes(16)
        self._update(seed)

    def _next_block(self):
        self.v = ((int.from_bytes(self.v, "big") + 1) % (1 << 128)).to_bytes(16, "big")
        return aes256_encrypt(self.key, self.v)

    def _update(self, provided):
        t = b"".join(self._next_block() for _ in range(3))
        t = bytes(a ^ b for a, b in zip(t, provided or bytes(48)))
        self.key, self.v = t[:32], t[32:]

    def randombytes(self, n):
        out = b""
        while len(out) < n:
            out += self._next_block()
        self._update(None)
        return out[:n]


def kat(params, index=0):
    cur, entries = None, []
    for line in (DATA / f"PQCsignKAT_{params}.rsp").read_text().splitlines():
        if " = " not in line:
            continue
        k, v = line.split(" = ")
        if k == "count":
            cur = {}
            entries.append(cur)
        elif k in ("seed", "msg", "pk", "sk", "sm"):
            cur[k] = bytes.fromhex(v)
        if len(entries) > index + 1:
            break
    return entries[index]


def test_drbg_aes_is_fips197():
    key = bytes(range(32))
    assert aes256_encrypt(key, bytes.fromhex("00112233445566778899aabbccddeeff")).hex() == \
        "8ea2b7ca516745bfeafc49904b496089"


@pytest.mark.parametrize("params", ["perk-1-fast-aes_aes", "perk-3-short-aes_keccak", "perk-5-fast-keccak_keccak"])
def test_nist_kat_byte_exact(params):
    e = kat(params, 1)
    drbg = CtrDrbg(e["seed"])
    lb = perk.keygen_seed_size(params) // 3
    seed = b"".join(drbg.randombytes(lb) for _ in range(3))  # the package's three draws
    pk, sk = perk.keygen_deterministic(params, seed)
    assert (pk, sk) == (e["pk"], e["sk"])
    rand = drbg.randombytes(perk.sign_randomness_size(params))
    sig = perk.sign_deterministic(params, sk, e["msg"], rand)
    assert e["sm"] == sig + e["msg"]  # sm = signature || message
    assert perk.verify(params, pk, e["msg"], sig)
    batch = perk.sign_batch_deterministic(params, [sk] * 2, [e["msg"]] * 2, [rand] * 2)
    assert batch.shape == (2, len(sig)) and all(r.tobytes() == sig for r in batch)
    report = tempo.last_report()
    assert report.call == "perk.sign_batch_deterministic" and report.items == 2


@pytest.mark.parametrize("params", SETS)
def test_nist_kat_signatures_verify(params):
    e = kat(params)
    lvl, mode = int(params[5]), params.split("-")[2]
    sig = e["sm"][:len(e["sm"]) - len(e["msg"])]
    assert (perk.public_key_size(params), perk.secret_key_size(params), perk.signature_size(params)) == \
        SIZES[(lvl, mode)] == (len(e["pk"]), len(e["sk"]), len(sig))
    assert perk.verify(params, e["pk"], e["msg"], sig)
    bad = bytearray(sig)
    bad[len(sig) // 3] ^= 4
    ok = perk.verify_batch(params, [e["pk"]] * 3, [e["msg"]] * 3, [sig, bytes(bad), sig])
    assert ok.dtype == np.bool_ and ok.tolist() == [True, False, True]
    assert tempo.last_report().call == "perk.verify_batch" and tempo.last_report().ran_on == "cpu"


def test_batches_equal_single_calls():
    p = "perk-1-short-aes_aes"
    rng = np.random.default_rng(7)
    keys = [perk.keygen_deterministic(p, rng.integers(0, 256, perk.keygen_seed_size(p), np.uint8).tobytes())
            for _ in range(5)]
    pks = np.array([list(k[0]) for k in keys], dtype=np.uint8)  # 2-D arrays work as well as lists
    sks = np.array([list(k[1]) for k in keys], dtype=np.uint8)
    msgs = [rng.integers(0, 256, n, np.uint8).tobytes() for n in (0, 1, 50, 333, 7)]
    rands = [rng.integers(0, 256, n, np.uint8).tobytes() for n in (32, 32, 5, 32, 0)]
    sigs = perk.sign_batch_deterministic(p, sks, msgs, rands, backend="cpu")
    for i in range(5):
        assert sigs[i].tobytes() == perk.sign_deterministic(p, bytes(sks[i]), msgs[i], rands[i])
    assert perk.verify_batch(p, pks, msgs, sigs).all()
    assert not perk.verify_batch(p, pks, msgs[1:] + msgs[:1], sigs).any()
    fresh = perk.sign_batch(p, list(sks), msgs)  # rand from the OS per signature: other bytes, also valid
    assert tempo.last_report().call == "perk.sign_batch" and tempo.last_report().items == 5
    assert not (fresh == sigs).all(axis=1).any() and perk.verify_batch(p, pks, msgs, fresh).all()


def test_keygen_sign_verify_and_names():
    pk, sk = perk.keygen("PERK-1-FAST-AES-AES")
    s = perk.sign("1-fast-aes_aes", sk, b"hello")  # OS randomness
    assert perk.verify("perk_1_fast_aes_aes", pk, b"hello", s)
    assert not perk.verify("perk-1-fast-aes_aes", pk, b"hellO", s)
    assert s != perk.sign("perk-1-fast-aes_aes", sk, b"hello")
    assert perk.all_params() == tuple(SETS)
    assert perk.name("PERK_3_short_KECCAK_keccak") == perk.parse_params("3-short-keccak-keccak") == \
        "perk-3-short-keccak_keccak"
    assert (perk.keygen_seed_size("perk-5-fast-aes_aes"), perk.sign_randomness_size("perk-5-fast-aes_aes")) == (96, 64)
    assert perk.cpu_isa_name() in ("vaes+pclmul", "aesni+pclmul", "portable")


def test_backend_as_in_cpp(monkeypatch):
    pk, sk = perk.keygen("perk-1-fast-aes_aes")
    monkeypatch.setenv("TEMPO_BACKEND", "CPU")
    sigs = perk.sign_batch("perk-1-fast-aes_aes", [sk], [b"m"])
    assert tempo.last_report().ran_on == "cpu"
    for name in ["cpu", "Cpu", "auto", None]:
        assert perk.verify_batch("perk-1-fast-aes_aes", [pk], [b"m"], sigs, backend=name).all()
    if tempo.device_count() == 0:
        with pytest.raises(RuntimeError, match="CUDA"):
            perk.verify_batch("perk-1-fast-aes_aes", [pk], [b"m"], sigs, backend="gpu")


def test_empty_batches():
    assert perk.sign_batch("perk-1-short-aes_aes", [], []).shape == (0, 3473)
    assert perk.verify_batch("perk-1-short-aes_aes", [], [], []).shape == (0,)


@pytest.mark.parametrize("call,exc,text", [
    (lambda: perk.keygen("perk-2-fast-aes_aes"), ValueError, "'perk-2-fast-aes_aes'"),
    (lambda: perk.keygen_deterministic("perk-1-fast-aes_aes", b"\0" * 47), ValueError, "seed: 47 bytes, expected 48"),
    (lambda: perk.sign_deterministic("perk-1-fast-aes_aes", b"short", b"m", b"r"), ValueError, "secret_key"),
    (lambda: perk.sign("perk-1-fast-aes_aes", "text" * 30, b"m"), TypeError, "secret_key"),
    (lambda: perk.verify("perk-1-fast-aes_aes", b"\0" * 104, b"m", b"\0" * 10), ValueError, "signature"),
    (lambda: perk.sign_batch("perk-1-fast-aes_aes", [b"\0" * 120], [b"a", b"b"]), ValueError, "secret_keys"),
    (lambda: perk.sign_batch("perk-1-fast-aes_aes", [b"\0" * 119], [b"a"]), ValueError, "secret_keys[0]"),
    (lambda: perk.sign_batch_deterministic("perk-1-fast-aes_aes", [b"\0" * 120], [b"a"], [b"r", b"s"]), ValueError,
     "rands"),
    (lambda: perk.verify_batch("perk-1-fast-aes_aes", [b"\0" * 104], [b"a"], [b"\0" * 4311]), ValueError,
     "signatures[0]"),
    (lambda: perk.verify_batch("perk-1-fast-aes_aes", [b"\0" * 104], [b"a"], [b"\0" * 4312], backend="x"),
     ValueError, "'x'"),
    (lambda: perk.name(1), TypeError, "params must be a str"),
])
def test_errors(call, exc, text):
    with pytest.raises(exc) as info:
        call()
    msg = str(info.value)
    assert text in msg and "\n" not in msg, msg
