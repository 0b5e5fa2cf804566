"""Forward-mode rules for ``scipy.signal`` (see ``scipy_signal.py``):
bilinear, a term per operand; and the rule of ``signal_full``, linear in
the adjoint it places."""
from tangent_ad.registry import tangent

try:
    from scipy import signal

    from tangent_ad.runtime import signal_full
except ImportError:  # no SciPy: no rules, and nothing else changes
    signal = None

d = None  # d[x] is the tangent of x; templates are parsed, never run


if signal is not None:

    @tangent(signal.convolve)
    def convolve(result, in1, in2, mode="full", method="auto"):
        d[result] = signal.convolve(d[in1], in2, mode, method) + \
            signal.convolve(in1, d[in2], mode, method)

    @tangent(signal.correlate)
    def correlate(result, in1, in2, mode="full", method="auto"):
        d[result] = signal.correlate(d[in1], in2, mode, method) + \
            signal.correlate(in1, d[in2], mode, method)

    @tangent(signal_full)
    def signal_full_rule(result, g, in1, in2, mode="full"):
        d[result] = signal_full(d[g], in1, in2, mode)
