"""autograd's ``convolve`` with ``axes`` and ``dot_axes``, as the autograd
shim writes it (benchmarks/peer_suites/autograd_shim/autograd/scipy/signal.py):
its values against SciPy's one-axis convolutions, and its derivatives,
which tangent_ad takes by reading it, against central differences.

The module is loaded from its file alone: importing the shim's
``autograd`` package here would hide the real autograd from other tests.
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tangent_ad as tad
from tangent_ad.testing import check_grads

scipy_signal = pytest.importorskip("scipy.signal")

_PATH = (Path(__file__).resolve().parent.parent / "benchmarks" / "peer_suites" /
         "autograd_shim" / "autograd" / "scipy" / "signal.py")
_SPEC = importlib.util.spec_from_file_location("shim_signal", _PATH)
shim = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(shim)


@pytest.mark.parametrize("mode", ["full", "valid", "same"])
def test_one_pair_of_axes_is_scipys_convolution_of_the_slices(mode):
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(3, 5)), rng.normal(size=(3, 4))
    out = shim.convolve(A, B, axes=([1], [0]), mode=mode)
    assert out.shape[:2] == (3, 4)  # A's other axis, then B's
    for i, j in ((1, 2), (0, 0), (2, 1)):
        np.testing.assert_allclose(out[i, j], scipy_signal.convolve(A[i, :], B[:, j], mode))


def test_dot_axes_are_summed_as_by_tensordot():
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(2, 6, 3)), rng.normal(size=(3, 4, 2))
    out = shim.convolve(A, B, axes=([1], [1]), dot_axes=([0], [2]), mode="valid")
    want = sum(scipy_signal.convolve(A[k, :, i], B[j, :, k], "valid")
               for k in range(2) for i, j in [(1, 2)])
    np.testing.assert_allclose(out[1, 2], want)


def test_the_filter_is_the_array_with_fewer_offsets():
    # a 28 x 28 image with a 5 x 5 kernel: windows of 5 x 5 over the image
    plan = shim._plan((4, 1, 28, 28), (1, 6, 5, 5), ([2, 3], [2, 3]), ([1], [0]), "valid")
    filter_is_A, sizes = plan[0], plan[5]
    assert not filter_is_A and sizes == (5, 5)
    plan = shim._plan((1, 6, 5, 5), (4, 1, 28, 28), ([2, 3], [2, 3]), ([0], [1]), "valid")
    assert plan[0] and plan[5] == (5, 5)


@pytest.mark.parametrize("axes, dot_axes", [
    (([2, 3], [2, 3]), ([1], [0])),   # a convolutional layer, as autograd's convnet
    (([0], [1]), ((), ())),
])
@pytest.mark.parametrize("mode", ["valid", "full", "same"])
def test_derivatives_match_differences(axes, dot_axes, mode):
    rng = np.random.default_rng(2)
    if len(axes[0]) == 2:
        A, B = rng.normal(size=(2, 2, 6, 5)), rng.normal(size=(2, 3, 3, 2))
    else:
        A, B = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))

    def loss(A, B):
        return np.sum(np.tanh(shim.convolve(A, B, axes=axes, dot_axes=dot_axes, mode=mode)))

    check_grads(loss, tad.grad(loss, wrt=(0, 1)), (A, B), wrt=(0, 1))
