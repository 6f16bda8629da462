"""The package's shape: submodules named as in C++, one backend parser, the per-thread last
report, the stubs (generated from the module) and a `mypy --strict` user of every family."""
import ast
import importlib
import os
import pathlib
import re
import subprocess
import sys
import threading

import pytest

import tempo
import tempo.keccak

HERE = pathlib.Path(__file__).resolve().parent
FAMILIES = [f for f in ("keccak", "ntt", "tfhe", "faest", "perk") if hasattr(tempo, f)]
PKG = pathlib.Path(os.path.abspath(tempo.__file__)).parent  # not resolved: a build tree links the .py files


def test_submodules_are_modules():
    assert FAMILIES[0] == "keccak"
    for fam in FAMILIES:
        mod = importlib.import_module("tempo." + fam)
        assert sys.modules["tempo." + fam] is mod and getattr(tempo, fam) is mod
        # The Python module re-exports exactly the native submodule's names (so its stub, made
        # from the native submodule, describes it).
        native = importlib.import_module("tempo._tempo." + fam)
        public = {n for n in vars(native) if not n.startswith("_")}
        assert set(mod.__all__) == public, fam
        assert all(getattr(mod, n) is getattr(native, n) for n in public)
    from tempo.keccak import hash_batch
    assert hash_batch is tempo.hash_batch


@pytest.mark.parametrize("name,canonical", [("auto", "auto"), ("AUTO", "auto"), ("cpu", "cpu"), ("Cpu", "cpu"),
                                            ("cuda", "cuda"), ("CUDA", "cuda"), ("gpu", "cuda"), ("GPU", "cuda")])
def test_parse_backend(name, canonical):
    assert tempo.parse_backend(name) == canonical


def test_parse_backend_errors():
    with pytest.raises(ValueError) as info:
        tempo.parse_backend("tpu")
    msg = str(info.value)
    assert "'tpu'" in msg and all(n in msg for n in ("cpu", "cuda", "gpu", "auto")) and "\n" not in msg
    with pytest.raises(TypeError, match="name must be a str"):
        tempo.parse_backend(None)


def test_backend_from_env(monkeypatch):
    monkeypatch.delenv("TEMPO_BACKEND", raising=False)
    assert tempo.backend_from_env() == "auto"
    monkeypatch.setenv("TEMPO_BACKEND", "GPU")
    assert tempo.backend_from_env() == "cuda"
    monkeypatch.setenv("TEMPO_BACKEND", "bogus")
    with pytest.raises(ValueError, match="TEMPO_BACKEND") as info:
        tempo.backend_from_env()
    assert "\n" not in str(info.value)


def test_last_report_is_per_thread():
    tempo.keccak.hash_batch("sha3_256", [b"main"] * 3, 32, backend="cpu")
    seen = []

    def other():
        seen.append(tempo.last_report())
        tempo.keccak.hash_batch("sha3_256", [b"thread"] * 5, 32, backend="cpu")
        seen.append(tempo.last_report().items)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen == [None, 5]
    assert tempo.last_report().items == 3
    assert "keccak.hash_batch" in repr(tempo.last_report())


def stub_functions(path):
    """{name: [parameter names]} of the module-level functions of a .pyi file."""
    tree = ast.parse(path.read_text())
    return {n.name: [a.arg for a in n.args.args] for n in tree.body if isinstance(n, ast.FunctionDef)}


def runtime_parameters(fn):
    """Parameter names from nanobind's signature text (the first overload)."""
    sig = fn.__nb_signature__[0][0]
    tree = ast.parse(sig.replace("\\\\", "") + ": ...")
    return [a.arg for a in tree.body[0].args.args]


@pytest.mark.skipif(not (PKG / "_tempo.pyi").exists(), reason="no stubs next to the package (not built by CMake)")
@pytest.mark.parametrize("module", ["_tempo"] + FAMILIES)
def test_stubs_match_the_module(module):
    assert (PKG / "py.typed").exists()
    native = importlib.import_module("tempo._tempo" + ("" if module == "_tempo" else "." + module))
    stubbed = stub_functions(PKG / (module + ".pyi"))
    text = (PKG / (module + ".pyi")).read_text()
    assert not re.search(r"(:|->)\s*object\b", text) and "import Any" not in text  # real types everywhere
    functions = {n: f for n, f in vars(native).items()
                 if hasattr(f, "__nb_signature__") and not n.startswith("__") and not isinstance(f, type)}
    assert set(stubbed) == set(functions), module
    for name, fn in functions.items():
        assert stubbed[name] == runtime_parameters(fn), (module, name)


ALL = pytest.mark.skipif(FAMILIES != ["keccak", "ntt", "tfhe", "faest", "perk"], reason="typed_user.py uses every family")


@ALL
def test_typed_user_runs():
    sys.path.insert(0, str(HERE))
    try:
        import typed_user
        typed_user.main()
    finally:
        sys.path.remove(str(HERE))


MISUSE = """
import numpy as np
import tempo.faest, tempo.keccak, tempo.ntt, tempo.perk, tempo.tfhe
tempo.keccak.hash_batch("shake_256", "text", 8)
tempo.keccak.hash_batch("shake_256", [b"x"], "8")
tempo.ntt.forward_batch(256, np.zeros((1, 256), np.uint64))
tempo.tfhe.eval_gates("keys", "and", np.zeros((1, 2), np.uint32), np.zeros((1, 2), np.uint32))
tempo.faest.sign("128f", "secret", b"m")
tempo.perk.verify_batch("perk-1-fast-aes_aes", [b"k"], [b"m"], [b"s"], backend=1)
n: str = tempo.get_threads()
"""


@ALL
def test_mypy_strict(tmp_path):
    if not os.environ.get("TEMPO_PY_NEED_MYPY"):  # scripts/ci/python.sh installs mypy and sets it
        pytest.importorskip("mypy", reason="mypy is not installed")
    env = dict(os.environ)
    root = PKG.parent
    if "site-packages" not in root.parts:  # a build tree on PYTHONPATH: tell mypy where
        env["MYPYPATH"] = str(root)
    (tmp_path / "misuse.py").write_text(MISUSE)

    def mypy(path):
        return subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
                               str(path)], cwd=HERE, env=env, capture_output=True, text=True)

    run = mypy(HERE / "typed_user.py")
    assert run.returncode == 0, run.stdout + run.stderr
    # The stubs' types are real: every line of the misuse is an error.
    run = mypy(tmp_path / "misuse.py")
    assert run.returncode == 1 and "Found 7 errors" in run.stdout, run.stdout + run.stderr
