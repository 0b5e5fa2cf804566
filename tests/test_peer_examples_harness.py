"""The machinery of benchmarks/peer_suites/autograd_examples.py (which runs
autograd's example programs on autograd and on tangent_ad), tested on small
programs written here: no network, no autograd, a few seconds.

The reference runs use a stand-in ``autograd`` written below whose ``grad``
is central differences, so that its numbers agree with tangent_ad's to the
comparison's tolerance only when tangent_ad's are right.
"""
import json
import sys
import textwrap
from pathlib import Path

import pytest

PEER = Path(__file__).resolve().parent.parent / "benchmarks" / "peer_suites"
sys.path.insert(0, str(PEER))
import autograd_examples as harness  # noqa: E402
import examples_runner as runner  # noqa: E402

sys.path.remove(str(PEER))

EXAMPLE = """
import autograd.numpy as np
import matplotlib.pyplot as plt
from autograd import grad, value_and_grad

def loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)

x = np.random.RandomState(1).randn(4, 3)
w = np.ones(3)
plt.figure(figsize=(2, 2)).add_subplot(111).plot(w)   # the matplotlib stand-in
both = value_and_grad(loss)
for i in range(50):          # stopped after the third call
    value, g = both(w, x)
    w = w - 0.1 * g
print(grad(loss)(w, x))      # not reached
"""

# central differences standing in for autograd's grad (reference runs only)
FAKE_AUTOGRAD = """
import numpy

def grad(fun, argnum=0):
    def gradient(*args):
        x = numpy.array(args[argnum], dtype=float)
        out = numpy.zeros_like(x)
        for i in numpy.ndindex(x.shape):
            step = numpy.zeros_like(x)
            step[i] = 1e-6
            plus = list(args); plus[argnum] = x + step
            minus = list(args); minus[argnum] = x - step
            out[i] = (fun(*plus) - fun(*minus)) / 2e-6
        return out
    return gradient

def value_and_grad(fun, argnum=0):
    return lambda *args: (fun(*args), grad(fun, argnum)(*args))
"""


def write_example(tmp_path, source, reference):
    """`source` as a program in a directory of its own; for a reference run
    the central-difference autograd stands beside it."""
    folder = tmp_path / ("ref" if reference else "tad")
    folder.mkdir(exist_ok=True)
    (folder / "example.py").write_text(textwrap.dedent(source))
    if reference:
        (folder / "autograd").mkdir(exist_ok=True)
        (folder / "autograd" / "__init__.py").write_text(FAKE_AUTOGRAD)
        (folder / "autograd" / "numpy.py").write_text("from numpy import *\n")
    return folder / "example.py"


def test_a_run_records_the_first_calls_then_stops_and_the_two_runs_agree(tmp_path):
    ref = harness.run_one(sys.executable, write_example(tmp_path, EXAMPLE, True), False, 3, 120)
    got = harness.run_one(sys.executable, write_example(tmp_path, EXAMPLE, False), True, 3, 120)
    assert ref["status"] == got["status"] == "stopped", (ref["error"], got["error"])
    assert "autograd_shim" in got["autograd"] and "autograd_shim" not in ref["autograd"]
    assert [(r["key"], r["call"]) for r in got["records"]] == [("value_and_grad#1", n) for n in (1, 2, 3)]
    assert harness.compare(ref, got) == ("match", "3 gradient calls")


def test_a_refusal_is_reported_with_its_message(tmp_path):
    refused = EXAMPLE.replace("return np.sum(np.tanh(x @ w) ** 2)",
                              "return np.sum(np.tanh(x @ w) ** 2, **{})")
    ref = harness.run_one(sys.executable, write_example(tmp_path, refused, True), False, 3, 120)
    got = harness.run_one(sys.executable, write_example(tmp_path, refused, False), True, 3, 120)
    outcome, reason = harness.compare(ref, got)
    assert outcome == "refused" and "example.py:" in reason, reason


def _record(status="stopped", values=(1.0,), error=None):
    return {"status": status, "error": error, "seconds": 0.0,
            "records": [{"key": "grad#1", "call": i + 1, "value": runner.encode(v)}
                        for i, v in enumerate(values)]}


