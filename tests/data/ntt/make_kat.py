#!/usr/bin/env python3
"""Known-answer vectors for tempo::ntt, from an independent big-integer reference.

Nothing here mirrors the C++ butterflies: the forward transform is evaluated directly
from its definition, out[i] = a(psi^(2*brv(i)+1)) mod q (O(n^2)), the product is the
schoolbook negacyclic product, and the root is found by brute force over all residues
when q is small, or from the definition "smallest x with x^n = -1" otherwise. The
ML-DSA case also runs FIPS 204 Algorithm 41 exactly as written in the standard (its
zetas array is zetas[k] = 1753^BitRev8(k) mod q, section 7.5 and Appendix B) and checks
that both agree.

Writes ntt_kat.txt. Run: python3 tests/data/ntt/make_kat.py
"""
import os
import random

PRESETS = {  # name: (n, q)
    "MLDSA": (256, 8380417),
    "PN10QP27": (1024, 134215681),
    "PN11QP54": (2048, 18014398509404161),
}
# Extra (n, q) pairs: tiny, odd sizes of q, a prime just below 2^62.
EXTRA = [(16, 97), (32, 193), (64, 2305843009213689601), (128, 4611686018425815041)]


def is_prime(n):
    if n < 2:
        return False
    for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37):
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def brv(x, bits):
    return int(format(x, "0%db" % bits)[::-1], 2)


def smallest_root(n, q):
    """Smallest psi with psi^n = -1 mod q."""
    if q < 10**7:
        for x in range(2, q):
            if pow(x, n, q) == q - 1:
                return x
    # The primitive 2n-th roots are the odd powers of any one of them.
    g = 2
    while True:
        y = pow(g, (q - 1) // (2 * n), q)
        if pow(y, n, q) == q - 1:
            return min(pow(y, k, q) for k in range(1, 2 * n, 2))
        g += 1


def ntt_direct(a, n, q, psi):
    bits = n.bit_length() - 1
    pw = [pow(psi, e, q) for e in range(2 * n)]
    out = []
    for i in range(n):
        e = 2 * brv(i, bits) + 1
        out.append(sum(a[j] * pw[(e * j) % (2 * n)] for j in range(n)) % q)
    return out


def negacyclic(a, b, n, q):
    c = [0] * n
    for i in range(n):
        if a[i] == 0:
            continue
        for j in range(n):
            k = i + j
            if k < n:
                c[k] += a[i] * b[j]
            else:
                c[k - n] -= a[i] * b[j]
    return [x % q for x in c]


def fips204_ntt(w):
    """FIPS 204 Algorithm 41, NTT(w), line by line."""
    q = 8380417
    zetas = [pow(1753, brv(k, 8), q) for k in range(256)]
    w_hat = list(w)
    m = 0
    length = 128
    while length >= 1:
        start = 0
        while start < 256:
            m += 1
            z = zetas[m]
            for j in range(start, start + length):
                t = (z * w_hat[j + length]) % q
                w_hat[j + length] = (w_hat[j] - t) % q
                w_hat[j] = (w_hat[j] + t) % q
            start += 2 * length
        length //= 2
    return w_hat


def main():
    rng = random.Random(20261201)
    lines = ["# tempo::ntt known answers, written by make_kat.py (do not edit).",
             "# case <name> <n> <q> <psi>, then lines a/ntt/b/prod with n decimal coefficients."]
    # FIPS 204 Appendix B's table starts zetas[1..3] = 4808194, 3765607, 3761513.
    q = 8380417
    zetas = [pow(1753, brv(k, 8), q) for k in range(256)]
    assert zetas[1:4] == [4808194, 3765607, 3761513], zetas[:4]
    cases = [(name, n, q) for name, (n, q) in PRESETS.items()]
    cases += [("n%d_q%d" % (n, q), n, q) for n, q in EXTRA]
    for name, n, q in cases:
        assert is_prime(q) and q % (2 * n) == 1 and q < 2**62, (name, n, q)
        psi = smallest_root(n, q)
        if name == "MLDSA":
            assert psi == 1753
        for rep in range(2):
            a = [rng.randrange(q) for _ in range(n)]
            if rep == 1:  # edge values
                a[:4] = [0, 1, q - 1, q - 2]
            b = [rng.randrange(q) for _ in range(n)]
            fa = ntt_direct(a, n, q, psi)
            if name == "MLDSA":
                assert fa == fips204_ntt(a), "direct evaluation disagrees with FIPS 204 Algorithm 41"
            lines.append("case %s %d %d %d" % (name, n, q, psi))
            lines.append("a " + " ".join(map(str, a)))
            lines.append("ntt " + " ".join(map(str, fa)))
            lines.append("b " + " ".join(map(str, b)))
            lines.append("prod " + " ".join(map(str, negacyclic(a, b, n, q))))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ntt_kat.txt")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", path, len(cases) * 2, "cases")


if __name__ == "__main__":
    main()
