"""Forward-mode rules for ``scipy.special``, registered only when SciPy is
installed (as its reverse rules in ``scipy_special.py``).

The rules use only NumPy and ``tangent_ad.runtime``, since the generated
code may not have ``scipy`` in its namespace.
"""
import numpy as np

from tangent_ad.registry import broadcasting, tangent
from tangent_ad.runtime import digamma, unreduce

try:
    from scipy import special
except ImportError:  # no SciPy: no rules, and nothing else changes
    special = None

d = None  # d[x] is the tangent of x; templates are parsed, never run


if special is not None:

    @tangent(special.erf)
    def erf(result, x):
        d[result] = d[x] * 1.1283791670955126 * np.exp(-x * x)

    @tangent(special.erfc)
    def erfc(result, x):
        d[result] = -d[x] * 1.1283791670955126 * np.exp(-x * x)

    @tangent(special.expit)
    def expit(result, x):
        d[result] = d[x] * result * (1.0 - result)

    @tangent(special.gammaln)
    def gammaln(result, x):
        d[result] = d[x] * digamma(x)

    @tangent(special.log_softmax)
    def log_softmax(result, x, axis=None):
        d[result] = d[x] - np.sum(np.exp(result) * d[x], axis, keepdims=True)

    @tangent(special.logit)
    def logit(result, x):
        d[result] = d[x] / (x * (1.0 - x))

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

    @tangent(special.xlogy)
    def xlogy(result, x1, x2):
        d[result] = d[x1] * np.log(x2) + d[x2] * x1 / x2

    broadcasting(special.xlogy)
