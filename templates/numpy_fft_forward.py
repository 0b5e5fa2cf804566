"""Forward-mode rules for ``np.fft``, and for the runtime helpers of its
reverse rules (for forward mode over a gradient).

Every transform, and every adjoint of one, is linear in the array it
moves: its tangent is the same call on the tangent.
"""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.runtime import grad_fftn, grad_irfftn, grad_rfftn

d = None  # d[x] is the tangent of x; templates are parsed, never run


# ---- transforms ------------------------------------------------------------

@tangent(np.fft.fft)
def fft(result, a, n=None, axis=-1, norm=None):
    d[result] = np.fft.fft(d[a], n, axis, norm)


@tangent(np.fft.fft2)
def fft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[result] = np.fft.fft2(d[a], s, axes, norm)


@tangent(np.fft.fftn)
def fftn(result, a, s=None, axes=None, norm=None):
    d[result] = np.fft.fftn(d[a], s, axes, norm)


@tangent(np.fft.ifft)
def ifft(result, a, n=None, axis=-1, norm=None):
    d[result] = np.fft.ifft(d[a], n, axis, norm)


@tangent(np.fft.ifft2)
def ifft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[result] = np.fft.ifft2(d[a], s, axes, norm)


@tangent(np.fft.ifftn)
def ifftn(result, a, s=None, axes=None, norm=None):
    d[result] = np.fft.ifftn(d[a], s, axes, norm)


@tangent(np.fft.rfft)
def rfft(result, a, n=None, axis=-1, norm=None):
    d[result] = np.fft.rfft(d[a], n, axis, norm)


@tangent(np.fft.rfft2)
def rfft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[result] = np.fft.rfft2(d[a], s, axes, norm)


@tangent(np.fft.rfftn)
def rfftn(result, a, s=None, axes=None, norm=None):
    d[result] = np.fft.rfftn(d[a], s, axes, norm)


@tangent(np.fft.irfft)
def irfft(result, a, n=None, axis=-1, norm=None):
    d[result] = np.fft.irfft(d[a], n, axis, norm)


@tangent(np.fft.irfft2)
def irfft2(result, a, s=None, axes=(-2, -1), norm=None):
    d[result] = np.fft.irfft2(d[a], s, axes, norm)


@tangent(np.fft.irfftn)
def irfftn(result, a, s=None, axes=None, norm=None):
    d[result] = np.fft.irfftn(d[a], s, axes, norm)


@tangent(np.fft.fftshift)
def fftshift(result, x, axes=None):
    d[result] = np.fft.fftshift(d[x], axes)


@tangent(np.fft.ifftshift)
def ifftshift(result, x, axes=None):
    d[result] = np.fft.ifftshift(d[x], axes)


# ---- the adjoints of the reverse rules -------------------------------------

@tangent(grad_fftn)
def grad_fftn_rule(result, g, a, s, axes, norm, inverse=False):
    d[result] = grad_fftn(d[g], a, s, axes, norm, inverse)


@tangent(grad_rfftn)
def grad_rfftn_rule(result, g, a, s, axes, norm):
    d[result] = grad_rfftn(d[g], a, s, axes, norm)


@tangent(grad_irfftn)
def grad_irfftn_rule(result, g, a, s, axes, norm):
    d[result] = grad_irfftn(d[g], a, s, axes, norm)
