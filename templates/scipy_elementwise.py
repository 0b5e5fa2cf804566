"""``scipy.special``'s elementwise functions, one derivative each,
registered in both modes (``tangent_ad.rule_table``) when SciPy is
installed; the other rules are in ``scipy_special.py`` and
``scipy_special_forward.py``.

A row is f'(x) in the argument ``x`` and the result ``y``, or a partial
derivative per argument, in the names of the function's parameters
(``x1``, ``x2`` for a ufunc of two arguments). ``None`` marks an
argument without a closed-form derivative (an order, a shape
parameter): differentiating with respect to it is refused. The rows use ``special`` itself, so every derivative has a rule
of its own: second derivatives follow (psi' is the Hurwitz zeta(2, .),
whose derivative is -2 zeta(3, .)). They call SciPy's ufuncs where
there is a choice (``zeta`` rather than ``polygamma``, which converts its
arguments to NumPy arrays), so other array types pass through.
"""
from tangent_ad.registry import zero_derivative
from tangent_ad.rule_table import derivatives

try:
    import numpy as np  # noqa: F401 (read by the rows)
    from scipy import special

    from tangent_ad.runtime import digamma, unbroadcast  # noqa: F401
except ImportError:  # no SciPy: no rules, and nothing else changes
    special = None


if special is not None:
    derivatives(globals(), {
        special.erf: "1.1283791670955126 * np.exp(-x * x)",
        special.erfc: "-1.1283791670955126 * np.exp(-x * x)",
        special.erfinv: "0.886226925452758 * np.exp(y * y)",
        special.erfcinv: "-0.886226925452758 * np.exp(y * y)",
        special.expit: "y * (1.0 - y)",
        special.logit: "1.0 / (x * (1.0 - x))",
        special.ndtr: "0.3989422804014327 * np.exp(-0.5 * x * x)",
        special.log_ndtr: "np.exp(-0.5 * x * x - 0.9189385332046728 - y)",
        special.ndtri: "2.5066282746310002 * np.exp(0.5 * y * y)",
        special.entr: "-np.log(x) - 1.0",
        # gamma and its relatives
        special.gamma: "y * special.psi(x)",
        special.gammaln: "digamma(x)",
        special.rgamma: "-y * special.psi(x)",
        special.psi: "special.zeta(2.0, x)",  # polygamma(1, x), but a ufunc: arrays dispatch
        special.zeta: {"x": None, "q=None": "-x * special.zeta(x + 1.0, q)"},
        special.polygamma: {"n": None, "x": "special.polygamma(n + 1, x)"},
        special.multigammaln: {
            "a": "np.sum(special.psi(np.expand_dims(a, -1) - 0.5 * np.arange(d)), -1)",
            "d": None},
        special.beta: {"x1": "y * (special.psi(x1) - special.psi(x1 + x2))",
                       "x2": "y * (special.psi(x2) - special.psi(x1 + x2))"},
        special.betaln: {"x1": "special.psi(x1) - special.psi(x1 + x2)",
                         "x2": "special.psi(x2) - special.psi(x1 + x2)"},
        # gammainc(a, x), gammaincc(a, x): no closed form in a
        special.gammainc: {
            "x1": None, "x2": "np.exp((x1 - 1.0) * np.log(x2) - x2 - special.gammaln(x1))"},
        special.gammaincc: {
            "x1": None, "x2": "-np.exp((x1 - 1.0) * np.log(x2) - x2 - special.gammaln(x1))"},
        # betainc(a, b, x): the beta density in x; no closed form in a, b
        special.betainc: {
            "x1": None, "x2": None,
            "x3": "np.exp((x1 - 1.0) * np.log(x3) + (x2 - 1.0) * np.log1p(-x3) - "
                  "special.betaln(x1, x2))"},
        # Bessel functions of x, or of x2 at the order x1 (not differentiated)
        special.j0: "-special.j1(x)",
        special.j1: "0.5 * (special.j0(x) - special.jv(2.0, x))",
        special.y0: "-special.y1(x)",
        special.y1: "special.y0(x) - y / x",
        special.i0: "special.i1(x)",
        special.i1: "0.5 * (special.i0(x) + special.iv(2.0, x))",
        special.jv: {"x1": None,
                     "x2": "0.5 * (special.jv(x1 - 1.0, x2) - special.jv(x1 + 1.0, x2))"},
        special.yn: {"x1": None,
                     "x2": "0.5 * (special.yn(x1 - 1, x2) - special.yn(x1 + 1, x2))"},
        special.iv: {"x1": None,
                     "x2": "0.5 * (special.iv(x1 - 1.0, x2) + special.iv(x1 + 1.0, x2))"},
        special.ive: {"x1": None, "x2": "0.5 * (special.ive(x1 - 1.0, x2) + "
                                        "special.ive(x1 + 1.0, x2)) - np.sign(x2) * y"},
        # x log y and its kin
        special.xlogy: {"x1": "np.log(x2)", "x2": "x1 / x2"},
        special.xlog1py: {"x1": "np.log1p(x2)", "x2": "x1 / (1.0 + x2)"},
    })
    zero_derivative(special.gammasgn)
