"""Runtime helpers of the ``np.fft`` rules (templates/numpy_fft.py): the
adjoints of the discrete Fourier transforms.

Each transform is linear: it fits its input to the transform lengths
(cropping or padding with zeros), then applies a matrix. The DFT matrix
is symmetric, so the adjoint applies the same transform to the
cotangent and fits the result back to the input's shape. The real
transforms add a step: ``rfft`` keeps the first ``n // 2 + 1``
frequencies (its adjoint pads them back with zeros and keeps the real
part, for a real input), and ``irfft`` reads its input as one half of a
Hermitian spectrum, counting every frequency but the zeroth and the
Nyquist one twice (its adjoint weights them so).
"""
import numpy as np

__all__ = ["grad_fftn", "grad_rfftn", "grad_irfftn"]


def _axes_and_lengths(a, s, axes, real_inverse=False):
    """The transformed axes (non-negative) and the transform lengths of
    ``np.fft.fftn(a, s, axes)``; an int `s` or `axes` is one axis's.
    For the inverse real transforms, the default length of the last axis
    is ``2 * (m - 1)``."""
    ndim = np.ndim(a)
    axes = (axes,) if isinstance(axes, int) else axes
    s = (s,) if isinstance(s, int) else s
    if axes is None:
        axes = range(ndim) if s is None else range(ndim - len(s), ndim)
    axes = tuple(axis % ndim for axis in axes)
    if s is None:
        shape = np.shape(a)
        s = [shape[axis] for axis in axes]
        if real_inverse:
            s[-1] = 2 * (s[-1] - 1)
    return axes, tuple(s)


def _fit(g, axes, lengths):
    """`g` cropped or padded with zeros along each of `axes` to `lengths`."""
    index = [slice(None)] * np.ndim(g)
    widths = [(0, 0)] * np.ndim(g)
    for axis, n in zip(axes, lengths):
        m = np.shape(g)[axis]
        if m > n:
            index[axis] = slice(0, n)
        elif m < n:
            widths[axis] = (0, n - m)
    g = g[tuple(index)]
    return np.pad(g, widths) if any(w != (0, 0) for w in widths) else g


def _shape_along(a, axes):
    shape = np.shape(a)
    return [shape[axis] for axis in axes]


def grad_fftn(g, a, s, axes, norm, inverse=False):
    """The adjoint of ``np.fft.fftn(a, s, axes, norm)`` (of ``ifftn`` with
    `inverse`), also of fft, fft2 and their inverses: the same transform of
    `g`, fitted back to `a`'s shape.

    >>> a = np.array([1.0, 2.0, 3.0])
    >>> np.real(grad_fftn(np.array([1.0, 0.0, 0.0, 0.0]), a, 4, -1, None))
    array([1., 1., 1.])
    """
    axes, _ = _axes_and_lengths(a, s, axes)
    transform = np.fft.ifftn if inverse else np.fft.fftn
    return _fit(transform(g, axes=axes, norm=norm), axes, _shape_along(a, axes))


def grad_rfftn(g, a, s, axes, norm):
    """The adjoint of ``np.fft.rfftn(a, s, axes, norm)`` for a real `a`
    (also of rfft and rfft2): the half spectrum `g` padded with zeros to
    the full lengths, transformed, fitted back to `a`, its real part."""
    axes, lengths = _axes_and_lengths(a, s, axes)
    full = np.fft.fftn(g, s=lengths, axes=axes, norm=norm)
    return np.real(_fit(full, axes, _shape_along(a, axes)))


def grad_irfftn(g, a, s, axes, norm):
    """The adjoint of ``np.fft.irfftn(a, s, axes, norm)`` (also of irfft and
    irfft2), in the convention of the other reverse rules (``g * f'(z)``
    for a holomorphic step; irfft is not holomorphic: the rule is declared
    so). Of the inverse transform of `g`, the first ``n // 2 + 1``
    frequencies of the last axis count, each but the zeroth and (for an
    even n) the Nyquist one twice; the others do not enter the result."""
    axes, lengths = _axes_and_lengths(a, s, axes, real_inverse=True)
    v = np.fft.ifftn(g, axes=axes, norm=norm)
    last, n = axes[-1], lengths[-1]
    half = n // 2 + 1
    v = _fit(v, (last,), (half,))
    weights = np.full(half, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    shape = [1] * np.ndim(v)
    shape[last] = half
    return _fit(v * np.reshape(weights, shape), axes, _shape_along(a, axes))
