"""Forward-mode rules for ``scipy.special``, registered only when SciPy is
installed (as its reverse rules in ``scipy_special.py``).

The rules use only NumPy and ``tangent_ad.runtime``, since the generated
code may not have ``scipy`` in its namespace.
"""
import numpy as np

from tangent_ad.registry import tangent
from tangent_ad.runtime import unreduce

try:
    from scipy import special
except ImportError:  # no SciPy: no rules, and nothing else changes
    special = None

d = None  # d[x] is the tangent of x; templates are parsed, never run


if special is not None:

    @tangent(special.log_softmax)
    def log_softmax(result, x, axis=None):
        d[result] = d[x] - np.sum(np.exp(result) * d[x], axis, keepdims=True)

    @tangent(special.logsumexp)
    def logsumexp(result, a, axis=None, b=1.0, keepdims=False):
        """The scale factors b are differentiated too (their default 1.0 folds away)."""
        d[result] = np.sum(b * np.exp(a - unreduce(result, a, axis, keepdims)) * d[a], axis,
                           keepdims=keepdims) + \
            np.sum(np.exp(a - unreduce(result, a, axis, keepdims)) * d[b], axis,
                   keepdims=keepdims)

    @tangent(special.softmax)
    def softmax(result, x, axis=None):
        d[result] = result * (d[x] - np.sum(result * d[x], axis, keepdims=True))
