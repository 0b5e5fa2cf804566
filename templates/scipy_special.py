"""Reverse-mode rules for ``scipy.special``, registered only when SciPy is
installed (it is an optional extra: ``pip install tangent-sct[scipy]``).

The generated code may not have ``scipy`` in its namespace (the user may
have imported ``from scipy.special import expit``), so the rules use only
NumPy and ``tangent_ad.runtime``; ``digamma`` there is written in NumPy.
"""
import numpy as np

from tangent_ad.registry import adjoint
from tangent_ad.runtime import unbroadcast, unreduce

try:
    from scipy import special
except ImportError:  # no SciPy: no rules, and nothing else changes
    special = None

d = None  # d[x] is the adjoint of x; templates are parsed, never run


if special is not None:

    @adjoint(special.log_softmax)
    def log_softmax(result, x, axis=None):
        d[x] = d[result] - np.exp(result) * np.sum(d[result], axis, keepdims=True)

    @adjoint(special.logsumexp)
    def logsumexp(result, a, axis=None, b=1.0, keepdims=False):
        """The scale factors b are differentiated too (their default 1.0 folds away)."""
        d[a] = unreduce(d[result], a, axis, keepdims) * \
            np.exp(a - unreduce(result, a, axis, keepdims)) * b
        d[b] = unbroadcast(unreduce(d[result], a, axis, keepdims) *
                           np.exp(a - unreduce(result, a, axis, keepdims)), b)

    @adjoint(special.softmax)
    def softmax(result, x, axis=None):
        d[x] = result * (d[result] - np.sum(d[result] * result, axis, keepdims=True))