def test_comparison_outcomes():
    import numpy as np
    ref = _record(values=[(np.array([1.0, np.nan]), [2.0])])
    assert harness.compare(ref, _record(values=[(np.array([1.0 + 1e-9, np.nan]), [2.0])]))[0] == "match"
    outcome, reason = harness.compare(ref, _record(values=[(np.array([1.1, np.nan]), [2.0])]))
    assert outcome == "wrong" and "output[0]: " in reason and "1 of 2 values differ" in reason
    assert harness.compare(ref, _record(values=[(np.array([1.0, 0.0]), [2.0])]))[0] == "wrong"
    assert harness.compare(ref, _record(values=[[np.array([1.0, np.nan]), [2.0]]]))[0] == "wrong"
    assert harness.compare(ref, _record(values=[(np.array([1.0, np.nan]), [2.0, 3.0])]))[0] == "wrong"
    assert harness.compare(ref, _record(values=[(np.ones((2, 1)), [2.0])]))[0] == "wrong"
    by_key = _record(values=[{"a": 1.0, "b": np.zeros(2)}])
    assert harness.compare(by_key, _record(values=[{"b": np.zeros(2), "a": 1.0}]))[0] == "match"
    assert harness.compare(by_key, _record(values=[{"b": np.zeros(2), "c": 1.0}]))[0] == "wrong"
    assert harness.compare(by_key, _record(values=[{"b": np.ones(2), "a": 1.0}]))[0] == "wrong"
    # a wrong gradient before the error outranks the error
    bad = _record("error", [(np.array([3.0, np.nan]), [2.0])], {"type": "KeyError", "message": "x"})
    assert harness.compare(ref, bad)[0] == "wrong"
    error = {"type": "NoDerivativeError", "message": "f.py:3:4: no reverse-mode derivative for gammaln",
             "tangent_ad": True, "no_derivative": True}
    assert harness.compare(ref, _record("error", [], error)) == ("missing rule", f"NoDerivativeError: {error['message']}")
    error = {"type": "UnsupportedSyntaxError", "message": "f.py:1:1: no\nhint", "tangent_ad": True}
    assert harness.compare(ref, _record("error", [], error)) == ("refused", "UnsupportedSyntaxError: f.py:1:1: no")
    assert harness.compare(ref, _record("error", [], {"type": "KeyError", "message": "'a'"}))[0] == "crash"
    assert harness.compare(ref, _record("timeout", [], {"message": "no result after 1 s"}))[0] == "timeout"
    assert harness.compare(_record("needs data", [], {"message": "downloads u"}), ref)[0] == "needs data"
    assert harness.compare(_record("error", [], {"message": "boom"}), ref)[0] == "n/a"


def test_complex_values_round_trip():
    import numpy as np
    node = json.loads(json.dumps(runner.encode(np.array([[1 + 2j], [3 - 4j]]))))
    assert np.array_equal(harness.decoded(node), np.array([[1 + 2j], [3 - 4j]]))
    assert harness.difference(node, runner.encode(np.array([[1.0], [3.0]]))).endswith("is not")


def test_the_table_closes_with_the_counts():
    text = harness.table([("a", "match", "3 gradient calls"), ("b", "refused", "f.py:1:1: no")])
    assert text.splitlines()[-1] == ("autograd 1.9.1 examples on tangent_ad: 2 programs, 1 give "
                                     "autograd's gradients, 1 refused")


def test_the_matplotlib_stand_in_reads_png(tmp_path):
    import struct
    import zlib

    import numpy as np
    sys.path.insert(0, str(PEER / "examples_stubs"))
    try:
        from matplotlib.image import imread
    finally:
        sys.path.remove(str(PEER / "examples_stubs"))
    pixels = np.array([[0, 51, 255], [255, 102, 0]], dtype=np.uint8)
    # rows filtered with "sub" (1) and "up" (2): each byte minus its left / upper neighbour
    sub = np.diff(pixels[0].astype(int), prepend=0) % 256
    up = (pixels[1].astype(int) - pixels[0]) % 256
    raw = bytes([1, *sub, 2, *up])

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 3, 2, 8, 0, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    (tmp_path / "g.png").write_bytes(png)
    image = imread(str(tmp_path / "g.png"))
    assert image.dtype == np.float32 and np.allclose(image, pixels / 255.0)


@pytest.fixture(autouse=True)
def _no_stub_left():
    yield
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        if "examples_stubs" in (getattr(sys.modules[name], "__file__", "") or ""):
            del sys.modules[name]


def test_synthetic_mnist_is_in_mnists_format(tmp_path):
    import gzip
    import struct

    import numpy as np
    harness.write_synthetic_mnist(tmp_path)
    with gzip.open(tmp_path / "data" / "train-images-idx3-ubyte.gz", "rb") as handle:
        magic, count, rows, cols = struct.unpack(">IIII", handle.read(16))
        pixels = np.frombuffer(handle.read(), dtype=np.uint8)
    assert (magic, count, rows, cols) == (0x0803, 1000, 28, 28) and pixels.size == 1000 * 28 * 28
    with gzip.open(tmp_path / "data" / "t10k-labels-idx1-ubyte.gz", "rb") as handle:
        magic, count = struct.unpack(">II", handle.read(8))
        labels = np.frombuffer(handle.read(), dtype=np.uint8)
    assert (magic, count, labels.size) == (0x0801, 200, 200) and labels.max() <= 9
