"""The rule table's SciPy section (kept apart from the NumPy one).

Imported by ``rule_specs.py``, whose ``Spec``, ``unary`` and ``binary``
it uses; empty when SciPy is not installed, as its rules are not
registered then. Every key here is also checked to second order (``SECOND_ORDER_KEYS``: forward over reverse
and forward over forward).
"""
from rule_specs import POSITIVE, Spec, binary, unary

try:
    import scipy.linalg
    import scipy.signal
    import scipy.special
    import scipy.stats
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
        Spec(sp.zeta, "scipy.special.zeta(3.0, x)", x=(3,), domain=(0.5, 3.0)),
        Spec(sp.zeta, "scipy.special.zeta(2.0, x)", x=(2, 2), domain=(-0.9, -0.1)),
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
        Spec(sp.betainc, "scipy.special.betainc(2.5, 1.5, x)", x=(3,), domain=(0.1, 0.9)),
        Spec(sp.betainc, "scipy.special.betainc(np.array([0.5, 3.0]), 2.0, x)", x=(2, 2),
             domain=(0.1, 0.9)),
        Spec(sp.jv, "scipy.special.jv(1.5, x)", x=(3,), domain=(0.5, 3.0)),
        Spec(sp.jv, "scipy.special.jv(2, x)", x=(2, 2), domain=(-3.0, 3.0)),
        Spec(sp.yn, "scipy.special.yn(2, x)", x=(3,), domain=(0.5, 3.0)),
        Spec(sp.iv, "scipy.special.iv(0.5, x)", x=(3,), domain=(0.5, 2.0)),
        Spec(sp.ive, "scipy.special.ive(1.0, x)", x=(3,), domain=(-2.0, 2.0)),
    ]
    st = scipy.stats
    SCALE = {"s": POSITIVE}
    SPECS += [
        # ---- scipy.stats: data, loc, scale and shape parameters (by keyword) ---
        *[Spec(method, f"scipy.stats.norm.{method.__name__}(x, loc=m, scale=s)",
               x=(3, 2), m=(2,), s=None, domain={"x": (-2.0, 2.0), **SCALE})
          for method in (st.norm.logpdf, st.norm.pdf, st.norm.cdf, st.norm.sf,
                         st.norm.logcdf, st.norm.logsf)],
        Spec(st.norm.logpdf, "scipy.stats.norm.logpdf(x)", x=(4,)),
        Spec(st.norm.cdf, "scipy.stats.norm.cdf(x, scale=s)", x=(4,), s=(4,), domain=SCALE),
        *[Spec(method, f"scipy.stats.t.{method.__name__}(x, df=a, loc=m, scale=s)",
               x=(3,), a=None, m=None, s=None, domain={"a": (2.0, 5.0), **SCALE})
          for method in (st.t.logpdf, st.t.pdf)],
        Spec(st.t.logpdf, "scipy.stats.t.logpdf(x, df=a)", x=(2, 2), a=(2,),
             domain={"a": (2.0, 5.0)}),
        # positional shapes, loc and scale, as SciPy's *args takes them
        Spec(st.t.logpdf, "scipy.stats.t.logpdf(x, a, m, s)", x=(3,), a=(3,), m=None, s=None,
             domain={"a": (2.0, 5.0), **SCALE}),
        Spec(st.norm.cdf, "scipy.stats.norm.cdf(x, m, s)", x=(3,), m=(3,), s=None, domain=SCALE),
        Spec(st.t.pdf, "scipy.stats.t.pdf(x, a, scale=s)", x=(3,), a=None, s=(3,),
             domain={"a": (2.0, 5.0), **SCALE}),
        Spec(st.beta.logpdf, "scipy.stats.beta.logpdf(x, a, b)", x=(3,), a=None, b=None,
             domain={"x": (0.2, 0.8), "a": (1.5, 3.0), "b": (1.5, 3.0)}),
        *[Spec(method, f"scipy.stats.gamma.{method.__name__}(x, a=a, loc=m, scale=s)",
               x=(3,), a=None, m=None, s=None,
               domain={"x": (2.0, 4.0), "a": (1.5, 3.0), "m": (-0.5, 0.5), **SCALE})
          for method in (st.gamma.logpdf, st.gamma.pdf)],
        Spec(st.gamma.logpdf, "scipy.stats.gamma.logpdf(x, a=a)", x=(3,), a=(3,),
             domain={"x": POSITIVE, "a": (1.5, 3.0)}),
        *[Spec(method, f"scipy.stats.chi2.{method.__name__}(x, df=a, loc=m, scale=s)",
               x=(3,), a=None, m=None, s=None,
               domain={"x": (2.0, 4.0), "a": (2.5, 5.0), "m": (-0.5, 0.5), **SCALE})
          for method in (st.chi2.logpdf, st.chi2.pdf)],
        *[Spec(method, f"scipy.stats.beta.{method.__name__}(x, a=a, b=b, loc=m, scale=s)",
               x=(3,), a=None, b=None, m=None, s=None,
               domain={"x": (0.2, 0.8), "a": (1.5, 3.0), "b": (1.5, 3.0),
                       "m": (-0.1, 0.1), "s": (1.0, 1.2)})
          for method in (st.beta.logpdf, st.beta.pdf)],
        Spec(st.beta.logpdf, "scipy.stats.beta.logpdf(x, a=a, b=b)", x=(3,), a=(3,), b=None,
             domain={"x": (0.2, 0.8), "a": (1.5, 3.0), "b": (1.5, 3.0)}),
        *[Spec(method, f"scipy.stats.multivariate_normal.{method.__name__}(x, m, "
               "c @ c.T + 2.0 * np.eye(3))", x=shape, m=(3,), c=(3, 3))
          for method in (st.multivariate_normal.logpdf, st.multivariate_normal.pdf)
          for shape in ((3,), (4, 3))],
        Spec(st.multivariate_normal.entropy, "scipy.stats.multivariate_normal.entropy("
             "m, c @ c.T + 2.0 * np.eye(3))", m=(3,), c=(3, 3)),
        *[Spec(method, f"scipy.stats.{dist.name}.{method.__name__}(x, {shape}loc=m, scale=s)",
               x=(3,), m=None, s=None, domain={"x": x, "m": (-0.1, 0.1), "s": (0.5, 0.6)})
          for dist, shape, x in ((st.t, "df=3.0, ", (-1.0, 1.0)), (st.gamma, "a=2.5, ", (1.2, 1.8)),
                                 (st.chi2, "df=3.0, ", (1.2, 1.8)),
                                 (st.beta, "a=2.0, b=3.0, ", (0.2, 0.4)))
          for method in (dist.cdf, dist.sf, dist.logcdf, dist.logsf)],
        Spec(st.dirichlet.logpdf, "scipy.stats.dirichlet.logpdf(scipy.special.softmax(u), a)",
             u=(3,), a=(3,), domain={"a": (1.5, 3.0)}),
        Spec(st.dirichlet.logpdf, "scipy.stats.dirichlet.logpdf("
             "scipy.special.softmax(u, axis=0), a)", u=(3, 2), a=(3,), domain={"a": (1.5, 3.0)}),
        Spec(st.poisson.logpmf, "scipy.stats.poisson.logpmf(np.arange(3), mu=m)", m=(3,),
             domain=POSITIVE),
        Spec(st.poisson.pmf, "scipy.stats.poisson.pmf(2, mu=m)", m=(2, 2), domain=POSITIVE),
        Spec(st.poisson.cdf, "scipy.stats.poisson.cdf(np.arange(3), mu=m)", m=(3,),
             domain=POSITIVE),
        Spec(st.poisson.cdf, "scipy.stats.poisson.cdf(2.5, mu=m, loc=1)", m=(2, 2),
             domain=POSITIVE),
        Spec(st.poisson.sf, "scipy.stats.poisson.sf(np.array([0.0, 2.0, 4.0]), mu=m)", m=None,
             domain=POSITIVE),
        Spec(st.poisson.logcdf, "scipy.stats.poisson.logcdf(np.arange(3), mu=m)", m=(3,),
             domain=POSITIVE),
        Spec(st.poisson.logsf, "scipy.stats.poisson.logsf(2.5, mu=m, loc=1)", m=(2, 2),
             domain=POSITIVE),
        Spec(st.dirichlet.pdf, "scipy.stats.dirichlet.pdf(scipy.special.softmax(u), a)",
             u=(3,), a=(3,), domain={"a": (1.5, 3.0)}),
        Spec(st.dirichlet.pdf, "scipy.stats.dirichlet.pdf("
             "scipy.special.softmax(u, axis=0), a)", u=(3, 2), a=(3,), domain={"a": (1.5, 3.0)}),
    ]
    la = scipy.linalg
    SPD = "x @ x.T + 3.0 * np.eye(3)"
    SPECS += [
        # ---- scipy.linalg (well-conditioned inputs built inside) ----------------
        Spec(la.solve_triangular, "scipy.linalg.solve_triangular(np.tril(x) + 3.0 * np.eye(3), y,"
             " lower=True)", x=(3, 3), y=(3,)),
        Spec(la.solve_triangular, "scipy.linalg.solve_triangular(np.triu(x) + 3.0 * np.eye(3), y)",
             x=(3, 3), y=(3, 2)),
        Spec(la.solve_triangular, "scipy.linalg.solve_triangular(np.tril(x) + 3.0 * np.eye(3), y,"
             " trans=1, lower=True)", x=(3, 3), y=(3, 2)),
        Spec(la.cholesky, f"scipy.linalg.cholesky({SPD})", x=(3, 4)),
        Spec(la.cholesky, f"scipy.linalg.cholesky({SPD}, lower=True)", x=(3, 2)),
        Spec(la.cholesky, f"scipy.linalg.cholesky({SPD} + y)", x=(3, 2), y=(3, 3)),
        Spec(la.cholesky, f"scipy.linalg.cholesky({SPD} + y, lower=True)", x=(3, 2), y=(3, 3)),
        Spec(la.expm, "scipy.linalg.expm(x)", x=(3, 3)),
        Spec(la.sqrtm, f"scipy.linalg.sqrtm({SPD})", x=(3, 3)),
        Spec(la.block_diag, "scipy.linalg.block_diag(x, y)", x=(2, 2), y=(3,)),
        Spec(la.block_diag, "scipy.linalg.block_diag(x, s, y) * 2.0", x=(2, 3), s=None, y=(1, 2)),
        Spec(la.solve_sylvester, "scipy.linalg.solve_sylvester(x + 3.0 * np.eye(3), "
             "y + 3.0 * np.eye(2), q)", x=(3, 3), y=(2, 2), q=(3, 2)),
        # factor pairs: (lu, piv) and (c, lower)
        Spec(la.lu_factor, "scipy.linalg.lu_factor(x + 3.0 * np.eye(3))[0]", x=(3, 3)),
        Spec(la.lu_factor, "scipy.linalg.lu_factor(x)[0]", x=(4, 4)),
        Spec(la.lu_solve, "scipy.linalg.lu_solve(scipy.linalg.lu_factor(x + 3.0 * np.eye(3)), y)",
             x=(3, 3), y=(3,)),
        Spec(la.lu_solve, "scipy.linalg.lu_solve(scipy.linalg.lu_factor(x), y, trans=1)",
             x=(3, 3), y=(3, 2)),
        Spec(la.lu_solve, "scipy.linalg.lu_solve((np.triu(x) + 3.0 * np.eye(3), "
             "np.array([2, 1, 2])), y)", x=(3, 3), y=(3, 2)),
        Spec(la.cho_factor, f"scipy.linalg.cho_factor({SPD})[0]", x=(3, 4)),
        Spec(la.cho_factor, f"scipy.linalg.cho_factor({SPD} + y, lower=True)[0]", x=(3, 2),
             y=(3, 3)),
        Spec(la.cho_solve, f"scipy.linalg.cho_solve(scipy.linalg.cho_factor({SPD}), y)",
             x=(3, 2), y=(3,)),
        Spec(la.cho_solve, f"scipy.linalg.cho_solve(scipy.linalg.cho_factor({SPD} + z, True), y)",
             x=(3, 3), z=(3, 3), y=(3, 2)),
        Spec(la.cho_solve, "scipy.linalg.cho_solve((np.tril(x) + 3.0 * np.eye(3), True), y)",
             x=(3, 3), y=(3, 2)),
        # banded storage, a[i, j] = ab[u + i - j, j]; a dominant diagonal inside
        Spec(la.solve_banded, "scipy.linalg.solve_banded((1, 1), x + np.array([[0.0], [4.0], "
             "[0.0]]), y)", x=(3, 4), y=(4,)),
        Spec(la.solve_banded, "scipy.linalg.solve_banded((2, 0), x + np.array([[4.0], [0.0], "
             "[0.0]]), y)", x=(3, 5), y=(5, 2)),
        Spec(la.solve_banded, "scipy.linalg.solve_banded((0, 1), x + 4.0 * np.array([0.0, 1.0])"
             "[:, None], y)", x=(2, 3), y=(3, 2)),
        # ---- scipy.signal: N-d convolutions ---------------------------------------
        Spec(scipy.signal.convolve, "scipy.signal.convolve(x, y)", x=(5,), y=(3,)),
        Spec(scipy.signal.convolve, "scipy.signal.convolve(x, y, 'same')", x=(3, 4), y=(2, 3)),
        Spec(scipy.signal.convolve, "scipy.signal.convolve(x, y, mode='valid')", x=(2, 3), y=(4, 5)),
        Spec(scipy.signal.convolve, "scipy.signal.convolve(x, y, 'same', 'fft')", x=(2, 2), y=(3, 4)),
        Spec(scipy.signal.convolve, "scipy.signal.convolve(x, y, 'full', method='direct')",
             x=(2, 3, 2), y=(2, 2, 2)),
        Spec(scipy.signal.convolve, "np.real(scipy.signal.convolve(x * (1 + 2j), y, 'valid'))",
             x=(4, 3), y=(2, 2)),
        Spec(scipy.signal.correlate, "scipy.signal.correlate(x, y)", x=(5,), y=(3,)),
        Spec(scipy.signal.correlate, "scipy.signal.correlate(x, y, 'same')", x=(3, 4), y=(2, 3)),
        Spec(scipy.signal.correlate, "scipy.signal.correlate(x, y, 'valid')", x=(2, 3), y=(4, 5)),
        Spec(scipy.signal.correlate, "scipy.signal.correlate(x, y, mode='same')", x=(3,), y=(5,)),
        Spec(scipy.signal.correlate, "np.imag(scipy.signal.correlate(x * (1 - 1j), y * (2 + 1j),"
             " 'full'))", x=(3, 2), y=(2, 2)),
    ]
    SECOND_ORDER_KEYS = tuple({spec.key: None for spec in SPECS})
