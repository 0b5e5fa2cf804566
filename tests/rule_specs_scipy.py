"""The rule table's SciPy section (kept apart from the NumPy one).

Imported by ``rule_specs.py``, whose ``Spec``, ``unary`` and ``binary``
it uses; empty when SciPy is not installed, as its rules are not
registered then. Every key here is also checked to second order
(``SECOND_ORDER_KEYS``: forward over reverse and forward over forward).
"""
from rule_specs import POSITIVE, Spec, binary, unary

try:
    import scipy.special
except ImportError:  # SciPy is optional
    scipy = None

if scipy is None:
    SPECS, SECOND_ORDER_KEYS = [], ()
else:
    sp = scipy.special
    SPECS = [
        # ---- elementwise, one argument ---------------------------------------
        *unary(sp.erfinv, "scipy.special.erfinv(x)", domain=(-0.8, 0.8)),
        *unary(sp.erfcinv, "scipy.special.erfcinv(x)", domain=(0.2, 1.8)),
        *unary(sp.ndtr, "scipy.special.ndtr(x)", domain=(-2.0, 2.0)),
        *unary(sp.log_ndtr, "scipy.special.log_ndtr(x)", domain=(-3.0, 2.0)),
        *unary(sp.ndtri, "scipy.special.ndtri(x)", domain=(0.1, 0.9)),
        *unary(sp.entr, "scipy.special.entr(x)", domain=(0.1, 2.0)),
        *unary(sp.gamma, "scipy.special.gamma(x)", domain=(0.5, 3.0)),
        Spec(sp.gamma, "scipy.special.gamma(x)", x=(3,), domain=(-1.8, -1.2)),
        *unary(sp.rgamma, "scipy.special.rgamma(x)", domain=(0.5, 3.0)),
        *unary(sp.psi, "scipy.special.psi(x)", domain=(0.5, 3.0)),
        Spec(sp.psi, "scipy.special.digamma(x)", x=(3,), domain=(0.5, 3.0)),
        Spec(sp.polygamma, "scipy.special.polygamma(1, x)", x=(3,), domain=(0.5, 3.0)),
        Spec(sp.polygamma, "scipy.special.polygamma(2, x)", x=(2, 2), domain=(0.5, 3.0)),
        Spec(sp.multigammaln, "scipy.special.multigammaln(x, 3)", x=(3,), domain=(1.5, 3.0)),
        Spec(sp.multigammaln, "scipy.special.multigammaln(s, 2)", s=None, domain=(1.0, 3.0)),
        Spec(sp.gammasgn, "scipy.special.gammasgn(x) * x", x=(3,), domain=(-2.9, 2.9)),
        *unary(sp.j0, "scipy.special.j0(x)", domain=(-3.0, 3.0)),
        *unary(sp.j1, "scipy.special.j1(x)", domain=(-3.0, 3.0)),
        *unary(sp.y0, "scipy.special.y0(x)", domain=(0.5, 3.0)),
        *unary(sp.y1, "scipy.special.y1(x)", domain=(0.5, 3.0)),
        *unary(sp.i0, "scipy.special.i0(x)", domain=(-2.0, 2.0)),
        *unary(sp.i1, "scipy.special.i1(x)", domain=(-2.0, 2.0)),
        # ---- elementwise, two arguments (orders are constants) ----------------
        *binary(sp.beta, "scipy.special.beta(x, y)", domain=POSITIVE),
        *binary(sp.betaln, "scipy.special.betaln(x, y)", domain=POSITIVE),
        *binary(sp.xlog1py, "scipy.special.xlog1py(x, y)", domain={"y": POSITIVE}),
        Spec(sp.gammainc, "scipy.special.gammainc(2.5, x)", x=(3,), domain=POSITIVE),
        Spec(sp.gammaincc, "scipy.special.gammaincc(1.5, x)", x=(2, 2), domain=POSITIVE),
        Spec(sp.jv, "scipy.special.jv(1.5, x)", x=(3,), domain=(0.5, 3.0)),
        Spec(sp.jv, "scipy.special.jv(2, x)", x=(2, 2), domain=(-3.0, 3.0)),
        Spec(sp.yn, "scipy.special.yn(2, x)", x=(3,), domain=(0.5, 3.0)),
        Spec(sp.iv, "scipy.special.iv(0.5, x)", x=(3,), domain=(0.5, 2.0)),
        Spec(sp.ive, "scipy.special.ive(1.0, x)", x=(3,), domain=(-2.0, 2.0)),
    ]
    SECOND_ORDER_KEYS = tuple({spec.key: None for spec in SPECS})
