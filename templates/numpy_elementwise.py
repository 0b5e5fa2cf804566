"""NumPy's elementwise functions whose rules are their derivatives: one
row each, registered in both modes (``tangent_ad.rule_table``).

A row is f'(x) in the argument ``x`` and the result ``y``; a function of
two arguments has a partial derivative per argument, in the names NumPy
gives them. Constants are written out (``0.6931471805599453`` for log 2)
rather than computed with NumPy: a NumPy float64 scalar would turn
float32 arrays into float64 ones, a Python float does not. For complex
arguments these are holomorphic rules (JAX's convention, see
``numpy_reverse.py``). Rules that are not one derivative (``np.abs``,
``np.sign``, the binary operators with their special cases) are written
as templates in ``numpy_reverse.py`` and ``numpy_forward.py``.
"""
import numpy as np

from tangent_ad.rule_table import derivatives
from tangent_ad.runtime import dsinc, sigmoid, unbroadcast  # noqa: F401 (read by the rows)

derivatives(globals(), {
    np.arccos: "-1.0 / np.sqrt(1.0 - x * x)",
    np.arccosh: "1.0 / np.sqrt(x * x - 1.0)",
    np.arcsin: "1.0 / np.sqrt(1.0 - x * x)",
    np.arcsinh: "1.0 / np.sqrt(x * x + 1.0)",
    np.arctan: "1.0 / (1.0 + x * x)",
    np.arctanh: "1.0 / (1.0 - x * x)",
    np.cbrt: "1.0 / (3.0 * y * y)",
    np.cos: "-np.sin(x)",
    np.cosh: "np.sinh(x)",
    np.exp: "y",
    np.exp2: "y * 0.6931471805599453",
    np.expm1: "y + 1.0",
    np.fabs: "np.sign(x)",
    np.log: "1.0 / x",
    np.log10: "1.0 / (x * 2.302585092994046)",
    np.log1p: "1.0 / (1.0 + x)",
    np.log2: "1.0 / (x * 0.6931471805599453)",
    np.negative: "-1.0",
    np.positive: "1.0",
    np.reciprocal: "-y * y",
    np.sin: "np.cos(x)",
    np.sinc: "dsinc(x)",
    np.sinh: "np.cosh(x)",
    np.sqrt: "0.5 / y",
    np.square: "2.0 * x",
    np.tan: "1.0 + y * y",
    np.tanh: "1.0 - y * y",
    # two arguments: one partial derivative each
    np.copysign: {"x1": "np.sign(x1) * np.sign(x2)", "x2": "0"},
    np.logaddexp: {"x1": "sigmoid(x1 - x2)", "x2": "sigmoid(x2 - x1)"},
    np.logaddexp2: {"x1": "np.exp2(x1 - y)", "x2": "np.exp2(x2 - y)"},
})
