"""``scipy.stats``: the log densities, densities and distribution
functions of the common distributions, in the data, ``loc``, ``scale``
and the distributions' own parameters, one row each in both modes
(``tangent_ad.rule_table``); registered only when SciPy is installed.

The methods are keyed by the bound method (``scipy.stats.norm.logpdf``):
``from scipy.stats import norm`` then ``norm.logpdf(x, loc=m, scale=s)``
finds the row. Their parameters after ``x`` are SciPy's ``*args``: passed
by keyword or by position (``t.logpdf(x, df, loc, scale)``), in the
row's order, which is SciPy's (shapes, then loc and scale).
``z = (x - loc) / scale`` is written out in each partial. A shape
parameter without a closed-form derivative (a distribution function's in
``df``, ``a`` or ``b``) is refused; so are poisson's integer count ``k``
and its shift ``loc``.
"""
from tangent_ad.rule_table import derivatives

try:
    import numpy as np  # noqa: F401 (read by the rows)
    from scipy import special, stats  # noqa: F401

    from tangent_ad.runtime import unbroadcast  # noqa: F401
except ImportError:  # no SciPy: no rules, and nothing else changes
    stats = None

# the standard normal density at z, and its log
PHI = "0.3989422804014327 * np.exp(-0.5 * ((x - loc) / scale) ** 2)"
LOG_PHI = "-0.5 * ((x - loc) / scale) ** 2 - 0.9189385332046728"
Z = "((x - loc) / scale)"

def densities(log_densities):
    """The rows of each log density and of its density: pdf' = pdf * (log pdf)'."""
    rows = dict(log_densities)
    for logpdf, partials in log_densities.items():
        assert logpdf.__name__ == "logpdf", logpdf
        pdf = getattr(logpdf.__self__, "pdf")
        rows[pdf] = {p: None if e is None else f"y * ({e})" for p, e in partials.items()}
    return rows


def distribution_functions(dist, *shapes):
    """The rows of dist's cdf, sf, logcdf and logsf: in the data, loc and
    scale their slope is the density (``F(z)' = f(z)``, read through
    ``dist.pdf`` and ``dist.logpdf``, which have rules of their own); in
    the shape parameters there is no closed form, so those are refused."""
    given = "".join(f"{s}={s}, " for s in shapes)
    pdf = f"stats.{dist.name}.pdf(x, {given}loc=loc, scale=scale)"
    ratio = f"np.exp(stats.{dist.name}.logpdf(x, {given}loc=loc, scale=scale) - y)"
    rows = {}
    for method, slope, sign in ((dist.cdf, pdf, 1), (dist.sf, pdf, -1),
                                (dist.logcdf, ratio, 1), (dist.logsf, ratio, -1)):
        up, down = ("", "-") if sign > 0 else ("-", "")
        rows[method] = {"x": f"{up}{slope}", **{s: None for s in shapes},
                        "loc=0.0": f"{down}{slope}",
                        "scale=1.0": f"{down}{slope} * (x - loc) / scale"}
    return rows


if stats is not None:
    derivatives(globals(), densities({
        stats.norm.logpdf: {"x": f"-{Z} / scale", "loc=0.0": f"{Z} / scale",
                            "scale=1.0": f"({Z} ** 2 - 1.0) / scale"},
        stats.t.logpdf: {
            "x": f"-(df + 1.0) * {Z} / ((df + {Z} ** 2) * scale)",
            "df": f"0.5 * (special.psi(0.5 * df + 0.5) - special.psi(0.5 * df) - 1.0 / df"
                  f" - np.log1p({Z} ** 2 / df) + (df + 1.0) * {Z} ** 2 / (df * (df + {Z} ** 2)))",
            "loc=0.0": f"(df + 1.0) * {Z} / ((df + {Z} ** 2) * scale)",
            "scale=1.0": f"((df + 1.0) * {Z} ** 2 / (df + {Z} ** 2) - 1.0) / scale"},
        stats.gamma.logpdf: {
            "x": f"((a - 1.0) / {Z} - 1.0) / scale",
            "a": f"np.log({Z}) - special.psi(a)",
            "loc=0.0": f"(1.0 - (a - 1.0) / {Z}) / scale",
            "scale=1.0": f"({Z} - a) / scale"},
        stats.chi2.logpdf: {
            "x": f"((0.5 * df - 1.0) / {Z} - 0.5) / scale",
            "df": f"0.5 * (np.log(0.5 * {Z}) - special.psi(0.5 * df))",
            "loc=0.0": f"(0.5 - (0.5 * df - 1.0) / {Z}) / scale",
            "scale=1.0": f"(0.5 * {Z} - 0.5 * df) / scale"},
        stats.beta.logpdf: {
            "x": f"((a - 1.0) / {Z} - (b - 1.0) / (1.0 - {Z})) / scale",
            "a": f"np.log({Z}) - special.psi(a) + special.psi(a + b)",
            "b": f"np.log1p(-{Z}) - special.psi(b) + special.psi(a + b)",
            "loc=0.0": f"((b - 1.0) / (1.0 - {Z}) - (a - 1.0) / {Z}) / scale",
            "scale=1.0": f"(((b - 1.0) / (1.0 - {Z}) - (a - 1.0) / {Z}) * {Z} - 1.0) / scale"},
    }))
    derivatives(globals(), {
        stats.norm.cdf: {"x": f"{PHI} / scale", "loc=0.0": f"-{PHI} / scale",
                         "scale=1.0": f"-{PHI} * {Z} / scale"},
        stats.norm.sf: {"x": f"-{PHI} / scale", "loc=0.0": f"{PHI} / scale",
                        "scale=1.0": f"{PHI} * {Z} / scale"},
        stats.norm.logcdf: {"x": f"np.exp({LOG_PHI} - y) / scale",
                            "loc=0.0": f"-np.exp({LOG_PHI} - y) / scale",
                            "scale=1.0": f"-np.exp({LOG_PHI} - y) * {Z} / scale"},
        stats.norm.logsf: {"x": f"-np.exp({LOG_PHI} - y) / scale",
                           "loc=0.0": f"np.exp({LOG_PHI} - y) / scale",
                           "scale=1.0": f"np.exp({LOG_PHI} - y) * {Z} / scale"},
        **distribution_functions(stats.t, "df"),
        **distribution_functions(stats.gamma, "a"),
        **distribution_functions(stats.chi2, "df"),
        **distribution_functions(stats.beta, "a", "b"),
        stats.poisson.logpmf: {"k": None, "mu": "k / mu - 1.0", "loc=0": None},
        stats.poisson.pmf: {"k": None, "mu": "y * (k / mu - 1.0)", "loc=0": None},
        # d/dmu P(X <= k) = -pmf(floor(k)): the mass that leaves the count
        stats.poisson.cdf: {"k": None, "mu": "-stats.poisson.pmf(np.floor(k - loc), mu=mu)",
                            "loc=0": None},
        stats.poisson.sf: {"k": None, "mu": "stats.poisson.pmf(np.floor(k - loc), mu=mu)",
                           "loc=0": None},
        stats.poisson.logcdf: {
            "k": None, "mu": "-np.exp(stats.poisson.logpmf(np.floor(k - loc), mu=mu) - y)",
            "loc=0": None},
        stats.poisson.logsf: {
            "k": None, "mu": "np.exp(stats.poisson.logpmf(np.floor(k - loc), mu=mu) - y)",
            "loc=0": None},
    })
