"""Reverse-mode rules for ``np.fft``.

Every transform is linear and its matrix symmetric: the adjoint applies
the same transform to the cotangent and fits it back to the input's shape
(``grad_fftn``; ``grad_rfftn`` and ``grad_irfftn`` for the real
transforms, see tangent_ad/runtime/fft.py). The shifts are permutations:
each one's adjoint is the other. ``irfft`` reads only the real part of the
zeroth and Nyquist frequencies, so it is not holomorphic.
"""
import numpy as np

from tangent_ad.registry import adjoint, nonholomorphic
from tangent_ad.runtime import grad_fftn, grad_irfftn, grad_rfftn

d = None  # d[x] is the adjoint of x; templates are parsed, never run


# ---- complex transforms ----------------------------------------------------

@adjoint(np.fft.fft)
def fft(result, a, n=None, axis=-1, norm=None):
    d[a] = grad_fftn(d[result], a, n, axis, norm)


@adjoint(np.fft.fft2)
def fft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[a] = grad_fftn(d[result], a, s, axes, norm)


@adjoint(np.fft.fftn)
def fftn(result, a, s=None, axes=None, norm=None):
    d[a] = grad_fftn(d[result], a, s, axes, norm)


@adjoint(np.fft.ifft)
def ifft(result, a, n=None, axis=-1, norm=None):
    d[a] = grad_fftn(d[result], a, n, axis, norm, True)


@adjoint(np.fft.ifft2)
def ifft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[a] = grad_fftn(d[result], a, s, axes, norm, True)


@adjoint(np.fft.ifftn)
def ifftn(result, a, s=None, axes=None, norm=None):
    d[a] = grad_fftn(d[result], a, s, axes, norm, True)


# ---- real transforms -------------------------------------------------------

@adjoint(np.fft.rfft)
def rfft(result, a, n=None, axis=-1, norm=None):
    d[a] = grad_rfftn(d[result], a, n, axis, norm)


@adjoint(np.fft.rfft2)
def rfft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[a] = grad_rfftn(d[result], a, s, axes, norm)


@adjoint(np.fft.rfftn)
def rfftn(result, a, s=None, axes=None, norm=None):
    d[a] = grad_rfftn(d[result], a, s, axes, norm)


@adjoint(np.fft.irfft)
def irfft(result, a, n=None, axis=-1, norm=None):
    d[a] = grad_irfftn(d[result], a, n, axis, norm)


@adjoint(np.fft.irfft2)
def irfft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[a] = grad_irfftn(d[result], a, s, axes, norm)


@adjoint(np.fft.irfftn)
def irfftn(result, a, s=None, axes=None, norm=None):
    d[a] = grad_irfftn(d[result], a, s, axes, norm)


nonholomorphic(np.fft.irfft, np.fft.irfft2, np.fft.irfftn)


# ---- shifts ----------------------------------------------------------------

@adjoint(np.fft.fftshift)
def fftshift(result, x, axes=None):
    d[x] = np.fft.ifftshift(d[result], axes)


@adjoint(np.fft.ifftshift)
def ifftshift(result, x, axes=None):
    d[x] = np.fft.fftshift(d[result], axes)
