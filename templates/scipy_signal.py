"""Reverse-mode rules for ``scipy.signal``, registered only when SciPy is
installed: ``convolve`` and ``correlate`` in N dimensions, with modes
'full', 'same' and 'valid'. Both are bilinear: each operand's adjoint is
the adjoint of the result, placed in the full result (``signal_full``),
convolved in 'valid' mode with the other operand flipped along every
axis. ``correlate(a, v)`` is ``convolve(a, conj(flip(v)))``: conjugate
linear in v (JAX's convention).
"""
from tangent_ad.registry import adjoint, nonholomorphic

try:
    import numpy as np
    from scipy import signal

    from tangent_ad.runtime import signal_full
except ImportError:  # no SciPy: no rules, and nothing else changes
    signal = None

d = None  # d[x] is the adjoint of x; templates are parsed, never run


if signal is not None:

    @adjoint(signal.convolve)
    def convolve(result, in1, in2, mode="full", method="auto"):
        """N-d; modes 'full', 'same', 'valid'; bilinear."""
        d[in1] = signal.convolve(signal_full(d[result], in1, in2, mode), np.flip(in2), "valid")
        d[in2] = signal.convolve(signal_full(d[result], in1, in2, mode), np.flip(in1), "valid")

    @adjoint(signal.correlate)
    def correlate(result, in1, in2, mode="full", method="auto"):
        """convolve(in1, conj(flip(in2))): conjugate-linear in in2."""
        d[in1] = signal.convolve(signal_full(d[result], in1, in2, mode), np.conj(in2), "valid")
        d[in2] = np.conj(np.flip(signal.convolve(signal_full(d[result], in1, in2, mode),
                                                 np.flip(in1), "valid")))

    nonholomorphic(signal.correlate)
